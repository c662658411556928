// SPDX-License-Identifier: Apache-2.0
// CMIknn under `--missing testwise` on the GPU: ci::BatchTest whose every answer is the CPU's
// TestwiseTest (skeleton/ci_tests.cpp) bit for bit.
//
// The CPU test of x ⟂ y | S takes the rows where none of x, y, S is missing (increasing),
// makes the data set of the columns x, y, S (S sorted) on those rows and runs CmiKnnTest on
// it with the test id of the whole data's indices (ci::cmi_test_id(x, y, cmi_set_key(S))).
// Everything CMIknn derives from its data is therefore the sub-table's: with T = the rows
// kept, k = cmi_k(knn, T), the fixed-point ψ table and its bits for T, the shuffle
// neighbourhood among those rows; per column at position v (0 = x, 1 = y, 2.. = S sorted)
// the population std of its raw values on those rows, whether they are all equal, and the
// working column: tie-break noise 1e-6·std·U with U = cmi_noise_uniform(seed, v, t), keyed
// by the position v and the row's rank t among the kept rows (not the variable's index nor
// the file's row), then the transform (ranks of (value, t); standardised; raw). The
// surrogates' draws and neighbour salts are keyed by t as well; their raw values are the
// column's on the kept rows.
//
// Here the columns (NaN where missing) and one bitmap per column (bit r of word r / 64: row
// r present) are uploaded once. Per batch, one thread per query counts its rows (the AND of
// its variables' bitmaps); queries with the same count T share a table (CmiTable,
// cmi_knn_batch_core.cuh) of T rows: each query's row list (indices, in increasing order)
// is written to device scratch, one thread per (query, position) takes the mean and std of
// the column on those rows as ci's mean_std does (sums in row order, each operation rounded
// once: __dadd_rn, __dmul_rn, __ddiv_rn, __dsqrt_rn), one thread per cell gathers the raw
// value through the row list and adds the noise, and the existing kernels finish the
// working columns (a stable segmented sort and launch_ranks for ranks, launch_standardize
// otherwise: the same ones that transform each surrogate's permuted column). The batch
// core then runs the table's queries with the complete-data engine's kernels. Queries the
// CPU test refuses (no row left, a spec its rows cannot hold: validate's messages) or that
// the kernels do not take (more than kMaxShuffleGpu shuffle neighbours, 2^24 rows, a
// discrete column, whose codes the sub-table renumbers) are answered by the CPU test
// itself, so its one-line errors are the same. (A variable named twice in a query is two
// columns of the sub-table, with their own positions: a table holds them the same way.) The host arithmetic here (ψ,
// the table's statistic) is compiled as the library's C++ is (no contraction).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/cmi_knn.hpp"
#include "cmi_knn_batch_core.cuh"
#include "cmi_knn_prep_kernels.cuh"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "engines.hpp"
#include "skeleton/ci_tests.hpp"

