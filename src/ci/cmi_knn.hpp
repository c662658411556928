// SPDX-License-Identifier: Apache-2.0
// CMIknn: the conditional-independence test of Runge (AISTATS 2018) as tigramite 5.2.10.1
// computes it (tigramite/independence_tests/cmiknn.py, CMIknn), and as the GPU paper
// restates it (Hagedorn et al., "GPU Acceleration for Information-theoretic Constraint-based
// Causal Discovery", Alg. 1; shared/seeds/DIGEST.md §2.3). The CPU engine here is the
// reference the later CUDA kernels must reproduce; the math they share is CUDAG_HD below.
//
// Statistic (Frenzel–Pompe / Vejmelka–Paluš estimator) for T samples:
//   I(X;Y|Z) = ψ(k) − (1/T) Σ_i [ψ(k_xz,i) + ψ(k_yz,i) − ψ(k_z,i)]
//   k = max(1, ⌊knn·T⌋) when knn < 1, else ⌊knn⌋;
//   ε_i = max-norm distance from sample i to its (k+1)-th nearest sample in the joint
//         (X, Y, Z) space, i itself counted as the first;
//   k_xz,i, k_yz,i, k_z,i = number of samples j (i included) with distance(i, j) ≤
//         ε_i·0.999999999 in the (X,Z), (Y,Z) and Z subspaces: tigramite's rule (its radius
//         shrunk by 1e-9 to count "closer than ε"; a sample at distance 0 counts even when
//         ε_i = 0); k_z = T when Z is empty. On integer distances (ranks, uniform) it is
//         strict `<` (or distance 0), which the integer kernels use.
//
// Transforms (applied to every column before the statistic, as tigramite does):
//   ranks       column → 0..T−1 (argsort of argsort), the default;
//   uniform     column → (rank + 1)/T (np.interp onto linspace(1/T, 1, T)). Max-norm counts
//               are invariant under this common affine map of the ranks, so the engine
//               computes uniform's statistic on the integer ranks: identical to ranks, and
//               exact (no rounding in (r+1)/T can turn a tie at ε into "closer");
//   standardize (x − mean)/std (population std; a constant column is only centred);
//   none        the raw values.
//
// Ties (decision, measured in docs/cmiknn.md): tigramite adds 1e-6·std·U[0,1) noise to
// every column before the transform, drawing U from its own generator, so its statistic on
// data with tied values is a random variable. cudag reproduces that tie-break exactly but
// deterministically (CmiTieBreak::Noise, the default): U for sample t of variable v is a
// Philox draw keyed by (seed, v, t) (cmi_noise_uniform), so every test that uses v sees the
// same tie-broken column, on any thread count and on the GPU. On data without ties the
// noise moves no rank and no count, and the statistic equals tigramite's to rounding
// (test_cmi_knn.cpp: 1e-9); on tied data it is one draw of tigramite's distribution.
// CmiTieBreak::Index (no noise; ranks of equal values in sample order, i.e. a stable
// argsort) is offered for comparison only: the same index order in X and Y makes tied
// blocks look dependent and biases the statistic upwards (docs/cmiknn.md).
//
// Null distribution (local permutation, Runge 2018 §3; tigramite get_shuffle_significance):
// each sample's shuffle_neighbors nearest samples in the transformed Z subspace (itself
// first, then by max-norm distance, ties by L1 distance and a per-query hash: see
// cmi_neighbor_salt); per surrogate, samples are visited in a random order,
// each sample's neighbour list is shuffled (Fisher–Yates) and the first neighbour not yet
// used is taken (the last one when all are used); the permuted column (Y by default, as in
// tigramite 5.2.10.1; X as in Runge's paper) takes that neighbour's raw value, gets fresh
// tie-break noise and is transformed again, as tigramite re-transforms the shuffled array.
// With Z empty the column is fully permuted (tigramite's block shuffle with block length 1).
// p = (1 + #{surrogates ≥ observed}) / (1 + B).
//
// Constant columns (as tigramite's run_test): a test whose X or Y is constant gives
// statistic 0 and p = 1 without surrogates; constant conditioning columns are dropped from
// Z. "Constant" means every value equal (tigramite tests std == 0, which rounding can miss).
//
// Random numbers: every draw of surrogate s of a test is a Philox block of stream test_id
// (cmi_test_id: the ordered pair and cmi_set_key of the conditioning set; docs/cmiknn.md
// "Test ids") under the spec's seed, at block
// index cmi_rng_block(s, i) for sample i: words 0–1 the sample's visiting-order key, words
// 2–3 its tie-break noise, then one word per Fisher–Yates draw. The visiting order is the
// samples sorted by (key, index). Results are therefore identical on any number of threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ci/kd_tree.hpp"
#include "core/dataset.hpp"
#include "core/hd.hpp"
#include "core/rng.hpp"
#include "ci/decision.hpp"

