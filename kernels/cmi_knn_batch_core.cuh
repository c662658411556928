// SPDX-License-Identifier: Apache-2.0
// The batch machinery of the CUDA CMIknn (cmi_knn_batch_engine.cu), shared by the engine of
// complete data (CmiKnnGpu: one table, the data's transformed columns) and the test-wise
// batch of `--missing testwise` (cmi_knn_testwise_batch.cu: one table per sample count, the
// columns of each test transformed on its own complete rows on the device).
//
// A table is what the kernels read of a data set: `n` samples of some columns, variable-
// major on the device (the working columns: int ranks for the ranks and uniform transforms,
// else doubles; for ranks also the sample at each rank; the raw values the surrogates
// permute; ψ in fixed point for 0..n), and what the host knows of each column (constant,
// population std of the raw values). Queries name the table's columns; the core runs them
// as ci::CmiKnn::test runs them on a data set of those columns, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "cmi_knn_types.cuh"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "engines.hpp"

namespace cudag::cuda {

/// One table of columns the kernels read (see the file comment). Device pointers unless
/// said; wi and winv for the ranks transforms, wd for the others.
struct CmiTable {
    int n = 0;                  ///< samples
    std::int64_t k = 1;         ///< the estimator's k for n samples (ci::cmi_k)
    int fixed_bits = 44;        ///< ci::cmi_fixed_bits(n)
    double psi_k = 0.0;         ///< ψ(k) (ci::cmi_digamma, on the host)
    const int* wi = nullptr;    ///< ranks of each column
    const int* winv = nullptr;  ///< sample at each rank of each column
    const double* wd = nullptr;
    const double* raw = nullptr;             ///< raw values of each column
    const long long* psi = nullptr;          ///< ψ(c) in fixed point, c = 0..n
    std::span<const std::uint8_t> constant;  ///< host: 1 where a column's values are all equal
    std::span<const double> raw_std;         ///< host: population std of each raw column

    /// The statistic of a fixed-point term sum (ci::CmiKnn::statistic_from_sum).
    double statistic(std::int64_t sum) const { return ci::cmi_from_fixed_sum(psi_k, sum, fixed_bits, n); }
};

/// Runs CMIknn queries on a table (CmiKnnGpu's batches, the early stop, the surrogate chunks)
/// on the device context's stream. The queries must be valid for the table (distinct
/// columns, z sorted as the caller's CPU reference takes it); constant columns are handled
/// as ci::CmiKnn::test does (x or y constant: statistic 0, p 1; constant z columns dropped).
class CmiKnnBatchCore {
public:
    CmiKnnBatchCore(const ci::CmiKnnSpec& spec, int device);

    const ci::CmiKnnSpec& spec() const { return spec_; }
    /// Results in query order (what ci::CmiKnn::test returns with `early_stop`).
    std::vector<ci::CmiKnnResult> run(const CmiTable& t, const std::vector<CmiKnnQuery>& queries,
                                      const std::optional<ci::CmiEarlyStop>& early_stop);

private:
    cudaStream_t stream() const { return ctx_.stream(); }
    void run_batch(const CmiTable& t, const std::vector<CmiKnnQuery>& all, std::size_t begin, std::size_t end,
                   const std::optional<ci::CmiEarlyStop>& early_stop, std::vector<ci::CmiKnnResult>& results);
    std::vector<u64> compute_units(const CmiTable& t, const std::vector<UnitDev>& units, int first_surrogate,
                                   const std::vector<int>& surrogate_of, int m);
    void run_slots(const CmiTable& t, int first_unit, long long slots, const std::vector<int>& surrogate_of,
                   long long g0, int m);
    void sort_pairs(const u64* keys_in, u64* keys_out, const int* vals_in, int* vals_out, std::size_t cells,
                    long long slots);
    void statistic(const CmiTable& t, int u0, int count, long long slot_base);

    ci::CmiKnnSpec spec_;
    int device_;
    DeviceContext& ctx_;
    bool ranks_ = true;
    int nz_max_ = 0;                        ///< of the batch being run
    bool nz_uniform_ = true;                ///< every group of the batch has nz_max_ columns
    bool any_z_ = false;                    ///< some group of the batch has a conditioning column
    std::size_t window_limit_ = 48 * 1024;  ///< shared bytes window_kernel may take here
    int sms_ = 1;                           ///< multiprocessors of the device
    DeviceBuffer<int> pcol_i_;
    DeviceBuffer<double> pcol_d_, uni_, values_;
    DeviceBuffer<QueryDev> queries_;
    DeviceBuffer<UnitDev> units_;
    DeviceBuffer<int> g_off_, g_nz_, zvars_, nbr_, surr_, iota_, order_, source_, shuffled_, offsets_;
    DeviceBuffer<unsigned> used_;
    DeviceBuffer<u64> keys_, keys_out_, sums_;
    DeviceBuffer<unsigned char> temp_;
};

}  // namespace cudag::cuda
