// SPDX-License-Identifier: Apache-2.0
// Batches of cg-lrt tests (ci/cg_lrt.hpp) on one GPU: every query's statistic and p-value
// bit for bit ci::cg_lrt's.
//
// The columns are uploaded once (a discrete one as byte codes, a continuous one as doubles)
// with the host's log n for n = 0..m. One thread per query does what ci::cg_lrt does, in its
// order: the rows kept (those whose configuration of all the query's discrete variables
// occurs in more rows than it has continuous variables: a pass counting the configurations in
// a dense table, then a bitmap of the rows kept and of the levels they hold), then for each of
// the four sets (x y S, x S, y S, S) one pass over the rows kept in row order, numbering the
// strata by first occurrence (a dense table from the configuration's mixed-radix key to its
// stratum) and accumulating each stratum's count, first row, sums and cross-products of the
// values less the first row's (cg_lrt_core::add_row), and last, stratum by stratum in that
// order, Σ n log n (the host's logarithms, from the uploaded table) and the Cholesky factor
// (cg_lrt_core::cholesky_roots). The file is compiled without FMA contraction, so that these
// +, −, ×, ÷ and sqrt round as the CPU's. Each stratum's n and Cholesky roots go back to the
// host, which sums n log det (cg_lrt_core::log_det: glibc's log) and forms the statistic and
// p-value with the CPU's functions (cg_lrt_core::statistic, ci::chi2_sf), on its threads.
//
// Under `--missing testwise` (data with missing cells, NaN) every answer is instead the CPU's
// TestwiseTest's (skeleton/ci_tests.cpp): ci::cg_lrt on the sub-table of x, y, S (S sorted; x
// and y as the query gives them, not swapped) on the rows where none of them is missing. The
// batch then also uploads one bitmap per column (bit r of word r / 32: row r present), and a
// query's rows are the AND of its variables' bitmaps, walked in increasing order: the
// sub-table's rows, in its order, without a copy of the data per test. Nothing else the kernel
// computes depends on the sub-table's recoding of the discrete levels: the rows-kept rule
// counts configurations, strata are numbered by first occurrence (the keys only name them), the
// dof counts the levels the kept rows hold, and each stratum's first row is the same row of the
// data. The host's log table covers n = 0..m ⊇ 0..rows. A query left without a complete row
// (the CPU's InputError) goes to the CPU's TestwiseTest, as every query below.
//
// The CPU's ci::cg_lrt answers, inside the same batch: queries beyond the kernel's limits
// (more than kMaxCont continuous or kMaxDisc discrete variables, more than kMaxKeys
// configurations, a discrete variable of more than 256 levels), queries with a variable out of
// range, repeated, or holding a value the test refuses, and those the device finds singular
// or whose statistic is not a result: for those, the CPU's test throws its own one-line
// InputError (the error of the first such query in batch order is the one thrown). Under
// `--missing testwise` the CPU's answers are TestwiseTest's, its errors naming the test and
// its complete rows.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "ci/cg_lrt.hpp"
#include "ci/cg_lrt_core.hpp"
#include "ci/discrete_test.hpp"
#include "core/dataset.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_handles.hpp"
#include "device_memory.hpp"
#include "engines.hpp"
#include "skeleton/ci_tests.hpp"

