// SPDX-License-Identifier: Apache-2.0
// CUDA Gaussian (Fisher-z) skeleton engine: implements skeleton::SkeletonEngine by delegating to
// its parts, which share one FisherContext (device, the device context's stream, CUB scratch):
//  - FisherLevelPlanner (fisher_level_planner.hpp, host only): which kernels run a level,
//    launch shapes and items, how C is held and cut, memory budgets;
//  - CorrelationStore (fisher_correlation.cuh): C whole, or the standardised data and C's
//    rows in blocks;
//  - FisherResults (fisher_results.cuh): what stays on the device between levels — pMax,
//    snapshots, removal maps, separating-set records — as the skeleton::DeviceResults extension;
//  - FisherLevels (fisher_levels.cuh): level 0 and the levels l >= 1 on the device (see
//    there for how its results compare with the CPU engine's).
// Every device buffer is owned by a part; the engine's DeviceBinding keeps the device
// current while they are destroyed.
#include <algorithm>
#include <climits>
#include <exception>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ci/fisher_z.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "correlation.cuh"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "engines.hpp"
#include "fisher_batch.cuh"
#include "fisher_context.cuh"
#include "fisher_correlation.cuh"
#include "fisher_level_planner.hpp"
#include "fisher_levels.cuh"
#include "fisher_results.cuh"

namespace cudag::cuda {
namespace {

void check_device(int device) {
    const int count = device_count();
    if (count == 0) throw CudaError("cuda: no CUDA device is visible (" + device_report() + "); use --backend cpu");
    if (device < 0 || device >= count)
        throw InputError("cuda: device " + std::to_string(device) + " requested but " + std::to_string(count) +
                         " CUDA device(s) are visible");
}

/// SMs × max resident threads per SM of `device`.
std::int64_t resident_threads(int device) {
    int sms = 0, per_sm = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    return static_cast<std::int64_t>(sms) * per_sm;
}

class CudaFisherEngine final : public skeleton::SkeletonEngine {
public:
    CudaFisherEngine(int device, std::int64_t n, std::int64_t m, const skeleton::TestPolicy& policy,
                     const FisherTunables& t)
        : binding_(device),
          causal_learn_pvalue_(policy.causal_learn_pvalue),
          ctx_(device, n, m, t.host_threads, t.own_stream),
          plan_(t, resident_threads(device)),
          corr_(ctx_, plan_),
          results_(ctx_),
          levels_(ctx_, plan_, policy, corr_, results_) {}

    ~CudaFisherEngine() override {
        // The parts free their buffers and events after this body, with the engine's device
        // current (binding_ is the first member: it is destroyed last); the stream is the
        // device context's or (own_stream) lent by it until ctx_ goes, after the parts.
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    CorrelationStore& correlation() { return corr_; }

    std::string name() const override { return "cuda"; }
    std::string setup_note() const override { return corr_.note(); }
    std::int64_t n_vars() const override { return ctx_.n; }
    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                skeleton::Level0Output& out) override {
        levels_.level0(row_begin, row_end, dense, g, out);
    }
    /// Every rank runs all of level 0 while its n²/2 pairs take a GPU well under a second
    /// (n <= 65,536): cheaper than sharing the kept pairs. Beyond, level 0 grows as n² and
    /// the ranks split its rows (issue 35: at n = 10^6 it is 5·10^11 tests).
    bool level0_on_every_rank() const override { return ctx_.n <= 65536; }
    void run_level(int level, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        levels_.run_level(level, snap, block, out);
    }
    bool splits_rows() const override { return true; }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;
    bool partial_correlations(const skeleton::FlatQueries& q, std::span<double> r) override {
        if (!corr_.whole()) return false;
        binding_.bind();
        batch_partial_correlations(corr_.source().rows, ctx_.n, q, r, ctx_.stream());
        return true;
    }
    /// Fisher-z batches: the statistic is r (the CPU Fisher-z test's), the p-value the host's
    /// (fisher_batch.cuh). Only where C is held whole.
    bool test_batch(const skeleton::FlatQueries& q, std::span<double> statistic, std::span<double> p) override {
        if (!corr_.whole()) return false;
        if (q.size() == 0) return true;
        binding_.bind();
        batch_fisher_z(corr_.source().rows, ctx_.n, ctx_.m, causal_learn_pvalue_, names_, q, statistic, p,
                       ctx_.stream(), ctx_.host_threads);
        return true;
    }
    skeleton::DeviceResults* device_results() override { return &results_; }
    int run_levels(int first, int last, const Adjacency& snap, skeleton::SepSetLog& log,
                   std::vector<ResidentLevel>& levels, Adjacency& next) override {
        return levels_.run_resident(first, last, snap, log, levels, next);
    }
    /// The variables' names for error messages (empty: by number).
    void set_names(std::vector<std::string> names) { names_ = std::move(names); }

private:
    DeviceBinding binding_;  // first: see the destructor
    bool causal_learn_pvalue_ = false;
    std::vector<std::string> names_;
    FisherContext ctx_;
    FisherLevelPlanner plan_;
    CorrelationStore corr_;
    FisherResults results_;
    FisherLevels levels_;
};

double CudaFisherEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    const std::int64_t m = ctx_.m;
    const int l = static_cast<int>(s.size());
    const int k = l + 2;
    std::vector<std::int32_t> nodes;
    nodes.reserve(k);
    nodes.push_back(i);
    nodes.push_back(j);
    nodes.insert(nodes.end(), s.begin(), s.end());
    for (std::int32_t v : nodes) CUDAG_EXPECTS(v >= 0 && v < ctx_.n, "cuda p_value: variable out of range");
    const std::vector<double> sub = corr_.gather_block(nodes);
    // The CPU engine's computation on the gathered block (same values, same order).
    if (l == 0) return ci::fisher_z_pvalue(sub[1], m, 0);
    std::vector<int> si(l);
    std::iota(si.begin(), si.end(), 2);
    std::vector<double> lmat(static_cast<std::size_t>(l) * l), scratch(2 * static_cast<std::size_t>(l) * l), yi(l),
        yj(l);
    ci::ConditioningBlock block;
    block.lmat = lmat.data();
    block.factorise(sub.data(), k, si.data(), l, scratch.data());
    block.project(sub.data(), k, si.data(), 0, yi.data());
    block.project(sub.data(), k, si.data(), 1, yj.data());
    const double r = ci::partial_correlation(block, sub[1], yi.data(), yj.data());
    return ci::fisher_z_pvalue(r, m, l);
}

std::unique_ptr<CudaFisherEngine> make_engine(std::int64_t n, std::int64_t m, const skeleton::TestPolicy& policy,
                                              const FisherTunables& t, int device) {
    FisherLevelPlanner::check(policy, t);
    check_device(device);
    return std::make_unique<CudaFisherEngine>(device, n, m, policy, t);
}

}  // namespace

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