namespace cudag::ci {

/// Column transform applied before the statistic (tigramite's `transform`).
enum class CmiTransform : int { Ranks = 0, Standardize = 1, Uniform = 2, None = 3 };

/// Which column the local permutation shuffles (tigramite's `permute`, default Y).
enum class CmiPermute : int { Y = 0, X = 1 };

/// How tied values are separated (see the file comment).
enum class CmiTieBreak : int {
    Noise = 0,  ///< tigramite's 1e-6·std·U[0,1) noise, U from Philox keyed by (seed, var, t)
    Index = 1,  ///< no noise; equal values ranked in sample order (comparison only)
};

/// Stop drawing surrogates once the test can no longer reject independence: after b
/// surrogates with E exceedances, p ≥ (1 + E)/(1 + B) whatever the rest give, so once that
/// lower bound is independent under (alpha, strict) (skeleton::TestPolicy's rule: p ≥ alpha, or
/// p > alpha when strict) the decision is final. The reported p is then that lower bound.
struct CmiEarlyStop {
    double alpha = 0.01;
    bool strict = false;
};

/// Parameters of one CMIknn run (defaults: tigramite 5.2.10.1's; see docs/cmiknn.md for
/// where they differ from the GPU paper's k = 7, 15 shuffle neighbours, 100 permutations).
struct CmiKnnSpec {
    /// k for the estimator: a fraction of T when < 1 (k = max(1, ⌊knn·T⌋)), else ⌊knn⌋.
    double knn = 0.2;
    /// Size of each sample's neighbourhood in Z for the local permutation (itself included).
    int shuffle_neighbors = 5;
    /// Number of surrogates B.
    int permutations = 500;
    CmiTransform transform = CmiTransform::Ranks;
    CmiPermute permute = CmiPermute::Y;
    CmiTieBreak tie_break = CmiTieBreak::Noise;
    std::uint64_t seed = 42;
    std::optional<CmiEarlyStop> early_stop;
};

/// "ranks", "standardize", "uniform" or "none"; anything else is an InputError.
CmiTransform parse_cmi_transform(const std::string& name);
std::string to_string(CmiTransform t);
/// "x" or "y" (either case); anything else is an InputError.
CmiPermute parse_cmi_permute(const std::string& name);

/// Check `spec` for data of n_samples samples and tests with up to max_cond conditioning
/// variables; throws a one-line InputError naming the parameter (knn giving k ≥ T,
/// shuffle_neighbors ≥ T, too few samples, ...).
void validate(const CmiKnnSpec& spec, std::int64_t n_samples, int max_cond);

// ---- host-device math shared with the CUDA kernels ---------------------------------------

/// Digamma ψ(x) for x > 0: recurrence ψ(x) = ψ(x+1) − 1/x up to x ≥ 10, then the
/// asymptotic series to x^-12 (relative error below 1e-14 there).
CUDAG_HD inline double cmi_digamma(double x) {
    double acc = 0.0;
    while (x < 10.0) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    const double r = 1.0 / x;
    const double r2 = r * r;
    // Bernoulli terms B_2n / (2n x^2n): 1/12, −1/120, 1/252, −1/240, 1/132, −691/32760, 1/12.
    const double series =
        r2 *
        (1.0 / 12 -
         r2 * (1.0 / 120 - r2 * (1.0 / 252 - r2 * (1.0 / 240 - r2 * (1.0 / 132 - r2 * (691.0 / 32760 - r2 / 12))))));
    return acc + log(x) - 0.5 * r - series;
}

/// The estimator's k for T samples (tigramite: knn < 1 → max(1, int(knn·T)), else int(knn)).
CUDAG_HD inline std::int64_t cmi_k(double knn, std::int64_t n_samples) {
    if (knn < 1.0) {
        const auto k = static_cast<std::int64_t>(knn * static_cast<double>(n_samples));
        return k < 1 ? 1 : k;
    }
    return static_cast<std::int64_t>(knn);
}

/// The counting radius of sample i's ball of radius eps: tigramite's eps·0.999999999 (one
/// IEEE product, the same bits as NumPy's), so that "closer than eps" leaves out distances
/// within 1e-9 relative of eps, as tigramite does after its tie-breaking noise.
CUDAG_HD inline double cmi_count_radius(double eps) { return eps * 0.999999999; }

/// The counting rule: a sample at max-norm distance d from sample i counts in a subspace
/// of i's ball of radius eps when d ≤ cmi_count_radius(eps) (so at d = 0 even when eps = 0).
CUDAG_HD inline bool cmi_counts_point(double d, double eps) { return d <= cmi_count_radius(eps); }

/// Fixed-point sum of the estimator (how every engine adds up the T sample terms): each
/// ψ(c), c = 1..T, is rounded once to a multiple of 2^-b, b = cmi_fixed_bits(T), and the
/// T terms ψ(k_xz) + ψ(k_yz) − ψ(k_z) are added as 64-bit integers. An integer sum is exact
/// in any order, so a thread, a GPU block or an atomic may add in any order and the
/// statistic is the same bit for bit on every engine; the rounding moves it by less than
/// 3·2^-(b+1) (b ≥ 36 up to T = 2^20: below 5e-11). b is the largest (at most 44) for
/// which |sum| < T·(2·ψ(T) + 2)·2^b < 2^62, in integer arithmetic (ψ(T) < bit_width(T)).
CUDAG_HD inline int cmi_fixed_bits(std::int64_t n_samples) {
    auto width = [](std::uint64_t v) {
        int w = 0;
        while (v != 0) {
            ++w;
            v >>= 1;
        }
        return w;
    };
    const int wt = width(static_cast<std::uint64_t>(n_samples));
    const int b = 62 - wt - width(static_cast<std::uint64_t>(2 * wt + 2));
    return b < 44 ? b : 44;
}

/// The statistic ψ(k) − sum·2^-b / T from the fixed-point sum (host and device alike).
CUDAG_HD inline double cmi_from_fixed_sum(double psi_k, std::int64_t sum, int bits, std::int64_t n_samples) {
    return psi_k - ldexp(static_cast<double>(sum), -bits) / static_cast<double>(n_samples);
}

/// Brute-force counts of sample i for ball radius eps: k_xz, k_yz, k_z over all T samples
/// (O(T)). cols[0] is X, cols[1] Y, cols[2..2+nz) the Z columns (transformed values, one
/// pointer per column, host or device memory as the caller runs). k_z = T when nz == 0.
CUDAG_HD inline void cmi_counts_brute(const double* const* cols, int nz, std::int64_t n_samples, std::int64_t i,
                                      double eps, std::int64_t& k_xz, std::int64_t& k_yz, std::int64_t& k_z) {
    k_xz = k_yz = k_z = 0;
    for (std::int64_t j = 0; j < n_samples; ++j) {
        double dz = 0.0;
        for (int c = 0; c < nz; ++c) dz = fmax(dz, fabs(cols[2 + c][i] - cols[2 + c][j]));
        const double dxz = fmax(dz, fabs(cols[0][i] - cols[0][j]));
        const double dyz = fmax(dz, fabs(cols[1][i] - cols[1][j]));
        k_xz += cmi_counts_point(dxz, eps);
        k_yz += cmi_counts_point(dyz, eps);
        k_z += cmi_counts_point(dz, eps);
    }
    if (nz == 0) k_z = n_samples;
}

/// Permutation p-value (1 + exceedances) / (1 + B).
CUDAG_HD inline double cmi_pvalue(std::int64_t exceedances, std::int64_t permutations) {
    return (1.0 + static_cast<double>(exceedances)) / (1.0 + static_cast<double>(permutations));
}

/// Whether the p-value's lower bound after `exceedances` makes independence final (see
/// CmiEarlyStop).
CUDAG_HD inline bool cmi_can_stop(std::int64_t exceedances, std::int64_t permutations, double alpha, bool strict) {
    return Decision{alpha, strict}.independent(cmi_pvalue(exceedances, permutations));
}

/// A uniform index in [0, n) from 32 random bits (multiply-shift; bias below n / 2^32).
CUDAG_HD inline std::uint32_t cmi_draw_index(std::uint32_t bits, std::uint32_t n) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(bits) * n) >> 32);
}

