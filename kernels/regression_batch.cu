// SPDX-License-Identifier: Apache-2.0
// Batches of regression tests (tigramite's RegressionCI, ci/regression_ci.hpp) on one GPU:
// every query's statistic and p-value bit for bit the CPU's test's (skeleton::make_ci_test:
// ci::RegressionCiTest, or under `--missing testwise` the test-wise test, which runs it on a
// table of the query's complete rows, S sorted, discrete variables keeping the levels those
// rows hold).
//
// The columns are uploaded once as the Dataset holds them (doubles, codes for discrete ones,
// NaN where missing), and, where cells are missing, one bitmap per column (bit r of word r / 64:
// row r present). Each chunk of queries takes these steps, one warp per query on the device
// (regression_warp.cuh: the rows spread over the lanes, every sum in the CPU's order):
//  1. regression_stats_warp_kernel: the query's rows (all, or the AND of its variables' bitmaps,
//     walked from the lowest bit: the CPU's increasing order, written as a row list), each
//     discrete variable's level counts on them, and, where x and y are both continuous, their
//     mean and central moments (regression_core::moments: numpy's pairwise sums).
//  2. on the host, from those: the levels that occur (each code's position among them: the
//     one-hot columns, as the sub-table's renumbered codes give them), the dependent variable
//     (normaltest's K² from the moments, or the entropy from the counts, with the CPU's own
//     functions: glibc's pow and log), the regressors [other of x, y; S or tigramite's column
//     of ones], dof, and each query's workspace;
//  3. regression_linear_warp_kernel, then regression_logistic_warp_kernel: the two fits of each
//     query (on S, then on S and the other variable) as regression_core computes them for
//     ci::regression_ci: least squares (centred, scaled columns, pivoted Householder QR: the
//     residual sums of squares) or the logistic fits (scikit-learn's newton-cholesky step for
//     step, then the deviances), every array in the query's slice of a device workspace.
//  4. on the host, as ci::regression_ci: n log(RSS_Z / RSS_ZX) (glibc's log) or the deviances'
//     difference, chi2_sf.
// regression_core uses +, −, ×, ÷, sqrt (correctly rounded on both sides; this file is
// compiled with --fmad=false and its host code with -ffp-contract=off, as the library) and
// xm::exp / xm::log (core/exact_math.hpp: the same bits on host and device), so every value
// is the CPU's.
//
// The CPU's test answers, inside the same batch: queries naming a variable out of range or
// twice, more than kMaxVars variables, a column holding a value the test refuses (not finite,
// not a level code), no complete row, more than kMaxColumns regressor columns or kMaxParams
// logistic parameters, a workspace above kMaxQueryBytes, and queries whose result is not one
// (a constant dependent variable): its results, and its one-line InputErrors.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/discrete_test.hpp"
#include "ci/regression_ci.hpp"
#include "ci/regression_core.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_handles.hpp"
#include "device_memory.hpp"
#include "regression_batch.hpp"
#include "regression_warp.cuh"
#include "skeleton/ci_tests.hpp"

