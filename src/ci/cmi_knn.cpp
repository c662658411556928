// SPDX-License-Identifier: Apache-2.0
#include "ci/cmi_knn.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/parallel.hpp"

namespace cudag::ci {

namespace {

constexpr int kMaxShuffleNeighbors = 1000;                // 255 Philox blocks of draws per sample
constexpr std::int64_t kMaxPermutations = (1 << 23) - 1;  // s < 2^23 in cmi_rng_block

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// Population mean and standard deviation (two passes).
void mean_std(const double* v, std::int64_t n, double& mean, double& sd) {
    double s = 0.0;
    for (std::int64_t t = 0; t < n; ++t) s += v[t];
    mean = s / static_cast<double>(n);
    double q = 0.0;
    for (std::int64_t t = 0; t < n; ++t) q += (v[t] - mean) * (v[t] - mean);
    sd = std::sqrt(q / static_cast<double>(n));
}

/// Ranks 0..n−1 of v (ties in index order) written to out; `order` is scratch.
void rank_column(const double* v, std::int64_t n, double* out, std::vector<std::int32_t>& order) {
    order.resize(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    // (value, index) order without std::stable_sort's temporary buffer.
    std::sort(order.begin(), order.end(),
              [v](std::int32_t a, std::int32_t b) { return v[a] < v[b] || (v[a] == v[b] && a < b); });
    for (std::int64_t r = 0; r < n; ++r) out[order[static_cast<std::size_t>(r)]] = static_cast<double>(r);
}

/// Transform `v` (already tie-broken) in place into `out` with `t`; Uniform gives the
/// public (rank + 1)/T values unless `uniform_as_ranks`.
void apply_transform(const double* v, std::int64_t n, CmiTransform t, bool uniform_as_ranks, double* out,
                     std::vector<std::int32_t>& order) {
    switch (t) {
        case CmiTransform::Ranks:
            rank_column(v, n, out, order);
            return;
        case CmiTransform::Uniform: {
            rank_column(v, n, out, order);
            if (uniform_as_ranks) return;
            // np.linspace(1/T, 1, T)[r] = r·step + 1/T with step = (1 − 1/T)/(T − 1), last = 1.
            const double start = 1.0 / static_cast<double>(n);
            const double step = n > 1 ? (1.0 - start) / static_cast<double>(n - 1) : 0.0;
            for (std::int64_t s = 0; s < n; ++s)
                out[s] = out[s] == static_cast<double>(n - 1) ? 1.0 : out[s] * step + start;
            return;
        }
        case CmiTransform::Standardize: {
            double mean = 0.0, sd = 0.0;
            mean_std(v, n, mean, sd);
            for (std::int64_t s = 0; s < n; ++s) out[s] = v[s] - mean;
            if (sd != 0.0)
                for (std::int64_t s = 0; s < n; ++s) out[s] /= sd;
            return;
        }
        case CmiTransform::None:
            if (out != v) std::copy_n(v, n, out);
            return;
    }
}

}  // namespace

CmiTransform parse_cmi_transform(const std::string& name) {
    const std::string s = lower(name);
    if (s == "ranks") return CmiTransform::Ranks;
    if (s == "standardize") return CmiTransform::Standardize;
    if (s == "uniform") return CmiTransform::Uniform;
    if (s == "none") return CmiTransform::None;
    throw InputError("cmiknn: unknown transform '" + name + "' (expected ranks, standardize, uniform or none)");
}

std::string to_string(CmiTransform t) {
    switch (t) {
        case CmiTransform::Ranks:
            return "ranks";
        case CmiTransform::Standardize:
            return "standardize";
        case CmiTransform::Uniform:
            return "uniform";
        case CmiTransform::None:
            return "none";
    }
    return "?";
}

CmiPermute parse_cmi_permute(const std::string& name) {
    const std::string s = lower(name);
    if (s == "y") return CmiPermute::Y;
    if (s == "x") return CmiPermute::X;
    throw InputError("cmiknn: unknown permuted variable '" + name + "' (expected x or y)");
}

void validate(const CmiKnnSpec& spec, std::int64_t n_samples, int max_cond) {
    const std::string t = std::to_string(n_samples);
    CUDAG_EXPECTS(n_samples >= 3, "cmiknn: too few samples (" + t + "; at least 3 are needed)");
    CUDAG_EXPECTS(n_samples < (std::int64_t{1} << 31), "cmiknn: too many samples (" + t + "; at most 2^31 - 1)");
    CUDAG_EXPECTS(std::isfinite(spec.knn) && spec.knn > 0.0,
                  "cmiknn: --knn must be positive (a fraction of the samples below 1, else a count)");
    if (spec.knn >= 1.0 && spec.knn >= static_cast<double>(n_samples)) {  // a count (before it is cast)
        char knn[32];
        std::snprintf(knn, sizeof knn, "%.15g", spec.knn);
        throw InputError(std::string("cmiknn: --knn gives k = ") + knn + " neighbours, which needs more than " + knn +
                         " samples (the data have " + t + ")");
    }
    const std::int64_t k = cmi_k(spec.knn, n_samples);
    CUDAG_EXPECTS(k < n_samples, "cmiknn: --knn gives k = " + std::to_string(k) +
                                     " neighbours, which needs more than " + std::to_string(k) +
                                     " samples (the data have " + t + ")");
    CUDAG_EXPECTS(spec.permutations >= 1 && spec.permutations <= kMaxPermutations,
                  "cmiknn: --permutations must be in 1.." + std::to_string(kMaxPermutations) + " (got " +
                      std::to_string(spec.permutations) + ")");
    if (max_cond > 0) {
        // 1 is the sample itself alone: every surrogate equals the data, every conditional
        // test gives p = 1 and PC would remove every edge.
        CUDAG_EXPECTS(
            spec.shuffle_neighbors >= 2 && spec.shuffle_neighbors <= kMaxShuffleNeighbors,
            "cmiknn: --shuffle-neighbors must be in 2.." + std::to_string(kMaxShuffleNeighbors) + " (got " +
                std::to_string(spec.shuffle_neighbors) +
                (spec.shuffle_neighbors == 1 ? ": the sample itself alone, so no surrogate differs from the data)"
                                             : ")"));
        CUDAG_EXPECTS(spec.shuffle_neighbors < n_samples,
                      "cmiknn: --shuffle-neighbors " + std::to_string(spec.shuffle_neighbors) +
                          " needs more samples than that (the data have " + t + ")");
    }
    if (spec.early_stop) {
        const double a = spec.early_stop->alpha;
        CUDAG_EXPECTS(a > 0.0 && a < 1.0, "cmiknn: early-stop alpha must be in (0, 1)");
    }
}

void cmi_transform(const double* in, std::int64_t n, CmiTransform t, CmiTieBreak tie_break, std::uint64_t seed,
                   std::int64_t var, double* out, std::vector<std::int32_t>& order) {
    if (tie_break == CmiTieBreak::Noise) {
        double mean = 0.0, sd = 0.0;
        mean_std(in, n, mean, sd);
        const double scale = 1e-6 * sd;
        for (std::int64_t s = 0; s < n; ++s)
            out[s] =
                in[s] + scale * cmi_noise_uniform(seed, static_cast<std::uint64_t>(var), static_cast<std::uint64_t>(s));
        apply_transform(out, n, t, false, out, order);
    } else {
        apply_transform(in, n, t, false, out, order);
    }
}

CmiKnn::CmiKnn(const Dataset& data, const CmiKnnSpec& spec, int max_cond)
    : spec_(spec), n_(data.n_samples), n_vars_(data.n_vars), raw_(data.values.data()) {
    validate(spec, n_, max_cond);
    CUDAG_EXPECTS(!data.discrete(), "cmiknn: the data are discrete (CMIknn needs continuous values)");
    k_ = cmi_k(spec.knn, n_);
    work_.resize(static_cast<std::size_t>(n_ * n_vars_));
    raw_std_.resize(static_cast<std::size_t>(n_vars_));
    // Uniform is computed on the ranks (the counts are the same; see the header).
    const CmiTransform wt = spec.transform == CmiTransform::Uniform ? CmiTransform::Ranks : spec.transform;
    constant_.resize(static_cast<std::size_t>(n_vars_));
    std::vector<std::int32_t> order;
    for (std::int64_t v = 0; v < n_vars_; ++v) {
        double mean = 0.0;
        mean_std(data.column(v), n_, mean, raw_std_[v]);
        const double* col = data.column(v);
        constant_[static_cast<std::size_t>(v)] =
            std::all_of(col, col + n_, [first = col[0]](double x) { return x == first; });
        cmi_transform(data.column(v), n_, wt, spec.tie_break, spec.seed, v, work_.data() + v * n_, order);
    }
    psi_.resize(static_cast<std::size_t>(n_ + 1));
    psi_[0] = -INFINITY;
    for (std::int64_t c = 1; c <= n_; ++c) psi_[c] = cmi_psi(c);
    fixed_bits_ = cmi_fixed_bits(n_);
    psi_fixed_ = cmi_psi_fixed(n_, fixed_bits_);
}

double cmi_psi(std::int64_t c) { return cmi_digamma(static_cast<double>(c)); }

std::vector<std::int64_t> cmi_psi_fixed(std::int64_t n, int bits) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(n + 1), 0);
    for (std::int64_t c = 1; c <= n; ++c) out[static_cast<std::size_t>(c)] = std::llrint(std::ldexp(cmi_psi(c), bits));
    return out;
}

