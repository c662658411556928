// SPDX-License-Identifier: Apache-2.0
// Fisher-z under `--missing testwise` on the GPU: ci::BatchTest whose every answer is the CPU's
// TestwiseTest (skeleton/ci_tests.cpp) bit for bit.
//
// The CPU test of x ⟂ y | S takes the rows where none of x, y, S is missing (increasing), makes
// the data set of the columns x, y, S (S sorted) on those rows, and runs FisherZTest on it:
// ci::correlation_matrix (each column standardised: mean = Σ x / n, d = x − mean, ss = Σ d·d,
// z = d · (1 / √ss), sums in row order, no contraction; entry (a, b) = Σ z_a·z_b in row order,
// one fused multiply-add a row, clamped to [−1, 1]; unit diagonal), then
// CpuFisherEngine::partial_correlation(0, 1, {2, ..}) and ci::fisher_z_pvalue with n rows.
//
// Here the columns (NaN where missing) and one bitmap per column (bit r of word r / 64: row r
// present) are uploaded once. A query's rows are the AND of its variables' bitmaps, walked word
// by word and bit by bit from the lowest: the CPU's row order, without a copy of the data per
// test. Two kernels follow the CPU's arithmetic step for step with explicitly rounded
// operations (__dadd_rn, __dmul_rn, __ddiv_rn, __dsqrt_rn: never contracted; __fma_rn where
// the CPU calls std::fma): one thread per (query, variable) for the row count, the mean, 1/√ss
// and whether the column is constant on those rows; one thread per (query, pair a < b) for
// the correlation entry. The (|S| + 2)² matrix then goes through the CPU's own code on the
// host: a CpuFisherEngine on it, partial_correlation, fisher_z_pvalue (this file's host code is
// compiled without contraction, as the library's). Queries the CPU test refuses (too few
// rows, a constant column on the rows) and sets above kMaxGiven are answered by the CPU test
// itself, so its one-line errors are the same.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/fisher_z.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "engines.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/cpu/fisher_engine.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

/// Conditioning sets above this size are tested by the CPU test (a query's pairs grow as
/// |S|²; such sets are rare in a search).
constexpr int kMaxGiven = 30;
/// Queries and correlation entries of one launch (device arrays of some tens of MB).
constexpr std::int64_t kChunkQueries = std::int64_t{1} << 20;
constexpr std::int64_t kChunkPairs = std::int64_t{1} << 23;
constexpr int kBlock = 256;

/// Word w of the rows complete in the k variables `vars`: the AND of their bitmaps.
__device__ u64 complete_word(const u64* __restrict__ bits, std::int64_t words, const std::int32_t* vars, int k,
                             std::int64_t w) {
    u64 m = ~0ull;
    for (int t = 0; t < k; ++t) m &= bits[static_cast<std::int64_t>(vars[t]) * words + w];
    return m;
}

/// One thread per (query, variable position): thread t is position t − qoff[q] of query
/// item_q[t], whose k = qoff[q + 1] − qoff[q] variables are vars[qoff[q] ..]. Writes the
/// mean, 1 / √ss and the constant flag of the variable's column on the query's complete
/// rows, as ci::correlation_matrix's standardised() and check_no_constant_columns compute
/// them (sums in row order, each operation rounded once), and the row count (position 0).
__global__ void testwise_stats_kernel(const double* __restrict__ values, const u64* __restrict__ bits, std::int64_t m,
                                      std::int64_t words, const std::int32_t* __restrict__ vars,
                                      const std::int64_t* __restrict__ qoff, const std::int32_t* __restrict__ item_q,
                                      std::int64_t items, double* __restrict__ mean, double* __restrict__ inv,
                                      std::uint8_t* __restrict__ constant, std::int64_t* __restrict__ rows) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= items) return;
    const std::int32_t q = item_q[t];
    const std::int64_t b = qoff[q];
    const int k = static_cast<int>(qoff[q + 1] - b);
    const std::int32_t* qv = vars + b;
    const double* x = values + static_cast<std::int64_t>(qv[t - b]) * m;
    double sum = 0.0, first = 0.0;
    std::int64_t n = 0;
    bool same = true;
    for (std::int64_t w = 0; w < words; ++w) {
        for (u64 mask = complete_word(bits, words, qv, k, w); mask != 0; mask &= mask - 1) {
            const double v = x[w * 64 + (__ffsll(static_cast<long long>(mask)) - 1)];
            if (n == 0) first = v;
            same = same && v == first;
            sum = __dadd_rn(sum, v);
            ++n;
        }
    }
    const double mu = __ddiv_rn(sum, static_cast<double>(n));
    double ss = 0.0;
    for (std::int64_t w = 0; w < words; ++w) {
        for (u64 mask = complete_word(bits, words, qv, k, w); mask != 0; mask &= mask - 1) {
            const double d = __dsub_rn(x[w * 64 + (__ffsll(static_cast<long long>(mask)) - 1)], mu);
            ss = __dadd_rn(ss, __dmul_rn(d, d));
        }
    }
    mean[t] = mu;
    inv[t] = __ddiv_rn(1.0, __dsqrt_rn(ss));
    constant[t] = same ? 1 : 0;
    if (t == b) rows[q] = n;
}