void warm_up(int device) noexcept {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count ||
        cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
        cudaGetLastError();  // the engine reports the error when it is built
}

std::unique_ptr<skeleton::SkeletonEngine> make_fisher_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                             const FisherTunables& t, int device,
                                                             mpi::Communicator* comm) {
    if (comm == nullptr || comm->size() == 1) {
        StepTrace tr;  // CUDAG_TRACE
        tr.start();
        auto eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
        eng->set_names(data.names);
        tr.mark("made");
        CorrelationStore& c = eng->correlation();
        c.choose_mode(c.fits(data));
        tr.mark("C placed");
        c.compute(data);
        tr.mark("C computed");
        tr.print("cuda fisher engine");
        return eng;
    }
    // Collective: a failure on any rank ends every rank at the same point (mpi::agree),
    // and every rank holds C the same way (whole only where it fits on every rank).
    std::unique_ptr<CudaFisherEngine> eng;
    std::exception_ptr err;
    int fits = 0;
    try {
        eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
        eng->set_names(data.names);
        fits = eng->correlation().fits(data) ? 1 : 0;
    } catch (...) {
        err = std::current_exception();
    }
    mpi::agree(*comm, err);
    fits = comm->allreduce(fits, mpi::ReduceOp::Min);
    const bool split = fits == 1 && comm->device_buffers();
    try {
        eng->correlation().choose_mode(fits == 1);
        if (split)
            eng->correlation().compute_block(data, comm->rank(), comm->size());
        else
            eng->correlation().compute(data);  // host communicators: each rank all of C
    } catch (...) {
        err = std::current_exception();
    }
    mpi::agree(*comm, err);
    if (split) {
        try {
            eng->correlation().share_blocks(*comm);
        } catch (...) {
            err = std::current_exception();
        }
        mpi::agree(*comm, err);
    }
    return eng;
}

std::unique_ptr<skeleton::SkeletonEngine> make_fisher_engine_from_corr(const std::vector<double>& corr, std::int64_t n,
                                                                       std::int64_t n_samples,
                                                                       const skeleton::TestPolicy& policy,
                                                                       const FisherTunables& t, int device) {
    auto eng = make_engine(n, n_samples, policy, t, device);
    eng->correlation().load(corr);
    return eng;
}

std::vector<double> gpu_correlation_rows(const Dataset& data, std::int64_t row_begin, std::int64_t row_end, int device,
                                         int tile) {
    const std::int64_t n = data.n_vars, m = data.n_samples;
    CUDAG_EXPECTS(0 <= row_begin && row_begin <= row_end && row_end <= n, "cuda: rows out of range");
    check_device(device);
    DeviceGuard guard(device);
    DeviceContext& ctx = DeviceContext::for_device(device);
    const cudaStream_t stream = ctx.stream();
    DeviceBuffer<double> z(static_cast<std::size_t>(n * m));
    standardise_columns(data.values.data(), n, m, z.data(), stream);
    const std::size_t count = static_cast<std::size_t>((row_end - row_begin) * n);
    DeviceBuffer<double> c(std::max<std::size_t>(count, 1));
    launch_correlation_rows(z.data(), n, m, row_begin, row_end, false, c.data(), row_begin, stream, tile);
    std::vector<double> out(count);
    c.download(out.data(), count, stream);
    ctx.synchronize();
    return out;
}

std::vector<double> gpu_correlation(const Dataset& data, int device, int tile) {
    skeleton::TestPolicy policy;
    FisherTunables t;
    t.corr_tile = tile;
    auto eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
    eng->correlation().choose_mode(true);
    eng->correlation().compute(data);
    return eng->correlation().download();
}

}  // namespace cudag::cuda