namespace cudag::cuda {
namespace {

namespace core = ci::cg_lrt_core;

constexpr int kMaxCont = 8;  ///< continuous variables of a query (x, y, S)
constexpr int kMaxTri = kMaxCont * (kMaxCont + 1) / 2;
constexpr int kMaxDisc = 16;                              ///< discrete variables of a query
constexpr std::int64_t kMaxKeys = std::int64_t{1} << 20;  ///< configurations of a query's discrete variables
constexpr int kBlock = 64;
constexpr int kCounts = 7;  ///< per query: status, rows kept, strata of the four sets, complete rows
constexpr int kTerms = 5;   ///< per query: Σ n log n of the four sets, dof
constexpr std::int64_t kOk = 0, kSingularStratum = 1, kNoRow = 2;

/// One query as the kernel reads it. Its variables, at vars[vars_at ...]: the continuous
/// columns (S's in increasing variable order, then x's, then y's: ci::cg_lrt's order), the
/// discrete columns (likewise), then the discrete ones' numbers of levels.
struct CgQuery {
    std::int64_t vars_at = 0;
    std::int64_t ints_at = 0;     ///< int scratch: key table, keep bitmap, level bitmaps, count, first
    std::int64_t doubles_at = 0;  ///< double scratch: sums (cap · p), cross-products (cap · tri)
    std::int64_t out_at[4] = {};  ///< per set: cap · (1 + p_J) doubles (n, roots) when p_J > 0
    std::int32_t keys = 1;        ///< configurations of all the discrete variables (≤ kMaxKeys)
    std::int32_t cap = 1;         ///< strata slots: min(keys, m)
    std::int8_t ps = 0, cx = 0, cy = 0, ds = 0, dx = 0, dy = 0;
};

struct CgArgs {
    const double* values = nullptr;       ///< continuous columns, m each
    const std::uint8_t* codes = nullptr;  ///< discrete columns, m each
    /// Test-wise deletion: per continuous / discrete column, words(m) words, bit r % 32 of word
    /// r / 32 set where row r is present. Null: every row present (no missing cells).
    const std::uint32_t* present_values = nullptr;
    const std::uint32_t* present_codes = nullptr;
    const double* log_n = nullptr;        ///< std::log(n), n = 0..m (the host's)
    std::int64_t m = 0;
    int n_queries = 0;
    const CgQuery* queries = nullptr;
    const std::int32_t* vars = nullptr;
    std::int32_t* ints = nullptr;
    double* doubles = nullptr;
    double* out = nullptr;
    std::int64_t* counts = nullptr;  ///< kCounts per query
    double* terms = nullptr;         ///< kTerms per query
};

__host__ __device__ constexpr std::int64_t words(std::int64_t bits) { return (bits + 31) / 32; }

/// Thread q: query q, as ci::cg_lrt on the query's complete rows (see the top of the file).
__global__ void cg_lrt_kernel(CgArgs a) {
    const int q = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= a.n_queries) return;
    const CgQuery Q = a.queries[q];
    const std::int64_t m = a.m;
    const int pc = Q.ps + Q.cx + Q.cy;
    const int nd = Q.ds + Q.dx + Q.dy;
    const std::int32_t* vars = a.vars + Q.vars_at;
    const double* col[kMaxCont];
    const std::uint8_t* code[kMaxDisc];
    int levels[kMaxDisc];
    for (int i = 0; i < pc; ++i) col[i] = a.values + static_cast<std::int64_t>(vars[i]) * m;
    for (int i = 0; i < nd; ++i) {
        code[i] = a.codes + static_cast<std::int64_t>(vars[pc + i]) * m;
        levels[i] = vars[pc + nd + i];
    }
    std::int32_t* table = a.ints + Q.ints_at;
    auto* keep = reinterpret_cast<std::uint32_t*>(table + Q.keys);
    std::uint32_t* seen = keep + words(m);  // 8 words (256 levels) per discrete variable
    std::int32_t* count = reinterpret_cast<std::int32_t*>(seen + 8 * nd);
    std::int32_t* first = count + Q.cap;
    double* sums = a.doubles + Q.doubles_at;
    double* cross = sums + static_cast<std::int64_t>(Q.cap) * pc;
    std::int64_t* counts = a.counts + static_cast<std::int64_t>(q) * kCounts;
    double* terms = a.terms + static_cast<std::int64_t>(q) * kTerms;

    // The key of row r's configuration of S's discrete variables, with x's / y's.
    const auto key_of = [&](std::int64_t r, bool with_x, bool with_y) {
        std::int32_t key = 0;
        for (int i = 0; i < Q.ds; ++i) key = key * levels[i] + code[i][r];
        if (Q.dx && with_x) key = key * levels[Q.ds] + code[Q.ds][r];
        if (Q.dy && with_y) key = key * levels[Q.ds + Q.dx] + code[Q.ds + Q.dx][r];
        return key;
    };