/// One thread per (query, pair a < b of its positions): thread p is pair p − poff[q] of query
/// pair_q[p], the pairs of k positions numbered row by row ((0,1), (0,2), .., (1,2), ..).
/// Writes Σ z_a·z_b over the query's complete rows in row order, z = (x − mean) · inv and one
/// fused multiply-add a row from 0, clamped to [−1, 1]: ci::correlation_matrix's tile_sums.
__global__ void testwise_pairs_kernel(const double* __restrict__ values, const u64* __restrict__ bits, std::int64_t m,
                                      std::int64_t words, const std::int32_t* __restrict__ vars,
                                      const std::int64_t* __restrict__ qoff, const std::int64_t* __restrict__ poff,
                                      const std::int32_t* __restrict__ pair_q, std::int64_t pairs,
                                      const double* __restrict__ mean, const double* __restrict__ inv,
                                      double* __restrict__ corr) {
    const std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    const std::int32_t q = pair_q[p];
    const std::int64_t b = qoff[q];
    const int k = static_cast<int>(qoff[q + 1] - b);
    std::int64_t rest = p - poff[q];
    int a = 0;
    while (rest >= k - 1 - a) {
        rest -= k - 1 - a;
        ++a;
    }
    const int c = a + 1 + static_cast<int>(rest);
    const std::int32_t* qv = vars + b;
    const double* xa = values + static_cast<std::int64_t>(qv[a]) * m;
    const double* xc = values + static_cast<std::int64_t>(qv[c]) * m;
    const double ma = mean[b + a], ia = inv[b + a], mc = mean[b + c], ic = inv[b + c];
    double acc = 0.0;
    for (std::int64_t w = 0; w < words; ++w) {
        for (u64 mask = complete_word(bits, words, qv, k, w); mask != 0; mask &= mask - 1) {
            const std::int64_t r = w * 64 + (__ffsll(static_cast<long long>(mask)) - 1);
            const double za = __dmul_rn(__dsub_rn(xa[r], ma), ia);
            const double zc = __dmul_rn(__dsub_rn(xc[r], mc), ic);
            acc = __fma_rn(za, zc, acc);
        }
    }
    if (acc > 1.0) acc = 1.0;
    if (acc < -1.0) acc = -1.0;
    corr[p] = acc;
}

unsigned grid_for(std::int64_t threads) { return static_cast<unsigned>((threads + kBlock - 1) / kBlock); }

class CudaTestwiseFisherBatch final : public ci::BatchTest {
public:
    CudaTestwiseFisherBatch(const Dataset& data, const skeleton::TestSpec& spec, skeleton::Compat compat,
                            int host_threads, int device)
        : binding_(device),
          data_(data),
          spec_(spec),
          compat_(compat),
          threads_(resolve_threads(host_threads)),
          device_(device),
          m_(data.n_samples),
          words_((data.n_samples + 63) / 64),
          cpu_([&data, spec, compat] { return skeleton::make_ci_test(data, spec, compat, 1); }, threads_, data.names),
          ctx_(DeviceContext::for_device(device)) {
        CUDAG_EXPECTS(spec.kind == ci::TestKind::FisherZ, "the GPU's test-wise batch runs fisher-z only");
        const std::int64_t n = data.n_vars;
        std::vector<u64> bits(static_cast<std::size_t>(n * words_), 0);
        for (std::int64_t v = 0; v < n; ++v) {
            const double* col = data.column(v);
            u64* bv = bits.data() + v * words_;
            for (std::int64_t r = 0; r < m_; ++r)
                if (!std::isnan(col[r])) bv[r / 64] |= u64{1} << (r % 64);
        }
        DeviceGuard guard(device_);
        values_.resize_discard(data.values.size());
        values_.upload(data.values.data(), data.values.size(), stream());
        bits_.resize_discard(bits.size());
        bits_.upload(bits.data(), bits.size(), stream());
        ctx_.synchronize();
    }