/// Philox block index of sample i in surrogate s of a test (256 blocks per sample, so
/// s < 2^23, i < 2^32 and at most 1020 Fisher–Yates draws per sample).
CUDAG_HD inline std::uint64_t cmi_rng_block(std::uint64_t s, std::uint64_t i) { return (s << 40) | (i << 8); }

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
CUDAG_HD inline std::uint64_t cmi_mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Key of the conditioning set s[0] < ... < s[l−1] (variable indices, sorted): a SplitMix64
/// chain over (l, s_0, ..., s_{l−1}). It depends on the set only, not on the adjacency it
/// was drawn from nor on the number of variables, and never overflows (a combination
/// rank exceeds 64 bits at genome scale: C(20000, 5) > 2^64). Z = ∅ has key cmi_mix64(0).
CUDAG_HD inline std::uint64_t cmi_set_key(const std::int32_t* s, int l) {
    std::uint64_t h = cmi_mix64(static_cast<std::uint64_t>(l));
    for (int t = 0; t < l; ++t) h = cmi_mix64(h ^ (static_cast<std::uint64_t>(s[t]) + 1));
    return h;
}

/// The Philox stream of test X ⟂ Y | S: a mix of x, y (ordered: the test permutes one of
/// them) and the conditioning set's key (cmi_set_key). The PC engines test the pair as
/// (min, max) of its indices, so a test has one id whichever endpoint's row runs it.
CUDAG_HD inline std::uint64_t cmi_test_id(std::int64_t x, std::int64_t y, std::uint64_t set_key) {
    return cmi_mix64(cmi_mix64(cmi_mix64(static_cast<std::uint64_t>(x)) ^ static_cast<std::uint64_t>(y)) ^ set_key);
}