namespace cudag::cuda {
namespace {

/// Cells (columns × rows) of one table at most; a query's columns are never split.
constexpr std::int64_t kChunkCells = std::int64_t{1} << 26;
constexpr int kBlock = 256;

int grid_for(std::int64_t threads) { return static_cast<int>((threads + kBlock - 1) / kBlock); }

/// Word w of the rows complete in the k variables `vars`: the AND of their bitmaps.
__device__ u64 complete_word(const u64* __restrict__ bits, std::int64_t words, const std::int32_t* vars, int k,
                             std::int64_t w) {
    u64 m = ~0ull;
    for (int t = 0; t < k; ++t) m &= bits[static_cast<std::int64_t>(vars[t]) * words + w];
    return m;
}

/// One thread per query: the number of rows complete in its qoff[q + 1] − qoff[q]
/// variables vars[qoff[q] ..].
__global__ void count_rows_kernel(const u64* __restrict__ bits, std::int64_t words,
                                  const std::int32_t* __restrict__ vars, const std::int64_t* __restrict__ qoff,
                                  std::int64_t nq, std::int64_t* __restrict__ count) {
    const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const std::int32_t* qv = vars + qoff[q];
    const int k = static_cast<int>(qoff[q + 1] - qoff[q]);
    std::int64_t c = 0;
    for (std::int64_t w = 0; w < words; ++w) c += __popcll(complete_word(bits, words, qv, k, w));
    count[q] = c;
}

/// One thread per query of a table (every one with n complete rows): its rows, increasing,
/// into rows[q·n ..] (word by word, each word's bits from the lowest: the CPU's order).
__global__ void row_list_kernel(const u64* __restrict__ bits, std::int64_t words, const std::int32_t* __restrict__ vars,
                                const std::int64_t* __restrict__ qoff, std::int64_t nq, int n, int* __restrict__ rows) {
    const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    const std::int32_t* qv = vars + qoff[q];
    const int k = static_cast<int>(qoff[q + 1] - qoff[q]);
    int* out = rows + q * n;
    int t = 0;
    for (std::int64_t w = 0; w < words && t < n; ++w)
        for (u64 mask = complete_word(bits, words, qv, k, w); mask != 0; mask &= mask - 1)
            out[t++] = static_cast<int>(w * 64 + (__ffsll(static_cast<long long>(mask)) - 1));
}

/// One thread per column of a table (column c: variable vars[c] of query item_q[c], whose
/// rows are rows[item_q[c]·n ..]): the population std of its raw values on those rows as
/// ci's mean_std computes it (two passes in row order, each operation rounded once), its
/// noise scale 1e-6·std (0 without tie-break noise) and whether its values are all equal.
__global__ void column_stats_kernel(const double* __restrict__ values, std::int64_t m,
                                    const std::int32_t* __restrict__ vars, const std::int32_t* __restrict__ item_q,
                                    std::int64_t items, const int* __restrict__ rows, int n, bool noise,
                                    double* __restrict__ sd, double* __restrict__ scale,
                                    std::uint8_t* __restrict__ constant) {
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= items) return;
    const double* x = values + static_cast<std::int64_t>(vars[c]) * m;
    const int* r = rows + static_cast<std::int64_t>(item_q[c]) * n;
    const double first = x[r[0]];
    bool same = true;
    double s = 0.0;
    for (int t = 0; t < n; ++t) {
        const double v = x[r[t]];
        same = same && v == first;
        s = __dadd_rn(s, v);
    }
    const double mean = __ddiv_rn(s, static_cast<double>(n));
    double q = 0.0;
    for (int t = 0; t < n; ++t) {
        const double d = __dsub_rn(x[r[t]], mean);
        q = __dadd_rn(q, __dmul_rn(d, d));
    }
    const double root = __dsqrt_rn(__ddiv_rn(q, static_cast<double>(n)));
    sd[c] = root;
    scale[c] = noise ? __dmul_rn(1e-6, root) : 0.0;
    constant[c] = same ? 1 : 0;
}

/// One thread per cell (column c, row t of the table): the raw value through the row list,
/// into raw[c·n + t]; the value plus tie-break noise (ci::cmi_transform: value + scale·U,
/// U = cmi_noise_uniform(seed, position, t), two roundings; the value itself without
/// noise); with `ranks` its order key and t (for the segmented sort), else the value.
__global__ void gather_kernel(const double* __restrict__ values, std::int64_t m, const std::int32_t* __restrict__ vars,
                              const std::int32_t* __restrict__ item_q, const std::int32_t* __restrict__ pos,
                              std::int64_t items, const int* __restrict__ rows, int n, bool noise, u64 seed,
                              const double* __restrict__ scale, bool ranks, double* __restrict__ raw,
                              u64* __restrict__ keys, int* __restrict__ iota, double* __restrict__ noisy) {
    const std::int64_t cell = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (cell >= items * n) return;
    const std::int64_t c = cell / n;
    const int t = static_cast<int>(cell - c * n);
    const double x =
        values[static_cast<std::int64_t>(vars[c]) * m + rows[static_cast<std::int64_t>(item_q[c]) * n + t]];
    raw[cell] = x;
    const double v =
        noise ? __dadd_rn(x, __dmul_rn(scale[c], ci::cmi_noise_uniform(seed, static_cast<std::uint64_t>(pos[c]),
                                                                       static_cast<std::uint64_t>(t))))
              : x;
    if (ranks) {
        keys[cell] = cmi_order_key(v);
        iota[cell] = t;
    } else {
        noisy[cell] = v;
    }
}

class CudaTestwiseCmiKnnBatch final : public ci::BatchTest {
public:
    CudaTestwiseCmiKnnBatch(const Dataset& data, const skeleton::TestSpec& spec, int host_threads, int device)
        : binding_(device),
          data_(data),
          spec_(spec),
          threads_(resolve_threads(host_threads)),
          device_(device),
          m_(data.n_samples),
          words_((data.n_samples + 63) / 64),
          cpu_([&data, spec] { return skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1); }, threads_,
               data.names),
          ctx_(DeviceContext::for_device(device)),
          core_(spec.cmi, device) {
        CUDAG_EXPECTS(spec.kind == ci::TestKind::CmiKnn, "the GPU's test-wise cmiknn batch runs cmiknn only");
        // Without missing cells the CPU's test is the plain CmiKnnTest (noise keyed by the
        // variables' indices, not their positions in the test): make_engine never asks.
        CUDAG_EXPECTS(data.missing > 0, "the GPU's test-wise cmiknn batch is for data with missing cells");
        CUDAG_EXPECTS(m_ < INT_MAX, "cuda cmiknn: at most 2^31 - 1 rows (use --backend cpu)");
        ranks_ = spec.cmi.transform == ci::CmiTransform::Ranks || spec.cmi.transform == ci::CmiTransform::Uniform;
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

    ~CudaTestwiseCmiKnnBatch() override {
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
                      "cmiknn testwise batch: malformed queries");
        const auto in_range = [&](std::int32_t v) { return v >= 0 && v < data_.n_vars; };
        for (std::size_t k = 0; k < nq; ++k) {
            const std::span<const std::int32_t> s = q.set(k);
            CUDAG_EXPECTS(in_range(q.x[k]) && in_range(q.y[k]) && std::all_of(s.begin(), s.end(), in_range),
                          "cmiknn testwise batch: a query names a variable out of range");
        }
        // Each query's variables as TestwiseTest orders them: x, y, then S increasing.
        std::vector<std::int32_t> vars;
        std::vector<std::int64_t> qoff{0};
        for (std::size_t k = 0; k < nq; ++k) {
            const std::span<const std::int32_t> s = q.set(k);
            const std::size_t at = vars.size();
            vars.push_back(q.x[k]);
            vars.push_back(q.y[k]);
            vars.insert(vars.end(), s.begin(), s.end());
            std::sort(vars.begin() + static_cast<std::ptrdiff_t>(at) + 2, vars.end());
            qoff.push_back(static_cast<std::int64_t>(vars.size()));
        }
        const std::vector<std::int64_t> rows = count_rows(vars, qoff);
        // The queries the CPU test answers (its errors, and what the kernels do not take);
        // the others by their row count.
        std::vector<std::uint8_t> on_cpu(nq, 0);
        std::map<std::int64_t, std::vector<std::size_t>> by_rows;
        const ci::CmiKnnSpec& cs = spec_.cmi;
        const int spare = spec_.traits().spare_samples;
        for (std::size_t k = 0; k < nq; ++k) {
            const std::int64_t n = rows[k];
            const int l = static_cast<int>(qoff[k + 1] - qoff[k]) - 2;
            bool cpu = n == 0 || (spare >= 0 && n <= l + spare) || n >= (std::int64_t{1} << 24) ||
                       (l > 0 && cs.shuffle_neighbors > kMaxShuffleGpu);
            for (std::int64_t a = qoff[k]; a < qoff[k + 1] && !cpu; ++a)
                cpu = data_.is_discrete(vars[static_cast<std::size_t>(a)]);
            if (!cpu) {
                try {
                    ci::validate(cs, n, l);  // as the CPU test's CmiKnn on the rows
                } catch (const InputError&) {
                    cpu = true;
                }
            }
            if (cpu)
                on_cpu[k] = 1;
            else
                by_rows[n].push_back(k);
        }
        for (const auto& [n, which] : by_rows) {
            for (std::size_t begin = 0; begin < which.size();) {
                std::size_t end = begin;
                std::int64_t cells = 0;
                while (end < which.size()) {
                    const std::size_t k = which[end];
                    const std::int64_t c = (qoff[k + 1] - qoff[k]) * n;
                    if (end > begin && cells + c > kChunkCells) break;
                    cells += c;
                    ++end;
                }
                run_table(static_cast<int>(n), std::span<const std::size_t>(which).subspan(begin, end - begin), q, vars,
                          qoff, statistic, p);
                begin = end;
            }
        }
        // The CPU test's answers, in query order: the first refused query throws its error.
        for (std::size_t k = 0; k < nq; ++k) {
            if (!on_cpu[k]) continue;
            const ci::CiOutcome o = cpu_.worker(0).test(q.x[k], q.y[k], q.set(k));
            statistic[k] = o.statistic;
            p[k] = o.p;
        }
        // As ci::CpuBatchTest: a statistic or p-value that is not a result is an error.
        for (std::size_t k = 0; k < nq; ++k)
            if (!ci::is_result(statistic[k], p[k]))
                ci::throw_not_finite(spec_.name(), q.x[k], q.y[k], statistic[k], p[k], data_.names);
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    /// The rows complete in each query's variables (vars[qoff[q] .. qoff[q + 1])).
    std::vector<std::int64_t> count_rows(const std::vector<std::int32_t>& vars, const std::vector<std::int64_t>& qoff) {
        const auto nq = static_cast<std::int64_t>(qoff.size()) - 1;
        std::vector<std::int64_t> count(static_cast<std::size_t>(nq));
        DeviceGuard guard(device_);
        d_vars_.resize_discard(vars.size());
        d_vars_.upload(vars.data(), vars.size(), stream());
        d_qoff_.resize_discard(qoff.size());
        d_qoff_.upload(qoff.data(), qoff.size(), stream());
        d_count_.resize_discard(static_cast<std::size_t>(nq));
        count_rows_kernel<<<grid_for(nq), kBlock, 0, stream()>>>(bits_.data(), words_, d_vars_.data(), d_qoff_.data(),
                                                                 nq, d_count_.data());
        CUDAG_CHECK_LAUNCH();
        d_count_.download(count.data(), count.size(), stream());
        ctx_.synchronize();
        return count;
    }

    /// The queries `which` (indices into q), each with n complete rows: their columns on
    /// those rows as one table (query g's positions are columns tq_off[g] ..), then the
    /// batch core's tests on it.
    void run_table(int n, std::span<const std::size_t> which, const ci::Queries& q,
                   const std::vector<std::int32_t>& vars, const std::vector<std::int64_t>& qoff,
                   std::span<double> statistic, std::span<double> p) {
        const auto nt = static_cast<std::int64_t>(which.size());
        std::vector<std::int32_t> tvars, item_q, pos;
        std::vector<std::int64_t> tq_off{0};
        std::vector<CmiKnnQuery> queries(which.size());
        for (std::int64_t g = 0; g < nt; ++g) {
            const std::size_t k = which[static_cast<std::size_t>(g)];
            const auto base = static_cast<std::int32_t>(tvars.size());
            const int kv = static_cast<int>(qoff[k + 1] - qoff[k]);
            for (int a = 0; a < kv; ++a) {
                tvars.push_back(vars[static_cast<std::size_t>(qoff[k] + a)]);
                item_q.push_back(static_cast<std::int32_t>(g));
                pos.push_back(a);
            }
            tq_off.push_back(static_cast<std::int64_t>(tvars.size()));
            // The test on the table's columns (x, y, S sorted: base, base + 1, base + 2 ..),
            // its random numbers keyed by the variables' indices in the whole data.
            CmiKnnQuery& c = queries[static_cast<std::size_t>(g)];
            c.x = base;
            c.y = base + 1;
            for (int a = 2; a < kv; ++a) c.z.push_back(base + a);
            const std::int32_t* s = vars.data() + qoff[k] + 2;
            c.test_id = ci::cmi_test_id(q.x[k], q.y[k], ci::cmi_set_key(s, kv - 2));
        }
        const auto items = static_cast<std::int64_t>(tvars.size());
        const std::int64_t cells = items * n;
        CUDAG_EXPECTS(cells < INT_MAX, "cmiknn testwise batch: a table too large for one sort");
        const ci::CmiKnnSpec& cs = spec_.cmi;
        const bool noise = cs.tie_break == ci::CmiTieBreak::Noise;
        std::vector<double> sd(static_cast<std::size_t>(items));
        std::vector<std::uint8_t> constant(static_cast<std::size_t>(items));
        {
            DeviceGuard guard(device_);
            d_tvars_.resize_discard(tvars.size());
            d_tvars_.upload(tvars.data(), tvars.size(), stream());
            d_item_q_.resize_discard(item_q.size());
            d_item_q_.upload(item_q.data(), item_q.size(), stream());
            d_pos_.resize_discard(pos.size());
            d_pos_.upload(pos.data(), pos.size(), stream());
            d_tq_off_.resize_discard(tq_off.size());
            d_tq_off_.upload(tq_off.data(), tq_off.size(), stream());
            d_rows_.resize_discard(static_cast<std::size_t>(nt) * n);
            row_list_kernel<<<grid_for(nt), kBlock, 0, stream()>>>(bits_.data(), words_, d_tvars_.data(),
                                                                   d_tq_off_.data(), nt, n, d_rows_.data());
            CUDAG_CHECK_LAUNCH();
            d_sd_.resize_discard(static_cast<std::size_t>(items));
            d_scale_.resize_discard(static_cast<std::size_t>(items));
            d_constant_.resize_discard(static_cast<std::size_t>(items));
            column_stats_kernel<<<grid_for(items), kBlock, 0, stream()>>>(
                values_.data(), m_, d_tvars_.data(), d_item_q_.data(), items, d_rows_.data(), n, noise, d_sd_.data(),
                d_scale_.data(), d_constant_.data());
            CUDAG_CHECK_LAUNCH();
            const auto ucells = static_cast<std::size_t>(cells);
            raw_.resize_discard(ucells);
            if (ranks_) {
                keys_.resize_discard(ucells);
                keys_out_.resize_discard(ucells);
                iota_.resize_discard(ucells);
                winv_.resize_discard(ucells);
                wi_.resize_discard(ucells);
            } else {
                noisy_.resize_discard(ucells);
                wd_.resize_discard(ucells);
            }
            gather_kernel<<<grid_for(cells), kBlock, 0, stream()>>>(
                values_.data(), m_, d_tvars_.data(), d_item_q_.data(), d_pos_.data(), items, d_rows_.data(), n, noise,
                cs.seed, d_scale_.data(), ranks_, raw_.data(), ranks_ ? keys_.data() : nullptr,
                ranks_ ? iota_.data() : nullptr, ranks_ ? nullptr : noisy_.data());
            CUDAG_CHECK_LAUNCH();
            if (ranks_) {
                // Each column sorted by (value, row): the sample at each rank, then the ranks.
                std::vector<int> offsets(static_cast<std::size_t>(items) + 1);
                for (std::int64_t c = 0; c <= items; ++c)
                    offsets[static_cast<std::size_t>(c)] = static_cast<int>(c * n);
                offsets_.resize_discard(offsets.size());
                offsets_.upload(offsets.data(), offsets.size(), stream());
                std::size_t bytes = 0;
                stable_sort_segments(nullptr, bytes, keys_.data(), keys_out_.data(), iota_.data(), winv_.data(),
                                     static_cast<int>(cells), static_cast<int>(items), offsets_.data(), stream());
                temp_.resize_discard(std::max<std::size_t>(bytes, 1));
                stable_sort_segments(temp_.data(), bytes, keys_.data(), keys_out_.data(), iota_.data(), winv_.data(),
                                     static_cast<int>(cells), static_cast<int>(items), offsets_.data(), stream());
                launch_ranks(winv_.data(), n, items, wi_.data(), stream());
            } else {
                launch_standardize(noisy_.data(), n, items, cs.transform == ci::CmiTransform::Standardize, wd_.data(),
                                   stream());
            }
            d_sd_.download(sd.data(), sd.size(), stream());
            d_constant_.download(constant.data(), constant.size(), stream());
            auto [it, fresh] = psi_.try_emplace(n);
            if (fresh) {
                const std::vector<std::int64_t> pf = ci::cmi_psi_fixed(n, ci::cmi_fixed_bits(n));
                it->second.resize_discard(pf.size());
                it->second.upload(reinterpret_cast<const long long*>(pf.data()), pf.size(), stream());
            }
            ctx_.synchronize();
            CmiTable t;
            t.n = n;
            t.k = ci::cmi_k(cs.knn, n);
            t.fixed_bits = ci::cmi_fixed_bits(n);
            t.psi_k = ci::cmi_psi(t.k);
            t.wi = ranks_ ? wi_.data() : nullptr;
            t.winv = ranks_ ? winv_.data() : nullptr;
            t.wd = ranks_ ? nullptr : wd_.data();
            t.raw = raw_.data();
            t.psi = it->second.data();
            t.constant = constant;
            t.raw_std = sd;
            const std::vector<ci::CmiKnnResult> r = core_.run(t, queries, cs.early_stop);
            for (std::int64_t g = 0; g < nt; ++g) {
                const std::size_t k = which[static_cast<std::size_t>(g)];
                statistic[k] = r[static_cast<std::size_t>(g)].statistic;
                p[k] = r[static_cast<std::size_t>(g)].p;
            }
        }
    }

    DeviceBinding binding_;  // first: destroyed last, the device current while buffers go
    const Dataset& data_;
    skeleton::TestSpec spec_;
    int threads_;
    int device_;
    std::int64_t m_, words_;
    bool ranks_ = true;
    ci::CpuBatchTest cpu_;  // the CPU's TestwiseTest, for the queries the device leaves
    DeviceContext& ctx_;
    CmiKnnBatchCore core_;
    // The columns, variable-major, NaN where missing; per column, bit r of word r / 64: row r
    // present; ψ in fixed point, by row count.
    DeviceBuffer<double> values_;
    DeviceBuffer<u64> bits_;
    std::map<std::int64_t, DeviceBuffer<long long>> psi_;
    // One batch's and one table's scratch, reused.
    DeviceBuffer<std::int32_t> d_vars_, d_tvars_, d_item_q_, d_pos_;
    DeviceBuffer<std::int64_t> d_qoff_, d_tq_off_, d_count_;
    DeviceBuffer<int> d_rows_, iota_, winv_, wi_, offsets_;
    DeviceBuffer<double> d_sd_, d_scale_, raw_, noisy_, wd_;
    DeviceBuffer<std::uint8_t> d_constant_;
    DeviceBuffer<u64> keys_, keys_out_;
    DeviceBuffer<unsigned char> temp_;
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_cmiknn_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                          int host_threads, int device) {
    return std::make_unique<CudaTestwiseCmiKnnBatch>(data, spec, host_threads, device);
}

}  // namespace cudag::cuda