namespace cudag::cuda {
namespace {

namespace core = ci::regression_core;
using u64 = unsigned long long;

constexpr int kMaxVars = 18;                                      ///< x, y and up to 16 in S
constexpr int kMaxColumns = 64;                                   ///< regressor columns of a fit
constexpr int kMaxParams = 256;                                   ///< logistic parameters m (p + 1)
static_assert(regression_warp::kMaxColumns >= kMaxColumns, "the warp's pivot order holds every column");
constexpr double kMaxQueryBytes = double(std::int64_t{1} << 28);  ///< one query's workspace
/// A chunk's row lists and workspaces: half the device's free memory after the columns, within
/// [256 MiB, 8 GiB] (the more queries a launch, the fuller the device).
constexpr double kMinChunkBytes = double(std::int64_t{1} << 28), kMaxChunkBytes = double(std::int64_t{8} << 30);
constexpr std::size_t kChunkQueries = std::size_t{1} << 18;

/// One query for the statistics kernel: its variables at vars[2 vars_at ..] as pairs (data
/// variable, levels; 0: continuous), x, y, then S.
struct StatQuery {
    std::int64_t vars_at = 0;
    std::int64_t rows_at = -1;   ///< its row list (m ints) in the chunk's rows; −1: every row
    std::int64_t counts_at = 0;  ///< its discrete variables' level counts, in their order
    std::int32_t n_vars = 0;
    std::int32_t moments = 0;  ///< x and y continuous: their moments
};

struct StatArgs {
    const double* values = nullptr;  ///< the columns, m each
    const u64* bits = nullptr;       ///< per column, words each (null: nothing missing)
    std::int64_t m = 0, words = 0;
    int n_queries = 0;
    const StatQuery* queries = nullptr;
    const std::int32_t* vars = nullptr;
    std::int32_t* rows = nullptr;
    std::int32_t* counts = nullptr;
    std::int64_t* n_rows = nullptr;  ///< per query
    double* moments = nullptr;       ///< per query: x's mean, m2, m3, m4, then y's
};

/// Query q's moments of x (i = 0) or y (1) into a.moments.
__device__ inline void store_moments(const StatArgs& a, int q, int i, const core::Moments& mm) {
    double* o = a.moments + 8 * static_cast<std::int64_t>(q) + 4 * i;
    o[0] = mm.mean;
    o[1] = mm.m2;
    o[2] = mm.m3;
    o[3] = mm.m4;
}

/// One query for the fit kernel: the design variables at designs[design_at ..] ([other of x,
/// y], then S's or the ones column), the dependent one at designs[dep_at].
struct FitQuery {
    std::int64_t rows_at = -1;  ///< as StatQuery's
    std::int64_t n = 0;
    std::int64_t work_at = 0;  ///< doubles
    std::int32_t design_at = 0;
    std::int32_t n_design = 0;
    std::int32_t p_rest = 0;   ///< columns of [other, S]
    std::int32_t p_given = 0;  ///< columns of S
    std::int32_t dep_at = 0;
    std::int32_t k = 0;  ///< the dependent variable's levels (logistic)
    std::int32_t logistic = 0;
};

struct FitArgs {
    int n_queries = 0;
    const FitQuery* queries = nullptr;
    const core::DesignVar* designs = nullptr;
    const std::int32_t* rows = nullptr;
    double* work = nullptr;
    double* out = nullptr;  ///< per query: RSS_Z, RSS_ZX, or the deviances on Z, on Z and X
    const std::int32_t* order = nullptr;  ///< the warp kernels': the queries they run
};

// ---- one warp per query (regression_warp.cuh) --------------------------------

namespace warp = regression_warp;
constexpr int kWarpBlock = 128;  ///< four queries a block

unsigned warp_grid_for(std::size_t queries) {
    return static_cast<unsigned>((queries * warp::kWarp + kWarpBlock - 1) / kWarpBlock);
}

__device__ inline int warp_query() { return static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / warp::kWarp); }

/// Warp q: query q's rows, level counts and moments, as regression_stats_kernel.
__global__ void __launch_bounds__(kWarpBlock) regression_stats_warp_kernel(StatArgs a) {
    const int q = warp_query();
    if (q >= a.n_queries) return;  // the whole warp
    const int lane = warp::lane_id();
    const StatQuery Q = a.queries[q];
    const std::int32_t* qv = a.vars + 2 * Q.vars_at;
    std::int32_t* rows = nullptr;
    std::int64_t n = a.m;
    if (Q.rows_at >= 0) {
        // The complete rows in increasing order: 32 words at a time, each lane's word's rows
        // after those of the lanes before it.
        rows = a.rows + Q.rows_at;
        n = 0;
        for (std::int64_t w0 = 0; w0 < a.words; w0 += warp::kWarp) {
            const std::int64_t w = w0 + lane;
            u64 mask = 0;
            if (w < a.words) {
                mask = ~0ull;
                for (int i = 0; i < Q.n_vars; ++i) mask &= a.bits[static_cast<std::int64_t>(qv[2 * i]) * a.words + w];
            }
            const int c = __popcll(mask);
            int before = c;  // inclusive prefix sum over the lanes
            for (int d = 1; d < warp::kWarp; d *= 2) {
                const int o = __shfl_up_sync(warp::kFull, before, d);
                if (lane >= d) before += o;
            }
            std::int64_t at = n + before - c;
            for (; mask != 0; mask &= mask - 1)
                rows[at++] = static_cast<std::int32_t>(w * 64 + (__ffsll(static_cast<long long>(mask)) - 1));
            n += __shfl_sync(warp::kFull, before, warp::kWarp - 1);
        }
        __syncwarp();
    }
    if (lane == 0) a.n_rows[q] = n;
    std::int32_t* counts = a.counts + Q.counts_at;
    for (int i = 0; i < Q.n_vars; ++i) {
        const std::int32_t levels = qv[2 * i + 1];
        if (levels == 0) continue;
        const double* col = a.values + static_cast<std::int64_t>(qv[2 * i]) * a.m;
        for (std::int32_t l = lane; l < levels; l += warp::kWarp) counts[l] = 0;
        __syncwarp();
        for (std::int64_t t0 = 0; t0 < n; t0 += warp::kWarp) {
            const std::int64_t t = t0 + lane;
            const std::int32_t code = t < n ? static_cast<std::int32_t>(col[rows ? rows[t] : t]) : -1;
            const unsigned peers = __match_any_sync(warp::kFull, code);
            if (code >= 0 && lane == __ffs(static_cast<int>(peers)) - 1)
                atomicAdd(counts + code, __popc(static_cast<int>(peers)));
        }
        counts += levels;
    }
    if (Q.moments && n >= 8)
        for (int i = 0; i < 2; ++i) {
            const core::Moments mm = warp::moments(a.values + static_cast<std::int64_t>(qv[2 * i]) * a.m, rows, n);
            if (lane == 0) store_moments(a, q, i, mm);
        }
}

/// Query q's designs (as regression_fit_kernel builds them).
struct FitDesigns {
    core::Design rest, given;
    core::DesignVar dep;
};

__device__ inline FitDesigns fit_designs(const FitArgs& a, const FitQuery& Q) {
    const std::int32_t* rows = Q.rows_at >= 0 ? a.rows + Q.rows_at : nullptr;
    const core::DesignVar* dv = a.designs + Q.design_at;
    return FitDesigns{core::Design{rows, Q.n, dv, Q.n_design, Q.p_rest},
                      core::Design{rows, Q.n, dv + 1, Q.n_design - 1, Q.p_given}, a.designs[Q.dep_at]};
}

/// Warp i: the two least-squares fits of query a.order[i].
__global__ void __launch_bounds__(kWarpBlock) regression_linear_warp_kernel(FitArgs a) {
    const int i = warp_query();
    if (i >= a.n_queries) return;
    const int q = a.order[i];
    const FitQuery Q = a.queries[q];
    const FitDesigns f = fit_designs(a, Q);
    double* work = a.work + Q.work_at;
    const double rss_z = warp::residual_sum_of_squares(f.given, f.dep.col, work);
    __syncwarp();  // the second fit reuses the work
    const double rss_zx = warp::residual_sum_of_squares(f.rest, f.dep.col, work);
    if (warp::lane_id() == 0) {
        a.out[2 * static_cast<std::int64_t>(q)] = rss_z;
        a.out[2 * static_cast<std::int64_t>(q) + 1] = rss_zx;
    }
}

/// Warp i: the two logistic fits of query a.order[i].
__global__ void __launch_bounds__(kWarpBlock) regression_logistic_warp_kernel(FitArgs a) {
    const int i = warp_query();
    if (i >= a.n_queries) return;
    const int q = a.order[i];
    const FitQuery Q = a.queries[q];
    const FitDesigns f = fit_designs(a, Q);
    double* work = a.work + Q.work_at;
    const double dev_z = warp::logistic_deviance(f.given, f.dep, Q.k, work);
    __syncwarp();
    const double dev_zx = warp::logistic_deviance(f.rest, f.dep, Q.k, work);
    if (warp::lane_id() == 0) {
        a.out[2 * static_cast<std::int64_t>(q)] = dev_z;
        a.out[2 * static_cast<std::int64_t>(q) + 1] = dev_zx;
    }
}

class CudaRegressionBatch final : public ci::BatchTest {
public:
    CudaRegressionBatch(const Dataset& data, const skeleton::TestSpec& spec, skeleton::Compat compat, int host_threads,
                        int device)
        : binding_(device),
          data_(data),
          spec_(spec),
          threads_(resolve_threads(host_threads)),
          device_(device),
          m_(data.n_samples),
          words_((data.n_samples + 63) / 64),
          testwise_(data.missing > 0),
          cpu_([&data, spec, compat] { return skeleton::make_ci_test(data, spec, compat, 1); }, threads_, data.names),
          ctx_(DeviceContext::for_device(device)) {
        CUDAG_EXPECTS(spec.kind == ci::TestKind::Regression, "the GPU's regression batch runs --test regression only");
        const std::int64_t n = data.n_vars;
        levels_.assign(static_cast<std::size_t>(n), 0);
        usable_.assign(static_cast<std::size_t>(n), 0);
        std::vector<u64> bits(testwise_ ? static_cast<std::size_t>(n * words_) : 0, 0);
        // Columns the device takes: every present value finite (continuous) or a level code
        // (discrete), as ci::regression_ci checks them; the others' queries go to the CPU.
        for (std::int64_t v = 0; v < n; ++v) {
            const double* c = data.column(v);
            const bool discrete = data.is_discrete(v);
            const auto lv = discrete ? static_cast<std::int64_t>(data.levels[static_cast<std::size_t>(v)].size()) : 0;
            bool ok = !discrete || (lv >= 1 && lv <= (std::int64_t{1} << 16));
            for (std::int64_t r = 0; r < m_ && ok; ++r) {
                if (testwise_ && std::isnan(c[r])) continue;
                ok = std::isfinite(c[r]) &&
                     (!discrete || (c[r] >= 0.0 && c[r] < static_cast<double>(lv) && c[r] == std::floor(c[r])));
                if (testwise_) bits[static_cast<std::size_t>(v * words_ + r / 64)] |= u64{1} << (r % 64);
            }
            usable_[static_cast<std::size_t>(v)] = ok ? 1 : 0;
            levels_[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(lv);
        }
        DeviceGuard guard(device_);
        values_.resize_discard(std::max<std::size_t>(1, data.values.size()));
        values_.upload(data.values.data(), data.values.size(), stream());
        if (testwise_) {
            bits_.resize_discard(std::max<std::size_t>(1, bits.size()));
            bits_.upload(bits.data(), bits.size(), stream());
        }
        ctx_.synchronize();
        std::size_t free_b = 0, total_b = 0;
        CUDAG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        chunk_bytes_ = std::clamp(0.5 * static_cast<double>(free_b), kMinChunkBytes, kMaxChunkBytes);
    }

    ~CudaRegressionBatch() override {
        // The buffers are freed after this body with the device current (binding_ first).
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    std::string name() const override { return spec_.name(); }
    std::string where() const override { return "GPU " + std::to_string(device_); }

    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        const std::size_t nq = q.size();
        if (nq == 0) return;
        CUDAG_EXPECTS(q.y.size() == nq && q.offsets.size() == nq + 1 && statistic.size() >= nq && p.size() >= nq,
                      "regression batch: malformed queries");
        std::vector<Query> device;
        std::vector<char> on_cpu(nq, 0);
        for (std::size_t k = 0; k < nq; ++k) {
            Query c;
            if (describe(q.x[k], q.y[k], q.set(k), c)) {
                c.index = k;
                device.push_back(std::move(c));
            } else {
                on_cpu[k] = 1;
            }
        }
        for (std::size_t at = 0; at < device.size();) at = run_chunk(device, at, statistic, p, on_cpu);
        // The CPU's test: its results, or its error.
        ci::QueryList list;
        std::vector<std::size_t> which;
        for (std::size_t k = 0; k < nq; ++k)
            if (on_cpu[k]) {
                list.add(q.x[k], q.y[k], q.set(k));
                which.push_back(k);
            }
        if (which.empty()) return;
        std::vector<double> s(which.size()), pv(which.size());
        cpu_.run(list.view(), s, pv);
        for (std::size_t t = 0; t < which.size(); ++t) {
            statistic[which[t]] = s[t];
            p[which[t]] = pv[t];
        }
    }

private:
    /// A query the device takes: its variables (x, y, then S: in the given order, or sorted
    /// where cells are missing, as the test-wise test orders them), and the bound of its
    /// workspace.
    struct Query {
        std::size_t index = 0;
        std::vector<std::int32_t> vars;
        double bytes = 0.0;  ///< row list and workspace, at most
    };

    cudaStream_t stream() const { return ctx_.stream(); }

    std::int64_t width_bound(std::int32_t v) const {
        return std::max<std::int64_t>(1, levels_[static_cast<std::size_t>(v)]);
    }

    /// Whether the device takes query x ⟂ y | s (its variables and workspace bound into c).
    bool describe(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s, Query& c) const {
        if (m_ <= 0 || m_ > INT_MAX) return false;
        if (s.size() + 2 > static_cast<std::size_t>(kMaxVars)) return false;
        c.vars = {x, y};
        c.vars.insert(c.vars.end(), s.begin(), s.end());
        if (testwise_) std::sort(c.vars.begin() + 2, c.vars.end());
        for (const std::int32_t v : c.vars)
            if (v < 0 || v >= data_.n_vars || !usable_[static_cast<std::size_t>(v)]) return false;
        std::vector<std::int32_t> sorted = c.vars;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
        // The workspace at most: every declared level occurring, on every row.
        std::int64_t p = std::max(width_bound(x), width_bound(y));
        for (const std::int32_t v : s) p += width_bound(v);
        if (s.empty()) p += 1;
        // (regression_core::logistic_doubles and linear_doubles, in doubles: no overflow.)
        const bool logistic = levels_[static_cast<std::size_t>(x)] > 0 && levels_[static_cast<std::size_t>(y)] > 0;
        const auto k = static_cast<int>(std::max(width_bound(x), width_bound(y)));
        const double mo = logistic ? static_cast<double>(core::logistic_outputs(k)) : 1.0;
        const double mp = mo * static_cast<double>(p + 1);
        const double dm = static_cast<double>(m_);
        // (the warp's logistic workspace, warp::logistic_doubles, holds more than core's)
        const double doubles = logistic ? 5.0 * dm * mo + dm * static_cast<double>(p + 1) + 8.0 * mp + 2.0 * mp * mp +
                                              static_cast<double>(warp::kWarp) * mp
                                        : (static_cast<double>(p) + 1.0) * dm;
        const double work = 8.0 * doubles + 4.0 * static_cast<double>(p);
        if (work > kMaxQueryBytes) return false;
        c.bytes = work + (testwise_ ? 4.0 * dm : 0.0) + 8.0 * static_cast<double>(p + 64);
        return true;
    }

    /// Runs device[at, end) (as many as chunk_bytes_ holds, at least one); returns end.
    std::size_t run_chunk(const std::vector<Query>& device, std::size_t at, std::span<double> statistic,
                          std::span<double> p, std::vector<char>& on_cpu) {
        std::size_t end = at;
        double bytes = 0.0;
        while (end < device.size() && end - at < kChunkQueries &&
               (end == at || bytes + device[end].bytes <= chunk_bytes_))
            bytes += device[end++].bytes;
        const std::size_t n = end - at;

        // Step 1: rows, level counts, moments.
        std::vector<StatQuery> stat(n);
        std::vector<std::int32_t> vars;
        std::int64_t counts_size = 0, rows_size = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const Query& c = device[at + j];
            StatQuery& s = stat[j];
            s.vars_at = static_cast<std::int64_t>(vars.size() / 2);
            s.n_vars = static_cast<std::int32_t>(c.vars.size());
            s.counts_at = counts_size;
            for (const std::int32_t v : c.vars) {
                vars.push_back(v);
                vars.push_back(levels_[static_cast<std::size_t>(v)]);
                counts_size += levels_[static_cast<std::size_t>(v)];
            }
            s.moments =
                levels_[static_cast<std::size_t>(c.vars[0])] == 0 && levels_[static_cast<std::size_t>(c.vars[1])] == 0;
            if (testwise_) {
                s.rows_at = rows_size;
                rows_size += m_;
            }
        }
        std::vector<std::int64_t> n_rows(n);
        std::vector<std::int32_t> counts(static_cast<std::size_t>(counts_size));
        std::vector<double> moments(8 * n);
        DeviceGuard guard(device_);
        {
            d_stat_.resize_discard(n);
            d_stat_.upload(stat.data(), n, stream());
            d_vars_.resize_discard(std::max<std::size_t>(1, vars.size()));
            d_vars_.upload(vars.data(), vars.size(), stream());
            d_rows_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, rows_size)));
            d_counts_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, counts_size)));
            d_n_rows_.resize_discard(n);
            d_moments_.resize_discard(8 * n);
            d_moments_.fill_bytes(0, stream());
            StatArgs a;
            a.values = values_.data();
            a.bits = testwise_ ? bits_.data() : nullptr;
            a.m = m_;
            a.words = words_;
            a.n_queries = static_cast<int>(n);
            a.queries = d_stat_.data();
            a.vars = d_vars_.data();
            a.rows = d_rows_.data();
            a.counts = d_counts_.data();
            a.n_rows = d_n_rows_.data();
            a.moments = d_moments_.data();
            regression_stats_warp_kernel<<<warp_grid_for(n), kWarpBlock, 0, stream()>>>(a);
            CUDAG_CHECK_LAUNCH();
            d_n_rows_.download(n_rows.data(), n, stream());
            d_counts_.download(counts.data(), counts.size(), stream());
            d_moments_.download(moments.data(), moments.size(), stream());
            CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        }

        // Step 2: each query's fits laid out (the CPU's choices, from the device's counts).
        std::vector<FitQuery> fits;
        std::vector<std::size_t> fit_of;  // fit → position in the chunk
        std::vector<core::DesignVar> designs;
        std::vector<std::int32_t> maps;
        std::vector<std::int64_t> map_at;  // per design variable: its map's offset in maps (−1: none)
        std::vector<std::int64_t> dof;
        std::int64_t work_size = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const Query& c = device[at + j];
            const StatQuery& s = stat[j];
            const std::int64_t rows = n_rows[j];
            if (rows < 1) {
                on_cpu[c.index] = 1;  // the test-wise test's error: no complete row
                continue;
            }
            // Each variable as a design variable (device pointers; a discrete one's map, code →
            // position among the levels that occur on the rows, goes to `maps`).
            const std::size_t n_vars = c.vars.size();
            const std::size_t maps_before = maps.size();
            std::vector<core::DesignVar> pv(n_vars);
            std::vector<std::int64_t> pm(n_vars, -1);
            std::vector<std::int64_t> counts_x, counts_y;  // of the levels that occur (entropy)
            const std::int32_t* cnt = counts.data() + s.counts_at;
            for (std::size_t i = 0; i < n_vars; ++i) {
                const std::int32_t v = c.vars[i];
                pv[i].col = values_.data() + static_cast<std::int64_t>(v) * m_;
                const std::int32_t lv = levels_[static_cast<std::size_t>(v)];
                if (lv == 0) continue;
                pv[i].kind = core::kDiscrete;
                pm[i] = static_cast<std::int64_t>(maps.size());
                std::int32_t width = 0;
                for (std::int32_t l = 0; l < lv; ++l) {
                    maps.push_back(cnt[l] > 0 ? width : -1);
                    if (cnt[l] == 0) continue;
                    ++width;
                    if (i == 0) counts_x.push_back(cnt[l]);
                    if (i == 1) counts_y.push_back(cnt[l]);
                }
                pv[i].width = width;
                cnt += lv;
            }
            // The dependent variable, as ci::regression_ci chooses it (a NaN K² makes it X).
            const bool dx = pv[0].kind == core::kDiscrete, dy = pv[1].kind == core::kDiscrete;
            bool x_dependent;
            if (!dx && !dy) {
                const double* mo = moments.data() + 8 * j;
                x_dependent = !(ci::normaltest_from_moments(rows, mo[0], mo[1], mo[2], mo[3]) >=
                                ci::normaltest_from_moments(rows, mo[4], mo[5], mo[6], mo[7]));
            } else if (dx && dy) {
                x_dependent = !(ci::level_entropy(counts_x, rows) >= ci::level_entropy(counts_y, rows));
            } else {
                x_dependent = !dx;
            }
            // The design variables: [other of x, y; S's, or tigramite's column of ones], then the
            // dependent one.
            const std::size_t di = x_dependent ? 0 : 1, oi = 1 - di;
            const std::size_t first = designs.size();
            const auto push = [&](const core::DesignVar& d, std::int64_t map) {
                designs.push_back(d);
                map_at.push_back(map);
            };
            push(pv[oi], pm[oi]);
            if (n_vars == 2) {
                core::DesignVar ones;
                ones.kind = core::kOnes;
                push(ones, -1);
            }
            for (std::size_t i = 2; i < n_vars; ++i) push(pv[i], pm[i]);
            const std::size_t n_design = designs.size() - first;
            push(pv[di], pm[di]);
            const core::DesignVar& other = pv[oi];
            const core::DesignVar& dep = pv[di];
            FitQuery f;
            f.rows_at = s.rows_at;
            f.n = rows;
            f.design_at = static_cast<std::int32_t>(first);
            f.n_design = static_cast<std::int32_t>(n_design);
            f.dep_at = static_cast<std::int32_t>(first + n_design);
            f.p_given = 0;
            for (std::size_t i = 1; i < n_design; ++i) f.p_given += designs[first + i].width;
            f.p_rest = f.p_given + other.width;
            f.logistic = dx && dy;
            f.k = dep.width;
            const std::int64_t m = core::logistic_outputs(f.k);
            const std::int64_t doubles =
                f.logistic ? warp::logistic_doubles(rows, f.p_rest, f.k) : core::linear_doubles(rows, f.p_rest);
            if (f.p_rest > kMaxColumns || (f.logistic && m * (f.p_rest + 1) > kMaxParams) ||
                8.0 * static_cast<double>(doubles) > kMaxQueryBytes) {
                on_cpu[c.index] = 1;  // beyond the kernel's limits
                designs.resize(first);
                map_at.resize(first);
                maps.resize(maps_before);
                continue;
            }
            f.work_at = work_size;
            work_size += doubles;
            fits.push_back(f);
            fit_of.push_back(j);
            dof.push_back(other.width);
        }
        if (fits.empty()) return end;
        // The maps' device addresses, now that their buffer's size is known.
        d_maps_.resize_discard(std::max<std::size_t>(1, maps.size()));
        for (std::size_t i = 0; i < designs.size(); ++i)
            designs[i].map = map_at[i] >= 0 ? d_maps_.data() + map_at[i] : nullptr;

        // Step 3: the fits.
        const std::size_t nf = fits.size();
        std::vector<double> out(2 * nf);
        // The warp kernels' queries: the least-squares ones, then the logistic ones.
        std::vector<std::int32_t> order;
        std::size_t n_linear = 0;
        order.reserve(nf);
        for (std::size_t i = 0; i < nf; ++i)
            if (!fits[i].logistic) order.push_back(static_cast<std::int32_t>(i));
        n_linear = order.size();
        for (std::size_t i = 0; i < nf; ++i)
            if (fits[i].logistic) order.push_back(static_cast<std::int32_t>(i));
        {
            d_maps_.upload(maps.data(), maps.size(), stream());
            d_designs_.resize_discard(designs.size());
            d_designs_.upload(designs.data(), designs.size(), stream());
            d_fits_.resize_discard(nf);
            d_fits_.upload(fits.data(), nf, stream());
            d_work_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, work_size)));
            d_out_.resize_discard(2 * nf);
            FitArgs a;
            a.n_queries = static_cast<int>(nf);
            a.queries = d_fits_.data();
            a.designs = d_designs_.data();
            a.rows = d_rows_.data();
            a.work = d_work_.data();
            a.out = d_out_.data();
            d_order_.resize_discard(nf);
            d_order_.upload(order.data(), nf, stream());
            if (n_linear > 0) {
                a.order = d_order_.data();
                a.n_queries = static_cast<int>(n_linear);
                regression_linear_warp_kernel<<<warp_grid_for(n_linear), kWarpBlock, 0, stream()>>>(a);
                CUDAG_CHECK_LAUNCH();
            }
            if (n_linear < nf) {
                a.order = d_order_.data() + n_linear;
                a.n_queries = static_cast<int>(nf - n_linear);
                regression_logistic_warp_kernel<<<warp_grid_for(nf - n_linear), kWarpBlock, 0, stream()>>>(a);
                CUDAG_CHECK_LAUNCH();
            }
            d_out_.download(out.data(), out.size(), stream());
            CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        }

        // Step 4: statistic and p-value as ci::regression_ci forms them.
        parallel_for(0, static_cast<std::int64_t>(nf), threads_, 256, [&](std::int64_t i, int) {
            const auto t = static_cast<std::size_t>(i);
            const FitQuery& f = fits[t];
            const std::size_t k = device[at + fit_of[t]].index;
            const double stat =
                f.logistic ? out[2 * t] - out[2 * t + 1] : ci::linear_statistic(f.n, out[2 * t], out[2 * t + 1]);
            const double pv = ci::chi2_sf(stat, static_cast<double>(dof[t]));
            if (!ci::is_result(stat, pv)) {
                on_cpu[k] = 1;  // the CPU's test throws its error
                return;
            }
            statistic[k] = stat;
            p[k] = pv;
        });
        return end;
    }

    DeviceBinding binding_;  // first: destroyed last, the device current while buffers go
    const Dataset& data_;
    skeleton::TestSpec spec_;
    int threads_;
    int device_;
    std::int64_t m_, words_;
    bool testwise_;
    double chunk_bytes_ = kMinChunkBytes;
    ci::CpuBatchTest cpu_;  // the CPU's test, for the queries the device leaves
    DeviceContext& ctx_;
    std::vector<std::int32_t> levels_;  ///< per variable: declared levels (0: continuous)
    std::vector<char> usable_;          ///< per variable: the device takes its column
    DeviceBuffer<double> values_;       ///< the columns, variable-major, NaN where missing
    DeviceBuffer<u64> bits_;            ///< per column, bit r of word r / 64: row r present
    DeviceBuffer<StatQuery> d_stat_;
    DeviceBuffer<FitQuery> d_fits_;
    DeviceBuffer<core::DesignVar> d_designs_;
    DeviceBuffer<std::int32_t> d_vars_, d_rows_, d_counts_, d_maps_, d_order_;
    DeviceBuffer<std::int64_t> d_n_rows_;
    DeviceBuffer<double> d_moments_, d_work_, d_out_;
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_regression_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                     skeleton::Compat compat, int host_threads, int device) {
    return std::make_unique<CudaRegressionBatch>(data, spec, compat, host_threads, device);
}

}  // namespace cudag::cuda