/// Salt of sample i's shuffle-neighbour query: neighbours at equal Z distance (common on
/// ranks with |Z| ≥ 2) are ordered by their L1 distance, then by kd_tie_key(salt, j), a
/// hash private to the query, so no sample is preferred by every query (docs/cmiknn.md: a
/// global order such as the index skews the null distribution).
CUDAG_HD inline std::uint64_t cmi_neighbor_salt(std::uint64_t seed, std::int64_t i) {
    return cmi_mix64(seed ^ cmi_mix64(static_cast<std::uint64_t>(i) + 0x632BE59BD9B4E019ull));
}

/// The tie-break uniform U[0, 1) of sample t of variable v: stream v, block 2^63 + ⌊t/2⌋
/// (the top bit keeps these blocks apart from every test's), words (0,1) for even t and
/// (2,3) for odd t.
CUDAG_HD inline double cmi_noise_uniform(std::uint64_t seed, std::uint64_t v, std::uint64_t t) {
    const Philox4x32Block b = philox_block(seed, v, (1ull << 63) | (t >> 1));
    return (t & 1) ? uniform_from_bits(b.v[2], b.v[3]) : uniform_from_bits(b.v[0], b.v[1]);
}

// ---- host engine ---------------------------------------------------------------------------

/// ψ(c) in fixed point with `bits` fraction bits (llrint(ldexp(cmi_digamma(c), bits))) for
/// c = 0..n, entry 0 = 0 (unused): the table CmiKnn sums for n samples with bits =
/// cmi_fixed_bits(n). Computed by the library's C++ (no contraction), for the GPU engines too.
std::vector<std::int64_t> cmi_psi_fixed(std::int64_t n, int bits);
/// ψ(c) = cmi_digamma(c) as CmiKnn computes it (the library's C++), for the GPU engines.
double cmi_psi(std::int64_t c);

