// SPDX-License-Identifier: Apache-2.0
// The CUDA engines as seen from host C++ (g++-safe: plain types, no CUDA headers).
// Included only by the sources of a CUDA build: the glue files kernels/gpu_queries.cpp, kernels/skeleton_registry.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/cmi_knn.hpp"
#include "ci/discrete_codes.hpp"
#include "core/backend.hpp"  // DeviceInfo
#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "pc_gaussian_types.hpp"  // FisherTunables, kScanLevelsMax
#include "skeleton/skeleton_engine.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::cuda {

/// Number of CUDA devices visible to this process; 0 when there is no device or no
/// driver. Never throws.
int device_count();

/// Create the CUDA context of `device` (the slow part of the first CUDA call), so that a
/// thread can do it while the input is read. Errors are left for the engine to report.
void warm_up(int device) noexcept;
/// Loads the kernels of `plan` on `device` (core/backend.hpp's load_gpu_kernels, which
/// counts them) that this process has not loaded there yet, and returns how many. Never
/// throws.
int load_kernels(int device, const GpuKernelPlan& plan) noexcept;
/// Whether load_kernels loaded every kernel of `plan` on `device` in this process and the
/// device's context is still the one they were loaded in. Never throws.
bool kernels_loaded(int device, const GpuKernelPlan& plan) noexcept;
/// Forget what load_kernels loaded on `device` (its context is being destroyed). Never throws.
void forget_kernels(int device) noexcept;
/// Destroys `device`'s primary context of this process (cudaDeviceReset) and makes the
/// previous device current again. Never throws.
void drop_context(int device) noexcept;

/// Hand the device memory the block cache keeps (device_memory.hpp) back to the driver,
/// on every visible device. Never throws.
void release_kept_memory() noexcept;

/// One line per visible device: "GPU <id>: <name>, <total> GiB, <free> GiB free,
/// compute capability <x.y>", or a sentence saying why there is none. Never throws.
std::string device_report();

/// Every visible device as device_report() describes it (memory from cudaMemGetInfo),
/// skipping those whose properties cannot be read (kernels/device_info.cu). Never throws.
std::vector<DeviceInfo> device_infos();
/// Device `device` as device_infos() describes it; nothing when it cannot be read. Sets
/// up that device's context only. Never throws.
std::optional<DeviceInfo> device_info(int device);

/// Gaussian (Fisher-z) skeleton engine on device `device`. The correlation matrix is
/// computed on the GPU (kernels/correlation.cu: equal bit for bit to
/// ci::correlation_matrix) and stays there (n² doubles). With an NCCL communicator of
/// more than one rank (every rank calls this together), each rank computes the upper
/// triangle of its block of rows (blocks of equal work, 64-row tiles) and the blocks are
/// all-gathered over the GPUs; any other communicator: every rank computes all of C.
/// Throws InputError for a constant column or an exhaustive (causal-learn) policy,
/// OutOfMemory when C does not fit in the free device memory, cuda::CudaError on
/// other CUDA failures.
std::unique_ptr<skeleton::SkeletonEngine> make_fisher_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                             const FisherTunables& t, int device = 0,
                                                             mpi::Communicator* comm = nullptr);

/// As make_fisher_engine, from a given n×n correlation matrix (host, row-major,
/// unit diagonal) of a data set with n_samples samples; the matrix is uploaded as is.
std::unique_ptr<skeleton::SkeletonEngine> make_fisher_engine_from_corr(const std::vector<double>& corr, std::int64_t n,
                                                                       std::int64_t n_samples,
                                                                       const skeleton::TestPolicy& policy,
                                                                       const FisherTunables& t, int device = 0);

/// The correlation matrix as make_fisher_engine computes it on the GPU, copied back
/// (n×n, row-major), with the kernel's tiles `tile` (FisherTunables::corr_tile). For checks
/// and tests.
std::vector<double> gpu_correlation(const Dataset& data, int device = 0, int tile = FisherTunables{}.corr_tile);

/// Rows [row_begin, row_end) of the correlation matrix, every column, computed on the GPU
/// from those rows alone ((row_end - row_begin) × n, row-major). For tests: equal bit for
/// bit to the same rows of gpu_correlation and of ci::correlation_matrix, whatever `tile`.
std::vector<double> gpu_correlation_rows(const Dataset& data, std::int64_t row_begin, std::int64_t row_end,
                                         int device = 0, int tile = FisherTunables{}.corr_tile);

/// Fisher-z under `--missing testwise` on device `device` (kernels/fisher_testwise_batch.cu):
/// every query's statistic and p-value those of the CPU's test-wise test
/// (skeleton::make_ci_test on `data`, with `compat`'s p-value arithmetic) bit for bit, and
/// its one-line InputErrors. The columns and a bitmap of their present cells are uploaded
/// once; each query's rows are the AND of its variables' bitmaps. `data` (n_samples rows,
/// NaN where missing) must outlive the batch; `host_threads` form the p-values and run the
/// queries the device leaves to the CPU test (sets of more than 30 variables). Throws
/// OutOfMemory when the columns do not fit on the device.
std::unique_ptr<ci::BatchTest> make_fisher_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                          skeleton::Compat compat, int host_threads, int device = 0);