    // The query's rows: those present in all its variables (every row without a bitmap), in
    // `keep` for now.
    std::int64_t complete = 0;
    for (std::int64_t w = 0; w < words(m); ++w) {
        const std::int64_t left = m - w * 32;
        std::uint32_t bits = left >= 32 ? 0xffffffffu : (1u << left) - 1u;
        if (a.present_values)
            for (int i = 0; i < pc; ++i) bits &= a.present_values[static_cast<std::int64_t>(vars[i]) * words(m) + w];
        if (a.present_codes)
            for (int i = 0; i < nd; ++i)
                bits &= a.present_codes[static_cast<std::int64_t>(vars[pc + i]) * words(m) + w];
        keep[w] = bits;
        complete += __popc(bits);
    }
    counts[6] = complete;
    // The rows kept among them: those whose configuration of all the discrete variables occurs
    // in more than pc of them (every one when there is no continuous variable).
    if (pc > 0) {
        for (std::int32_t k = 0; k < Q.keys; ++k) table[k] = 0;
        for (std::int64_t w = 0; w < words(m); ++w)
            for (std::uint32_t bits = keep[w]; bits; bits &= bits - 1)
                ++table[key_of(w * 32 + __ffs(static_cast<int>(bits)) - 1, true, true)];
    }
    for (int w = 0; w < 8 * nd; ++w) seen[w] = 0;
    std::int64_t kept = 0;
    for (std::int64_t w = 0; w < words(m); ++w) {
        std::uint32_t out = 0;
        for (std::uint32_t bits = keep[w]; bits; bits &= bits - 1) {
            const int b = __ffs(static_cast<int>(bits)) - 1;
            const std::int64_t r = w * 32 + b;
            if (pc > 0 && table[key_of(r, true, true)] <= pc) continue;
            out |= 1u << b;
            ++kept;
            for (int i = 0; i < nd; ++i) seen[8 * i + code[i][r] / 32] |= 1u << (code[i][r] % 32);
        }
        keep[w] = out;
    }
    counts[1] = kept;
    if (kept == 0) {
        counts[0] = kNoRow;
        return;
    }
    // dof from the levels the rows kept hold (ci::cg_lrt's observed_levels, products in its order).
    const auto observed = [&](int i) {
        int n = 0;
        for (int w = 0; w < 8; ++w) n += __popc(seen[8 * i + w]);
        return static_cast<double>(n);
    };
    double f_s = 1.0;
    for (int i = 0; i < Q.ds; ++i) f_s *= observed(i);
    const double f_x = Q.dx ? observed(Q.ds) : 1.0;
    const double f_y = Q.dy ? observed(Q.ds + Q.dx) : 1.0;
    terms[4] = core::test_dof(f_s, f_x, f_y, Q.ps, Q.cx, Q.cy);