/// Transform one column of n values as the engine does for variable `var` (host pointers):
/// tie-break noise 1e-6·std·U (CmiTieBreak::Noise; std of `in`, U = cmi_noise_uniform(seed,
/// var, t)), then `t`. `order` is scratch (n entries kept between calls).
void cmi_transform(const double* in, std::int64_t n, CmiTransform t, CmiTieBreak tie_break, std::uint64_t seed,
                   std::int64_t var, double* out, std::vector<std::int32_t>& order);

/// Outcome of one test.
struct CmiKnnResult {
    double statistic = 0.0;
    double p = 1.0;                ///< (1 + exceedances) / (1 + B); a lower bound if early_stopped
    std::int64_t surrogates = 0;   ///< surrogates that entered p (B unless early_stopped)
    std::int64_t exceedances = 0;  ///< of those, how many were ≥ the statistic
    bool early_stopped = false;
};

/// One thread's scratch for CmiKnn: the kd-trees, neighbour lists and per-surrogate
/// buffers. Sized on first use and reused, so a test allocates nothing once the sizes are
/// reached. Filled by CmiKnn; its members are not an interface.
struct CmiKnnWorkspace {
    MaxNormKdTree joint, perm_z, fixed_z, z;  ///< (P,F,Z), (P,Z), (F,Z), Z
    std::vector<double> heap;
    std::vector<MaxNormKdTree::Near> nn_heap;
    std::vector<double> query;            ///< one sample's coordinates
    std::vector<const double*> cols;      ///< column pointers of a tree being built
    std::vector<std::int32_t> neighbors;  ///< T × shuffle_neighbors, each row itself first
    std::vector<std::int32_t> shuffled;   ///< this surrogate's shuffled rows
    std::vector<std::uint64_t> keys;      ///< visiting-order keys
    std::vector<std::int32_t> order;      ///< visiting order / transform scratch
    std::vector<std::int32_t> source;     ///< sample whose value each sample takes
    std::vector<std::uint8_t> used;
    std::vector<double> perm_raw, perm_col;  ///< permuted column before/after transform
    std::vector<double> null;                ///< surrogate statistics, by surrogate index
    std::vector<std::int32_t> z_kept;        ///< the conditioning set without constant columns
};

/// CMIknn on one data set. The constructor validates the spec for tests with up to
/// max_cond conditioning variables and transforms every column once (tie-break noise keyed
/// by (seed, variable), so all tests see the same columns). `data` must outlive the object
/// (its raw columns feed the permuted surrogates). Tests are const and thread-safe given
/// one workspace per calling thread.
class CmiKnn {
public:
    CmiKnn(const Dataset& data, const CmiKnnSpec& spec, int max_cond = 3);

    const CmiKnnSpec& spec() const { return spec_; }
    std::int64_t n_samples() const { return n_; }
    std::int64_t n_vars() const { return n_vars_; }
    /// The estimator's k (cmi_k of spec.knn).
    std::int64_t k() const { return k_; }
    /// Transformed column of variable v as the statistic sees it: ranks for Ranks and
    /// Uniform (see the file comment), standardized or raw values (plus tie-break noise).
    const double* working_column(std::int64_t v) const { return work_.data() + v * n_; }