/// χ² or G² (spec.kind ChiSquare or GSquare, spec.discrete's statistic and dof rule) under
/// `--missing testwise` on device `device` (kernels/discrete_testwise_batch.cu): every query's
/// statistic and p-value those of the CPU's test-wise test (skeleton::make_ci_test on `data`) bit
/// for bit, and its one-line InputErrors. The codes and a bitmap of each column's present cells are
/// uploaded once; each query's rows are the AND of its variables' bitmaps, its degrees of freedom
/// from the levels those rows hold. `data` (discrete, NaN where missing) must outlive the batch;
/// `host_threads` run the queries the device leaves to the CPU test. Throws OutOfMemory when the
/// codes do not fit on the device.
std::unique_ptr<ci::BatchTest> make_discrete_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                            int host_threads, int device = 0);

using cudag::DiscreteTunables;

/// Discrete (χ²/G²) skeleton engine on device `device`, gpuPC's scheme (kernels/
/// pc_discrete.cu). Throws InputError for an exhaustive (causal-learn) policy or a single-
/// level variable (as ci::encode_discrete), OutOfMemory when one block's tables do not fit.
std::unique_ptr<skeleton::SkeletonEngine> make_discrete_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                               const ci::DiscreteTestSpec& test,
                                                               const DiscreteTunables& t = {}, int device = 0);

/// CMIknn under `--missing testwise` on device `device` (kernels/cmi_knn_testwise_batch.cu):
/// every query's statistic and p-value those of the CPU's test-wise test (skeleton::
/// make_ci_test on `data`) bit for bit, and its one-line InputErrors. The columns and a bitmap
/// of their present cells are uploaded once; each query's rows are built on the device (the
/// AND of its variables' bitmaps) and its columns transformed there on those rows. `data`
/// (with missing cells, NaN; continuous columns on the device) must outlive the batch;
/// `host_threads` run the queries the device leaves to the CPU test.
std::unique_ptr<ci::BatchTest> make_cmiknn_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                          int host_threads, int device = 0);

/// One CMIknn test for CmiKnnGpu::run: x ⟂ y | z with the random-number stream test_id
/// (ci::cmi_test_id), exactly as ci::CmiKnn::test(x, y, z, test_id, ...) takes them.
struct CmiKnnQuery {
    std::int32_t x = 0, y = 0;
    std::vector<std::int32_t> z;
    std::uint64_t test_id = 0;
};

/// CMIknn tests on one GPU (GPU-CMIknn, DIGEST.md §2.4, with cudag's keyed random numbers):
/// the transformed columns live on the device; run() tests a batch, every surrogate of
/// every test in a few launches, and returns for each query what ci::CmiKnn::test returns
/// on the CPU for the same data, spec and query: the same statistic, p-value, surrogate
/// and exceedance counts, bit for bit.
class CmiKnnGpu {
public:
    virtual ~CmiKnnGpu() = default;
    /// Results in query order. `early_stop` replaces the spec's (as ci::CmiKnn::test's
    /// last argument does).
    virtual std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries,
                                              const std::optional<ci::CmiEarlyStop>& early_stop) = 0;
    virtual std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries) = 0;
    /// The host reference with the same transformed columns (ci::CmiKnn of the same data).
    virtual const ci::CmiKnn& reference() const = 0;
};

/// CMIknn on device `device` for `data` (continuous; must outlive the object), tests with
/// up to max_cond conditioning variables. Throws as ci::CmiKnn's constructor, OutOfMemory
/// when the data do not fit on the device.
std::unique_ptr<CmiKnnGpu> make_cmiknn_gpu(const Dataset& data, const ci::CmiKnnSpec& spec, int max_cond,
                                           int device = 0);

/// The CMIknn skeleton engine on device `device` (results equal skeleton::CpuCmiKnnEngine's).
std::unique_ptr<skeleton::SkeletonEngine> make_cmiknn_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                             const ci::CmiKnnSpec& spec, int max_level, int device = 0);

/// The cg-lrt test's batches (ci::cg_lrt, "cg-lrt") on device `device` (kernels/cg_lrt_batch.cu):
/// every query's statistic and p-value bit for bit ci::cg_lrt's, queries beyond the kernel's
/// limits answered by ci::cg_lrt on `host_threads` threads in the same call, errors ci::cg_lrt's.
/// The columns are uploaded once; `data` must outlive the object. With missing cells
/// (data.missing > 0, NaN) every answer is the CPU's test-wise test's (skeleton::make_ci_test on
/// `data`: each query on the rows complete in its variables) bit for bit, and its one-line
/// InputErrors: a bitmap of each column's present cells is uploaded too, and each query's rows are
/// the AND of its variables' bitmaps. Throws OutOfMemory when the columns do not fit on the device,
/// cuda::CudaError on other CUDA failures.
std::unique_ptr<ci::BatchTest> make_cg_lrt_batch(const Dataset& data, int device = 0, int host_threads = 1);

}  // namespace cudag::cuda