    // The four sets: x y S, x S, y S, S.
    for (int set = 0; set < 4; ++set) {
        const bool with_x = set < 2, with_y = set % 2 == 0;
        const double* jcol[kMaxCont];
        int p = 0;
        for (int i = 0; i < Q.ps; ++i) jcol[p++] = col[i];
        if (Q.cx && with_x) jcol[p++] = col[Q.ps];
        if (Q.cy && with_y) jcol[p++] = col[Q.ps + Q.cx];
        const int tri = core::triangle(p);
        std::int32_t keys = 1;
        for (int i = 0; i < Q.ds; ++i) keys *= levels[i];
        if (Q.dx && with_x) keys *= levels[Q.ds];
        if (Q.dy && with_y) keys *= levels[Q.ds + Q.dx];
        for (std::int32_t k = 0; k < keys; ++k) table[k] = 0;  // stratum + 1, 0: none yet
        std::int32_t strata = 0;
        double dev[kMaxCont];
        for (std::int64_t w = 0; w < words(m); ++w) {
            std::uint32_t bits = keep[w];
            while (bits) {
                const int b = __ffs(static_cast<int>(bits)) - 1;
                bits &= bits - 1;
                const std::int64_t r = w * 32 + b;
                std::int32_t& slot = table[key_of(r, with_x, with_y)];
                if (slot == 0) {
                    slot = ++strata;
                    count[strata - 1] = 0;
                    first[strata - 1] = static_cast<std::int32_t>(r);
                    for (int i = 0; i < p; ++i) sums[static_cast<std::int64_t>(strata - 1) * p + i] = 0.0;
                    for (int i = 0; i < tri; ++i) cross[static_cast<std::int64_t>(strata - 1) * tri + i] = 0.0;
                }
                const std::int32_t s = slot - 1;
                ++count[s];
                if (p == 0) continue;
                const std::int64_t f = first[s];
                for (int i = 0; i < p; ++i) dev[i] = jcol[i][r] - jcol[i][f];
                core::add_row(dev, p, sums + static_cast<std::int64_t>(s) * p,
                              cross + static_cast<std::int64_t>(s) * tri);
            }
        }
        double multinomial = 0.0;
        double l[kMaxTri];
        double* out = a.out + Q.out_at[set];
        for (std::int32_t s = 0; s < strata; ++s) {
            const double n = static_cast<double>(count[s]);
            multinomial += n * a.log_n[count[s]];
            if (p == 0) continue;
            double* o = out + static_cast<std::int64_t>(s) * (1 + p);
            o[0] = n;
            if (core::cholesky_roots(n, sums + static_cast<std::int64_t>(s) * p,
                                     cross + static_cast<std::int64_t>(s) * tri, p, l, o + 1) >= 0) {
                counts[0] = kSingularStratum;
                return;
            }
        }
        terms[set] = multinomial;
        counts[2 + set] = strata;
    }
    counts[0] = kOk;
}

class CudaCgLrtBatch final : public ci::BatchTest {
public:
    CudaCgLrtBatch(const Dataset& data, int device, int host_threads)
        : binding_(device),
          data_(data),
          device_(device),
          threads_(std::max(1, host_threads)),
          m_(data.n_samples),
          testwise_(data.missing > 0),
          ctx_(DeviceContext::for_device(device)) {
        spec_.kind = ci::TestKind::CgLrt;
        const auto n = static_cast<std::size_t>(data.n_vars);
        const auto m = static_cast<std::size_t>(m_);
        const auto w = static_cast<std::size_t>(words(m_));
        slot_.assign(n, -1);
        levels_.assign(n, 0);
        usable_.assign(n, 0);
        // Columns the device takes: continuous ones of finite values, discrete ones of at
        // most 256 levels whose values are all codes of a level (as ci::cg_lrt checks them),
        // NaN aside under test-wise deletion (a missing cell: its bit stays clear, its code 0).
        std::vector<double> values;
        std::vector<std::uint8_t> codes;
        std::vector<std::uint32_t> present_values, present_codes;
        const auto missing = [&](double c) { return testwise_ && std::isnan(c); };
        const auto presence = [&](const double* c, std::vector<std::uint32_t>& bits) {
            if (!testwise_) return;
            const std::size_t at = bits.size();
            bits.resize(at + w, 0u);
            for (std::size_t r = 0; r < m; ++r)
                if (!std::isnan(c[r])) bits[at + r / 32] |= 1u << (r % 32);
        };
        std::int32_t n_cont = 0, n_disc = 0;
        for (std::size_t v = 0; v < n; ++v) {
            const double* c = data.column(static_cast<std::int64_t>(v));
            if (data.is_discrete(static_cast<std::int64_t>(v))) {
                const std::size_t lv = data.levels[v].size();
                levels_[v] = static_cast<std::int32_t>(std::min<std::size_t>(lv, 1u << 30));
                const auto ld = static_cast<double>(lv);
                bool ok = lv <= 256;
                for (std::size_t r = 0; r < m && ok; ++r)
                    ok = missing(c[r]) || (c[r] >= 0.0 && c[r] < ld && c[r] == std::floor(c[r]));
                if (!ok) continue;
                for (std::size_t r = 0; r < m; ++r)
                    codes.push_back(missing(c[r]) ? std::uint8_t{0} : static_cast<std::uint8_t>(c[r]));
                presence(c, present_codes);
                slot_[v] = n_disc++;
            } else {
                bool ok = true;
                for (std::size_t r = 0; r < m && ok; ++r) ok = missing(c[r]) || std::isfinite(c[r]);
                if (!ok) continue;
                values.insert(values.end(), c, c + m);
                presence(c, present_values);
                slot_[v] = n_cont++;
            }
            usable_[v] = 1;
        }
        log_n_.resize(m + 1);
        for (std::size_t k = 0; k <= m; ++k) log_n_[k] = std::log(static_cast<double>(k));
        DeviceGuard guard(device_);
        d_values_.resize_discard(std::max<std::size_t>(1, values.size()));
        d_values_.upload(values.data(), values.size(), stream());
        d_codes_.resize_discard(std::max<std::size_t>(1, codes.size()));
        d_codes_.upload(codes.data(), codes.size(), stream());
        d_log_n_.resize_discard(log_n_.size());
        d_log_n_.upload(log_n_.data(), log_n_.size(), stream());
        if (testwise_) {
            d_present_values_.resize_discard(std::max<std::size_t>(1, present_values.size()));
            d_present_values_.upload(present_values.data(), present_values.size(), stream());
            d_present_codes_.resize_discard(std::max<std::size_t>(1, present_codes.size()));
            d_present_codes_.upload(present_codes.data(), present_codes.size(), stream());
        }
        ctx_.synchronize();
    }