    /// Raw values of variable v (the data's column) and their population std.
    const double* raw_column(std::int64_t v) const { return raw_ + v * n_; }
    double raw_std(std::int64_t v) const { return raw_std_[static_cast<std::size_t>(v)]; }
    /// ψ(c) in fixed point (cmi_fixed_bits), c = 0..T (entry 0 unused), and its bits.
    const std::vector<std::int64_t>& psi_fixed() const { return psi_fixed_; }
    int fixed_bits() const { return fixed_bits_; }
    /// ψ(k) as the statistic takes it (cmi_digamma of the estimator's k).
    double psi_k() const { return psi_[static_cast<std::size_t>(k_)]; }
    /// The statistic of a fixed-point term sum (cmi_from_fixed_sum with this k and T).
    double statistic_from_sum(std::int64_t sum) const {
        return cmi_from_fixed_sum(psi_[static_cast<std::size_t>(k_)], sum, fixed_bits_, n_);
    }

    /// Whether every value of variable v is the same (see the file comment).
    bool constant(std::int64_t v) const { return constant_[static_cast<std::size_t>(v)] != 0; }

    /// The statistic I(x; y | z) (0 when x or y is constant; constant z columns dropped).
    double statistic(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const;

    /// Statistic and local-permutation p-value of x ⟂ y | z; random numbers from stream
    /// test_id (cmi_test_id). Surrogates run on workspaces.size() threads (at least one);
    /// workspaces[0] also holds the observed trees. The result does not depend on the
    /// number of workspaces; workspaces[0].null holds the surrogate statistics in order.
    CmiKnnResult test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t test_id,
                      std::span<CmiKnnWorkspace> workspaces) const;
    /// The same with `threads` workspaces made for this call.
    CmiKnnResult test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t test_id,
                      int threads = 1) const;
    /// As test(x, y, z, test_id, workspaces) with `early_stop` in place of the spec's (e.g.
    /// std::nullopt for the exact p-value of a test the spec would stop early).
    CmiKnnResult test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t test_id,
                      std::span<CmiKnnWorkspace> workspaces, const std::optional<CmiEarlyStop>& early_stop) const;

    /// Throws a one-line InputError unless x, y, z name distinct variables of the data
    /// (and, with z, the spec's shuffle neighbours fit the samples).
    void check_vars(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z) const;

private:
    /// Build the trees of the fixed column f: (F, Z) and Z (ws.cols keeps f, z...).
    void build_fixed(std::int32_t f, std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const;
    /// build_fixed plus the shuffle neighbours; the permuted column is p, the fixed one f.
    void prepare(std::int32_t p, std::int32_t f, std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const;
    /// Statistic from the prepared trees with the permuted column's values `pcol`
    /// (rebuilds ws.joint and ws.perm_z from it; fixed trees read from `fixed`).
    double statistic_with(const double* pcol, std::int32_t f, std::span<const std::int32_t> z,
                          const CmiKnnWorkspace& fixed, CmiKnnWorkspace& ws) const;
    /// z without its constant columns, in ws.z_kept.
    std::span<const std::int32_t> drop_constant(std::span<const std::int32_t> z, CmiKnnWorkspace& ws) const;
    /// Statistic of surrogate s.
    double surrogate(std::int64_t s, std::int32_t p, std::int32_t f, std::span<const std::int32_t> z,
                     std::uint64_t test_id, const CmiKnnWorkspace& fixed, CmiKnnWorkspace& ws) const;

    CmiKnnSpec spec_;
    std::int64_t n_ = 0;
    std::int64_t n_vars_ = 0;
    std::int64_t k_ = 1;
    const double* raw_ = nullptr;          ///< data.values (variable-major)
    std::vector<double> work_;             ///< transformed columns, variable-major
    std::vector<double> raw_std_;          ///< population std of each raw column
    std::vector<std::uint8_t> constant_;   ///< 1 where every value of the column is equal
    std::vector<double> psi_;              ///< ψ(0..T) (ψ(0) unused)
    std::vector<std::int64_t> psi_fixed_;  ///< ψ(0..T) in fixed point (cmi_fixed_bits)
    int fixed_bits_ = 44;
};

}  // namespace cudag::ci