void CmiKnn::check_vars(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z) const {
    auto in_range = [this](std::int32_t v) { return v >= 0 && v < n_vars_; };
    CUDAG_EXPECTS(in_range(x) && in_range(y), "cmiknn: variable index out of range");
    CUDAG_EXPECTS(x != y, "cmiknn: x and y must differ");
    for (std::size_t a = 0; a < z.size(); ++a) {
        CUDAG_EXPECTS(in_range(z[a]), "cmiknn: conditioning variable index out of range");
        CUDAG_EXPECTS(z[a] != x && z[a] != y, "cmiknn: a conditioning variable equals x or y");
        for (std::size_t b = 0; b < a; ++b)
            CUDAG_EXPECTS(z[a] != z[b], "cmiknn: a conditioning variable appears twice");
    }
    if (!z.empty()) {
        CUDAG_EXPECTS(spec_.shuffle_neighbors >= 2 && spec_.shuffle_neighbors < n_ &&
                          spec_.shuffle_neighbors <= kMaxShuffleNeighbors,
                      "cmiknn: --shuffle-neighbors must be at least 2 and below the number of samples");
    }
}

void CmiKnn::build_fixed(std::int32_t f, std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const {
    const int nz = static_cast<int>(z.size());
    ws.cols.resize(static_cast<std::size_t>(nz) + 1);
    ws.cols[0] = working_column(f);
    for (int c = 0; c < nz; ++c) ws.cols[c + 1] = working_column(z[c]);
    ws.fixed_z.build(ws.cols.data(), nz + 1, n_);
    if (nz > 0) ws.z.build(ws.cols.data() + 1, nz, n_);
}

void CmiKnn::prepare(std::int32_t p, std::int32_t f, std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const {
    build_fixed(f, z, ws);
    const int nz = static_cast<int>(z.size());
    if (nz == 0) return;
    const std::vector<const double*>& cols = ws.cols;
    // Each sample's shuffle neighbourhood in Z: itself, then the nearest others (ties by L1
    // distance, then a per-query hash; see cmi_neighbor_salt).
    const int ks = spec_.shuffle_neighbors;
    ws.neighbors.resize(static_cast<std::size_t>(n_ * ks));
    ws.query.resize(static_cast<std::size_t>(nz) + 2);
    for (std::int64_t i = 0; i < n_; ++i) {
        for (int c = 0; c < nz; ++c) ws.query[c] = cols[c + 1][i];
        std::int32_t* row = &ws.neighbors[static_cast<std::size_t>(i * ks)];
        ws.z.nearest(ws.query.data(), ks, cmi_neighbor_salt(spec_.seed, i), row, ws.nn_heap);
        const auto self = static_cast<std::int32_t>(i);
        std::int32_t* at = std::find(row, row + ks, self);
        if (at == row + ks) at = row + ks - 1;  // ks copies of i ordered first: drop the last
        std::move_backward(row, at, at + 1);
        row[0] = self;
    }
}

double CmiKnn::statistic_with(const double* pcol, std::int32_t f, std::span<const std::int32_t> z,
                              const CmiKnnWorkspace& fixed, CmiKnnWorkspace& ws) const {
    const int nz = static_cast<int>(z.size());
    const double* fcol = working_column(f);
    ws.cols.resize(static_cast<std::size_t>(nz) + 2);
    const double** c = ws.cols.data();
    // Joint (P, F, Z) and (P, Z); the query of sample i is (p_i, f_i, z_i): its tail
    // (f_i, z_i) and z_i serve the fixed trees, and (p_i, z_i) is assembled apart.
    c[0] = pcol;
    c[1] = fcol;
    for (int a = 0; a < nz; ++a) c[a + 2] = working_column(z[a]);
    ws.joint.build(c, nz + 2, n_);
    c[1] = pcol;  // (P, Z) = columns 1.. of (F→P, Z)
    ws.perm_z.build(c + 1, nz + 1, n_);
    ws.query.resize(2 * static_cast<std::size_t>(nz) + 3);
    double* q = ws.query.data();  // p, f, z...
    double* qp = q + nz + 2;      // p, z...
    // Fixed-point sum (cmi_fixed_bits): unsigned, so that it wraps instead of overflowing
    // on the way; the total fits in 62 bits.
    std::uint64_t term_sum = 0;
    const std::int64_t* pf = psi_fixed_.data();
    for (std::int64_t i = 0; i < n_; ++i) {
        q[0] = qp[0] = pcol[i];
        q[1] = fcol[i];
        for (int a = 0; a < nz; ++a) q[a + 2] = qp[a + 1] = c[a + 2][i];
        const double r = cmi_count_radius(ws.joint.kth_distance(q, k_ + 1, ws.heap));
        const std::int64_t kp = ws.perm_z.count_within(qp, r);
        const std::int64_t kf = fixed.fixed_z.count_within(q + 1, r);
        const std::int64_t kz = nz > 0 ? fixed.z.count_within(q + 2, r) : n_;
        term_sum += static_cast<std::uint64_t>(pf[kp] + pf[kf] - pf[kz]);
    }
    return statistic_from_sum(static_cast<std::int64_t>(term_sum));
}

std::span<const std::int32_t> CmiKnn::drop_constant(std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const {
    ws.z_kept.clear();
    for (const std::int32_t v : z)
        if (!constant(v)) ws.z_kept.push_back(v);
    return ws.z_kept;
}

double CmiKnn::statistic(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z_in,
                         CmiKnnWorkspace& ws) const {
    check_vars(x, y, z_in);
    if (constant(x) || constant(y)) return 0.0;
    const std::span<const std::int32_t> z = drop_constant(z_in, ws);
    // The statistic is symmetric in x and y; prepare() builds (y, Z) and Z, x is "permuted".
    build_fixed(y, z, ws);
    return statistic_with(working_column(x), y, z, ws, ws);
}

double CmiKnn::surrogate(std::int64_t s, std::int32_t p, std::int32_t f, std::span<const std::int32_t> z,
                         std::uint64_t test_id, const CmiKnnWorkspace& fixed, CmiKnnWorkspace& ws) const {
    const auto n = static_cast<std::size_t>(n_);
    const int ks = spec_.shuffle_neighbors;
    const bool local = !z.empty();
    const bool noise = spec_.tie_break == CmiTieBreak::Noise;
    ws.keys.resize(n);
    ws.perm_raw.resize(n);
    ws.perm_col.resize(n);
    ws.source.resize(n);
    ws.order.resize(n);
    if (local) ws.shuffled.resize(n * static_cast<std::size_t>(ks));
    // Per sample: order key, tie-break uniform, shuffled neighbour row (cmi_rng_block).
    for (std::int64_t i = 0; i < n_; ++i) {
        CounterRng rng(spec_.seed, test_id,
                       cmi_rng_block(static_cast<std::uint64_t>(s), static_cast<std::uint64_t>(i)));
        const std::uint64_t hi = rng.next_u32();
        ws.keys[i] = (hi << 32) | rng.next_u32();
        ws.perm_raw[i] = rng.uniform();  // the noise uniform; the value is filled below
        if (!local) continue;
        std::int32_t* row = &ws.shuffled[static_cast<std::size_t>(i) * ks];
        std::copy_n(&fixed.neighbors[static_cast<std::size_t>(i) * ks], ks, row);
        for (int d = ks - 1; d >= 1; --d)
            std::swap(row[d], row[cmi_draw_index(rng.next_u32(), static_cast<std::uint32_t>(d + 1))]);
    }
    std::iota(ws.order.begin(), ws.order.end(), 0);
    const std::uint64_t* keys = ws.keys.data();
    std::sort(ws.order.begin(), ws.order.end(),
              [keys](std::int32_t a, std::int32_t b) { return keys[a] < keys[b] || (keys[a] == keys[b] && a < b); });
    if (!local) {
        // Plain permutation: sample i takes the value of the i-th sample of the random order.
        std::copy(ws.order.begin(), ws.order.end(), ws.source.begin());
    } else {
        // Restricted permutation (Runge 2018; tigramite get_restricted_permutation): in the
        // random order, each sample takes its first unused neighbour, else its last one.
        ws.used.assign(n, 0);
        for (const std::int32_t a : ws.order) {
            const std::int32_t* row = &ws.shuffled[static_cast<std::size_t>(a) * ks];
            int m = 0;
            while (ws.used[static_cast<std::size_t>(row[m])] && m < ks - 1) ++m;
            ws.source[static_cast<std::size_t>(a)] = row[m];
            ws.used[static_cast<std::size_t>(row[m])] = 1;
        }
    }
    // The permuted column: raw values moved, fresh tie-break noise, transformed again.
    const double* raw = raw_ + static_cast<std::int64_t>(p) * n_;
    const double scale = 1e-6 * raw_std_[static_cast<std::size_t>(p)];
    for (std::size_t i = 0; i < n; ++i) ws.perm_raw[i] = raw[ws.source[i]] + (noise ? scale * ws.perm_raw[i] : 0.0);
    const CmiTransform wt = spec_.transform == CmiTransform::Uniform ? CmiTransform::Ranks : spec_.transform;
    apply_transform(ws.perm_raw.data(), n_, wt, true, ws.perm_col.data(), ws.order);
    return statistic_with(ws.perm_col.data(), f, z, fixed, ws);
}

CmiKnnResult CmiKnn::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t test_id,
                          std::span<CmiKnnWorkspace> workspaces) const {
    return test(x, y, z, test_id, workspaces, spec_.early_stop);
}

CmiKnnResult CmiKnn::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z_in, std::uint64_t test_id,
                          std::span<CmiKnnWorkspace> workspaces, const std::optional<CmiEarlyStop>& early_stop) const {
    CUDAG_ASSERT(!workspaces.empty());
    check_vars(x, y, z_in);
    if (constant(x) || constant(y)) return CmiKnnResult{};  // tigramite: statistic 0, p 1
    const std::span<const std::int32_t> z = drop_constant(z_in, workspaces[0]);
    const std::int32_t p = spec_.permute == CmiPermute::Y ? y : x;
    const std::int32_t f = spec_.permute == CmiPermute::Y ? x : y;
    CmiKnnWorkspace& main = workspaces[0];
    prepare(p, f, z, main);
    CmiKnnResult r;
    r.statistic = statistic_with(working_column(p), f, z, main, main);
    const std::int64_t b_total = spec_.permutations;
    main.null.assign(static_cast<std::size_t>(b_total), 0.0);
    const int threads = static_cast<int>(workspaces.size());
    // Batches of surrogates in index order; the early stop is decided on the prefix, so
    // the result is the same whatever the batch (and thread) count.
    const std::int64_t batch = early_stop ? std::max<std::int64_t>(threads, 1) * 4 : b_total;
    for (std::int64_t b0 = 0; b0 < b_total; b0 += batch) {
        const std::int64_t b1 = std::min(b_total, b0 + batch);
        parallel_for(b0, b1, threads, 1, [&](std::int64_t s, int w) {
            interrupt::poll();  // Ctrl-C in a binding, between surrogates (as in batch.cpp)
            if (interrupt::stop_requested()) return;
            main.null[static_cast<std::size_t>(s)] =
                surrogate(s, p, f, z, test_id, main, w == 0 ? main : workspaces[w]);
        });
        for (std::int64_t s = b0; s < b1; ++s) {
            r.exceedances += main.null[static_cast<std::size_t>(s)] >= r.statistic;
            r.surrogates = s + 1;
            if (early_stop && r.surrogates < b_total &&
                cmi_can_stop(r.exceedances, b_total, early_stop->alpha, early_stop->strict)) {
                r.early_stopped = true;
                main.null.resize(static_cast<std::size_t>(r.surrogates));
                r.p = cmi_pvalue(r.exceedances, b_total);
                return r;
            }
        }
    }
    r.p = cmi_pvalue(r.exceedances, b_total);
    return r;
}

CmiKnnResult CmiKnn::test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t test_id,
                          int threads) const {
    std::vector<CmiKnnWorkspace> ws(static_cast<std::size_t>(std::max(1, threads)));
    return test(x, y, z, test_id, std::span<CmiKnnWorkspace>(ws));
}

}  // namespace cudag::ci