    ~CudaTestwiseFisherBatch() override {
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
                      "fisher-z testwise batch: malformed queries");
        const auto in_range = [&](std::int32_t v) { return v >= 0 && v < data_.n_vars; };
        std::vector<std::size_t> gpu, cpu;
        for (std::size_t k = 0; k < nq; ++k) {
            const std::span<const std::int32_t> s = q.set(k);
            CUDAG_EXPECTS(in_range(q.x[k]) && in_range(q.y[k]) && std::all_of(s.begin(), s.end(), in_range),
                          "fisher-z testwise batch: a query names a variable out of range");
            (s.size() <= static_cast<std::size_t>(kMaxGiven) ? gpu : cpu).push_back(k);
        }
        // Queries the CPU test must answer itself (its errors), in query order.
        std::vector<std::uint8_t> refused(nq, 0);
        for (std::size_t begin = 0; begin < gpu.size();) {
            std::size_t end = begin;
            std::int64_t pairs = 0;
            while (end < gpu.size() && static_cast<std::int64_t>(end - begin) < kChunkQueries) {
                const std::int64_t k = static_cast<std::int64_t>(q.set(gpu[end]).size()) + 2;
                if (end > begin && pairs + k * (k - 1) / 2 > kChunkPairs) break;
                pairs += k * (k - 1) / 2;
                ++end;
            }
            run_chunk(q, std::span<const std::size_t>(gpu).subspan(begin, end - begin), statistic, p, refused);
            begin = end;
        }
        // The CPU test's own InputErrors (too few rows, a constant column on the rows): the
        // first refused query in query order throws it.
        for (std::size_t k = 0; k < nq; ++k) {
            if (!refused[k]) continue;
            const ci::CiOutcome o = cpu_.worker(0).test(q.x[k], q.y[k], q.set(k));
            statistic[k] = o.statistic;
            p[k] = o.p;
        }
        if (!cpu.empty()) {
            ci::QueryList list;
            for (const std::size_t k : cpu) list.add(q.x[k], q.y[k], q.set(k));
            std::vector<double> s(cpu.size()), pv(cpu.size());
            cpu_.run(list.view(), s, pv);
            for (std::size_t t = 0; t < cpu.size(); ++t) {
                statistic[cpu[t]] = s[t];
                p[cpu[t]] = pv[t];
            }
        }
        // As ci::CpuBatchTest: a statistic or p-value that is not a result is an error.
        for (std::size_t k = 0; k < nq; ++k)
            if (!ci::is_result(statistic[k], p[k]))
                ci::throw_not_finite(spec_.name(), q.x[k], q.y[k], statistic[k], p[k], data_.names);
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    /// The queries `which` (indices into q, sets of at most kMaxGiven) on the device, r and p
    /// on the host; those the CPU test refuses are marked in `refused`.
    void run_chunk(const ci::Queries& q, std::span<const std::size_t> which, std::span<double> statistic,
                   std::span<double> p, std::vector<std::uint8_t>& refused) {
        const auto nq = static_cast<std::int64_t>(which.size());
        // Each query's variables as TestwiseTest orders them: x, y, then S increasing.
        vars_.clear();
        qoff_.assign(1, 0);
        poff_.assign(1, 0);
        item_q_.clear();
        pair_q_.clear();
        for (std::int64_t g = 0; g < nq; ++g) {
            const std::size_t k = which[static_cast<std::size_t>(g)];
            const std::span<const std::int32_t> s = q.set(k);
            const std::size_t at = vars_.size();
            vars_.push_back(q.x[k]);
            vars_.push_back(q.y[k]);
            vars_.insert(vars_.end(), s.begin(), s.end());
            std::sort(vars_.begin() + static_cast<std::ptrdiff_t>(at) + 2, vars_.end());
            const auto kv = static_cast<std::int64_t>(s.size()) + 2;
            qoff_.push_back(static_cast<std::int64_t>(vars_.size()));
            poff_.push_back(poff_.back() + kv * (kv - 1) / 2);
            item_q_.insert(item_q_.end(), static_cast<std::size_t>(kv), static_cast<std::int32_t>(g));
            pair_q_.insert(pair_q_.end(), static_cast<std::size_t>(kv * (kv - 1) / 2), static_cast<std::int32_t>(g));
        }
        const auto items = static_cast<std::int64_t>(vars_.size());
        const std::int64_t pairs = poff_.back();
        std::vector<double> corr(static_cast<std::size_t>(pairs));
        std::vector<std::uint8_t> constant(static_cast<std::size_t>(items));
        std::vector<std::int64_t> rows(static_cast<std::size_t>(nq));
        {
            DeviceGuard guard(device_);
            d_vars_.resize_discard(vars_.size());
            d_item_q_.resize_discard(item_q_.size());
            d_pair_q_.resize_discard(pair_q_.size());
            d_qoff_.resize_discard(qoff_.size());
            d_poff_.resize_discard(poff_.size());
            d_mean_.resize_discard(vars_.size());
            d_inv_.resize_discard(vars_.size());
            d_constant_.resize_discard(vars_.size());
            d_rows_.resize_discard(static_cast<std::size_t>(nq));
            d_corr_.resize_discard(static_cast<std::size_t>(pairs));
            d_vars_.upload(vars_.data(), vars_.size(), stream());
            d_item_q_.upload(item_q_.data(), item_q_.size(), stream());
            d_pair_q_.upload(pair_q_.data(), pair_q_.size(), stream());
            d_qoff_.upload(qoff_.data(), qoff_.size(), stream());
            d_poff_.upload(poff_.data(), poff_.size(), stream());
            testwise_stats_kernel<<<grid_for(items), kBlock, 0, stream()>>>(
                values_.data(), bits_.data(), m_, words_, d_vars_.data(), d_qoff_.data(), d_item_q_.data(), items,
                d_mean_.data(), d_inv_.data(), d_constant_.data(), d_rows_.data());
            CUDAG_CHECK_LAUNCH();
            testwise_pairs_kernel<<<grid_for(pairs), kBlock, 0, stream()>>>(
                values_.data(), bits_.data(), m_, words_, d_vars_.data(), d_qoff_.data(), d_poff_.data(),
                d_pair_q_.data(), pairs, d_mean_.data(), d_inv_.data(), d_corr_.data());
            CUDAG_CHECK_LAUNCH();
            d_corr_.download(corr.data(), corr.size(), stream());
            d_constant_.download(constant.data(), constant.size(), stream());
            d_rows_.download(rows.data(), rows.size(), stream());
            ctx_.synchronize();
        }
        // r and p on the host, by the CPU's code: FisherZTest on the sub-data set is a
        // CpuFisherEngine on its correlation matrix, partial_correlation(0, 1, {2, ..}), then
        // fisher_z_pvalue with the rows used.
        const int spare = spec_.traits().spare_samples;
        const bool causal_learn = compat_ == skeleton::Compat::CausalLearn;
        parallel_for(0, nq, threads_, 256, [&](std::int64_t g, int) {
            const std::size_t k = which[static_cast<std::size_t>(g)];
            const std::int64_t b = qoff_[static_cast<std::size_t>(g)];
            const auto kv = static_cast<int>(qoff_[static_cast<std::size_t>(g) + 1] - b);
            const int l = kv - 2;
            const std::int64_t n = rows[static_cast<std::size_t>(g)];
            bool refuse = n == 0 || (spare >= 0 && n <= l + spare);
            for (int a = 0; a < kv && !refuse; ++a) refuse = constant[static_cast<std::size_t>(b + a)] != 0;
            if (refuse) {
                refused[k] = 1;
                return;
            }
            std::vector<double> c(static_cast<std::size_t>(kv) * kv);
            const double* e = corr.data() + poff_[static_cast<std::size_t>(g)];
            for (int a = 0; a < kv; ++a) {
                c[static_cast<std::size_t>(a) * kv + a] = 1.0;
                for (int d = a + 1; d < kv; ++d, ++e)
                    c[static_cast<std::size_t>(a) * kv + d] = c[static_cast<std::size_t>(d) * kv + a] = *e;
            }
            std::vector<std::int32_t> z(static_cast<std::size_t>(l));
            for (int t = 0; t < l; ++t) z[static_cast<std::size_t>(t)] = t + 2;
            const skeleton::CpuFisherEngine engine(std::move(c), kv, n, skeleton::TestPolicy{}, 1);
            const double r = engine.partial_correlation(0, 1, z);
            statistic[k] = r;
            p[k] = ci::fisher_z_pvalue(r, n, l, causal_learn);
        });
    }