    ~CudaCgLrtBatch() override {
        // The buffers are freed after this body with the device current (binding_ is the first member).
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    std::string name() const override { return spec_.name(); }
    std::string where() const override { return "GPU " + std::to_string(device_); }

    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        const std::size_t nq = q.size();
        CUDAG_EXPECTS(q.y.size() == nq && q.offsets.size() == nq + 1 && statistic.size() >= nq && p.size() >= nq,
                      "cuda cg-lrt: malformed test batch");
        std::vector<CgQuery> device;
        std::vector<std::size_t> on_device, on_host;
        std::vector<std::int32_t> vars;
        const auto in_range = [&](std::int32_t v) { return v >= 0 && v < data_.n_vars; };
        for (std::size_t k = 0; k < nq; ++k) {
            // TestwiseTest reads its variables' columns unchecked (ci::cg_lrt checks them).
            if (testwise_)
                CUDAG_EXPECTS(
                    in_range(q.x[k]) && in_range(q.y[k]) && std::all_of(q.set(k).begin(), q.set(k).end(), in_range),
                    "cuda cg-lrt: a batch query names a variable out of range");
            CgQuery c;
            c.vars_at = static_cast<std::int64_t>(vars.size());
            if (describe(q.x[k], q.y[k], q.set(k), c, vars)) {
                device.push_back(c);
                on_device.push_back(k);
            } else {
                vars.resize(static_cast<std::size_t>(c.vars_at));
                on_host.push_back(k);
            }
        }
        std::vector<char> redo(nq, 0);
        if (!device.empty()) {
            DeviceGuard guard(device_);
            DeviceBuffer<std::int32_t> d_vars(std::max<std::size_t>(1, vars.size()));
            d_vars.upload(vars.data(), vars.size(), stream());
            std::size_t at = 0;
            while (at < device.size()) at = run_chunk(device, on_device, at, d_vars.data(), statistic, p, redo);
        }
        for (std::size_t k = 0; k < nq; ++k)
            if (redo[k]) on_host.push_back(k);
        std::sort(on_host.begin(), on_host.end());
        // The CPU's test (TestwiseTest under test-wise deletion): its results, or its error
        // (that of the first query in batch order).
        std::vector<std::exception_ptr> errors(on_host.size());
        parallel_for(0, static_cast<std::int64_t>(on_host.size()), threads_, 1, [&](std::int64_t i, int) {
            const std::size_t k = on_host[static_cast<std::size_t>(i)];
            try {
                double st = 0.0, pv = 1.0;
                if (testwise_) {
                    const ci::CiOutcome o = skeleton::make_ci_test(data_, spec_, skeleton::Compat::Pcalg, 1)
                                                ->test(q.x[k], q.y[k], q.set(k));
                    st = o.statistic;
                    pv = o.p;
                } else {
                    const ci::CgLrtResult r = ci::cg_lrt(data_, q.x[k], q.y[k], q.set(k));
                    st = r.statistic;
                    pv = r.p;
                }
                if (!ci::is_result(st, pv)) ci::throw_not_finite(spec_.name(), q.x[k], q.y[k], st, pv, data_.names);
                statistic[k] = st;
                p[k] = pv;
            } catch (...) {
                errors[static_cast<std::size_t>(i)] = std::current_exception();
            }
        });
        for (const std::exception_ptr& e : errors)
            if (e) std::rethrow_exception(e);
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    /// Lays query x ⟂ y | s out for the kernel (its variables appended to `vars`), or false
    /// when the CPU answers it. ci::cg_lrt swaps x < y; TestwiseTest's sub-table has x first.
    bool describe(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s, CgQuery& c,
                  std::vector<std::int32_t>& vars) const {
        if (m_ <= 0 || m_ > INT_MAX) return false;
        if (!testwise_ && x > y) std::swap(x, y);
        std::vector<std::int32_t> given(s.begin(), s.end());
        std::sort(given.begin(), given.end());
        std::vector<std::int32_t> all = given;
        all.push_back(x);
        all.push_back(y);
        for (const std::int32_t v : all)
            if (v < 0 || v >= data_.n_vars || !usable_[static_cast<std::size_t>(v)]) return false;
        std::vector<std::int32_t> sorted = all;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
        const auto discrete = [&](std::int32_t v) { return data_.is_discrete(v); };
        std::vector<std::int32_t> cont, disc;
        for (const std::int32_t v : all) (discrete(v) ? disc : cont).push_back(v);
        if (cont.size() > static_cast<std::size_t>(kMaxCont) || disc.size() > static_cast<std::size_t>(kMaxDisc))
            return false;
        std::int64_t keys = 1;
        for (const std::int32_t v : disc) {
            keys *= std::max<std::int32_t>(1, levels_[static_cast<std::size_t>(v)]);
            if (keys > kMaxKeys) return false;
        }
        c.cx = static_cast<std::int8_t>(discrete(x) ? 0 : 1);
        c.cy = static_cast<std::int8_t>(discrete(y) ? 0 : 1);
        c.ps = static_cast<std::int8_t>(static_cast<int>(cont.size()) - c.cx - c.cy);
        c.dx = static_cast<std::int8_t>(1 - c.cx);
        c.dy = static_cast<std::int8_t>(1 - c.cy);
        c.ds = static_cast<std::int8_t>(static_cast<int>(disc.size()) - c.dx - c.dy);
        c.keys = static_cast<std::int32_t>(keys);
        c.cap = static_cast<std::int32_t>(std::min<std::int64_t>(keys, m_));
        for (const std::int32_t v : cont) vars.push_back(slot_[static_cast<std::size_t>(v)]);
        for (const std::int32_t v : disc) vars.push_back(slot_[static_cast<std::size_t>(v)]);
        for (const std::int32_t v : disc) vars.push_back(levels_[static_cast<std::size_t>(v)]);
        return true;
    }

    /// Continuous variables of set `set` (0: x y S, 1: x S, 2: y S, 3: S) of query c.
    static int set_cont(const CgQuery& c, int set) { return c.ps + (set < 2 ? c.cx : 0) + (set % 2 == 0 ? c.cy : 0); }

    /// Runs queries device[at, end) in one launch whose scratch stays within kScratchBytes;
    /// returns end.
    std::size_t run_chunk(std::vector<CgQuery>& device, const std::vector<std::size_t>& on_device, std::size_t at,
                          const std::int32_t* d_vars, std::span<double> statistic, std::span<double> p,
                          std::vector<char>& redo) {
        constexpr double kScratchBytes = double(std::size_t{1} << 30);
        std::int64_t ints = 0, doubles = 0, outs = 0;
        std::size_t end = at;
        double bytes = 0.0;
        while (end < device.size()) {
            CgQuery& c = device[end];
            const int pc = c.ps + c.cx + c.cy;
            const int nd = c.ds + c.dx + c.dy;
            const std::int64_t n_ints = c.keys + words(m_) + 8 * nd + 2 * std::int64_t{c.cap};
            const std::int64_t n_doubles = std::int64_t{c.cap} * (pc + core::triangle(pc));
            std::int64_t n_out = 0;
            for (int set = 0; set < 4; ++set) {
                const int pj = set_cont(c, set);
                if (pj > 0) n_out += std::int64_t{c.cap} * (1 + pj);
            }
            const double per = 4.0 * static_cast<double>(n_ints) + 8.0 * static_cast<double>(n_doubles + n_out) +
                               static_cast<double>(sizeof(CgQuery) + 8 * (kCounts + kTerms));
            if (end > at && (bytes + per > kScratchBytes || end - at >= (std::size_t{1} << 20))) break;
            bytes += per;
            c.ints_at = ints;
            c.doubles_at = doubles;
            for (int set = 0; set < 4; ++set) {
                c.out_at[set] = outs;
                const int pj = set_cont(c, set);
                if (pj > 0) outs += std::int64_t{c.cap} * (1 + pj);
            }
            ints += n_ints;
            doubles += n_doubles;
            ++end;
        }
        const std::size_t n = end - at;
        DeviceBuffer<CgQuery> d_queries(n);
        d_queries.upload(device.data() + at, n, stream());
        int_scratch_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, ints)));
        double_scratch_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, doubles)));
        out_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(1, outs)));
        counts_.resize_discard(n * kCounts);
        terms_.resize_discard(n * kTerms);
        CgArgs a;
        a.values = d_values_.data();
        a.codes = d_codes_.data();
        a.log_n = d_log_n_.data();
        a.present_values = testwise_ ? d_present_values_.data() : nullptr;
        a.present_codes = testwise_ ? d_present_codes_.data() : nullptr;
        a.m = m_;
        a.n_queries = static_cast<int>(n);
        a.queries = d_queries.data();
        a.vars = d_vars;
        a.ints = int_scratch_.data();
        a.doubles = double_scratch_.data();
        a.out = out_.data();
        a.counts = counts_.data();
        a.terms = terms_.data();
        cg_lrt_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock, 0, stream()>>>(a);
        CUDAG_CHECK_LAUNCH();
        std::vector<std::int64_t> counts(n * kCounts);
        std::vector<double> terms(n * kTerms), out(static_cast<std::size_t>(outs));
        counts_.download(counts.data(), counts.size(), stream());
        terms_.download(terms.data(), terms.size(), stream());
        out_.download(out.data(), out.size(), stream());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        // The host's part, as ci::cg_lrt: n log det from the roots (glibc's log), the
        // statistic and p-value.
        parallel_for(0, static_cast<std::int64_t>(n), threads_, 256, [&](std::int64_t i, int) {
            const auto j = static_cast<std::size_t>(i);
            const std::size_t k = on_device[at + j];
            const CgQuery& c = device[at + j];
            const std::int64_t* cn = counts.data() + j * kCounts;
            const double* tm = terms.data() + j * kTerms;
            // TestwiseTest's rule: too few complete rows is its InputError (the CPU's below).
            const int spare = spec_.traits().spare_samples;
            if (testwise_ && (cn[6] == 0 || (spare >= 0 && cn[6] <= c.ps + c.ds + spare))) {
                redo[k] = 1;
                return;
            }
            if (cn[0] == kNoRow) {
                statistic[k] = 0.0;
                p[k] = 1.0;
                return;
            }
            if (cn[0] != kOk) {
                redo[k] = 1;
                return;
            }
            core::SetTerms t[4];
            for (int set = 0; set < 4; ++set) {
                t[set].multinomial = tm[set];
                const int pj = set_cont(c, set);
                if (pj == 0) continue;
                const double* o = out.data() + c.out_at[set];
                for (std::int64_t s = 0; s < cn[2 + set]; ++s, o += 1 + pj)
                    t[set].gaussian += o[0] * core::log_det(o + 1, pj);
            }
            const double stat = core::statistic(t[0], t[1], t[2], t[3]);
            const double dof = tm[4];
            const double pv = dof > 0.0 ? ci::chi2_sf(stat, dof) : 1.0;
            if (!ci::is_result(stat, pv)) {
                redo[k] = 1;  // the CPU's test throws its error
                return;
            }
            statistic[k] = stat;
            p[k] = pv;
        });
        return end;
    }

    DeviceBinding binding_;  // first: destroyed last
    const Dataset& data_;
    int device_;
    int threads_;
    std::int64_t m_;
    bool testwise_;  ///< data.missing > 0: each query on its complete rows (TestwiseTest)
    skeleton::TestSpec spec_;
    DeviceContext& ctx_;
    std::vector<std::int32_t> slot_;    ///< variable → its device column (continuous or discrete), −1: none
    std::vector<std::int32_t> levels_;  ///< variable → its levels (discrete)
    std::vector<char> usable_;          ///< variable → whether the device holds it
    std::vector<double> log_n_;
    DeviceBuffer<double> d_values_;
    DeviceBuffer<std::uint8_t> d_codes_;
    DeviceBuffer<double> d_log_n_;
    DeviceBuffer<std::uint32_t> d_present_values_, d_present_codes_;  ///< test-wise: presence bitmaps
    DeviceBuffer<std::int32_t> int_scratch_;
    DeviceBuffer<double> double_scratch_, out_;
    DeviceBuffer<std::int64_t> counts_;
    DeviceBuffer<double> terms_;
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_cg_lrt_batch(const Dataset& data, int device, int host_threads) {
    return std::make_unique<CudaCgLrtBatch>(data, device, host_threads);
}

}  // namespace cudag::cuda