    DeviceBinding binding_;  // first: destroyed last, the device current while buffers go
    const Dataset& data_;
    skeleton::TestSpec spec_;
    skeleton::Compat compat_;
    int threads_;
    int device_;
    std::int64_t m_, words_;
    ci::CpuBatchTest cpu_;  // the CPU's TestwiseTest, for the queries the device leaves
    DeviceContext& ctx_;
    DeviceBuffer<double> values_;  // the columns, variable-major, NaN where missing
    DeviceBuffer<u64> bits_;       // per column, bit r of word r / 64: row r present
    // One chunk's layout (host and device), reused.
    std::vector<std::int32_t> vars_, item_q_, pair_q_;
    std::vector<std::int64_t> qoff_, poff_;
    DeviceBuffer<std::int32_t> d_vars_, d_item_q_, d_pair_q_;
    DeviceBuffer<std::int64_t> d_qoff_, d_poff_, d_rows_;
    DeviceBuffer<double> d_mean_, d_inv_, d_corr_;
    DeviceBuffer<std::uint8_t> d_constant_;
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_fisher_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                          skeleton::Compat compat, int host_threads, int device) {
    return std::make_unique<CudaTestwiseFisherBatch>(data, spec, compat, host_threads, device);
}

}  // namespace cudag::cuda
