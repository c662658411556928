// SPDX-License-Identifier: Apache-2.0
// Local scores of a discrete Bayesian network from counts, as bnlearn defines them
// (log marginal likelihoods; natural logarithm). Plain functions over one node's
// contingency table, host-device friendly so that a score-table kernel can share them.
//
// The table holds one row per *observed* parent configuration j (N_j > 0) and one column
// per level k of the node: counts[j * r + k] = N_jk. A parent configuration that no
// sample shows contributes exactly zero to both scores, so it needs no row; the prior
// still counts it through q, the number of all parent configurations (the product of the
// parents' level counts; 1 without parents).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::bn {

/// lgamma is xm::lgamma (core/exact_math.hpp), so a kernel's scores equal the CPU's bit for bit.
///
/// The Bayesian-Dirichlet local score with every a_jk = `a_jk` (so a_j = r a_jk):
///   sum_j [lgamma(a_j) - lgamma(a_j + N_j)] + sum_jk [lgamma(a_jk + N_jk) - lgamma(a_jk)]
/// over the observed configurations j (an unobserved one adds lgamma(a_j) - lgamma(a_j) = 0).
/// A cell's term of bd_local_score: lgamma(a_jk + n) - lgamma(a_jk) (lg_a_jk).
CUDAG_HD inline double bd_cell_term(double a_jk, double lg_a_jk, double n) { return xm::lgamma(a_jk + n) - lg_a_jk; }

/// A row's term of bd_local_score: lgamma(a_j) (lg_a_j) - lgamma(a_j + n_j).
CUDAG_HD inline double bd_row_term(double a_j, double lg_a_j, double n_j) { return lg_a_j - xm::lgamma(a_j + n_j); }

/// bd_local_score's sum with its terms given: cell(n) for each nonzero count n, row by row
/// in order and level by level, then row(n_j) for the row's total (both integers).
template <class Cell, class Row>
CUDAG_HD double bd_local_score_terms(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, Cell&& cell,
                                     Row&& row) {
    double score = 0.0;
    for (std::int64_t j = 0; j < rows; ++j) {
        const std::uint32_t* cs = counts + j * r;
        std::uint64_t n_j = 0;
        for (std::int32_t k = 0; k < r; ++k) {
            if (cs[k] == 0) continue;
            n_j += cs[k];
            score += cell(cs[k]);
        }
        score += row(n_j);
    }
    return score;
}

CUDAG_HD inline double bd_local_score(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_jk) {
    const double a_j = a_jk * static_cast<double>(r);
    const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
    // n_j, a sum of integer counts, is exact in a double.
    return bd_local_score_terms(
        counts, rows, r, [&](std::uint32_t n) { return bd_cell_term(a_jk, lg_a_jk, static_cast<double>(n)); },
        [&](std::uint64_t n_j) { return bd_row_term(a_j, lg_a_j, static_cast<double>(n_j)); });
}

/// bd_local_score's terms tabulated for one a_jk and r (issue 37): cell[c] =
/// bd_cell_term(a_jk, ., c) and row[c] = bd_row_term(a_j, ., c) for c in [0, samples], the same
/// doubles as bd_local_score computes (its counts are integers, its n_j exact sums of them).
/// BDeu's a_jk = iss / (q r) depends on the node only through (q, r), K2's not at all, so a
/// score table needs a few of these, and a score becomes lookups.
CUDAG_HD inline void bd_term_tables(double a_jk, std::int32_t r, std::int64_t samples, double* cell, double* row) {
    const double a_j = a_jk * static_cast<double>(r);
    const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
    for (std::int64_t c = 0; c <= samples; ++c) {
        cell[c] = bd_cell_term(a_jk, lg_a_jk, static_cast<double>(c));
        row[c] = bd_row_term(a_j, lg_a_j, static_cast<double>(c));
    }
}

/// bd_local_score from tabulated terms (bd_term_tables for its a_jk and r): the same sum in
/// the same order, each term looked up (n_j, an integer, indexes the row terms).
CUDAG_HD inline double bd_local_score_tabulated(const std::uint32_t* counts, std::int64_t rows, std::int32_t r,
                                                const double* cell, const double* row) {
    return bd_local_score_terms(
        counts, rows, r, [&](std::uint32_t n) { return cell[n]; }, [&](std::uint64_t n_j) { return row[n_j]; });
}

/// Set bits of a 32-bit word, on host and device.
CUDAG_HD inline int popcount32(std::uint32_t x) {
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

/// One-hot sample bitsets of discrete data (issue 37): set b = 1 + offs[u] + k holds bit s
/// (word s / 32, bit s % 32) where variable u takes level k in sample s; set 0 holds every
/// sample. Each set is `words` 32-bit words; bits past the samples are zero.
struct SampleBits {
    const std::uint32_t* bits;  ///< (1 + sum of levels) × words
    const std::int32_t* offs;   ///< per variable, its first level's set less one
    const std::int32_t* cards;  ///< levels per variable
    std::int64_t words;
};

inline constexpr int kBitsetMaxParents = 6;  ///< parents bd_bitset_score takes

#if defined(__CUDA_ARCH__)
#define CUDAG_BITSET_UNROLL _Pragma("unroll")
#else
#define CUDAG_BITSET_UNROLL
#endif

/// bd_bitset_score for KK parents (a compile-time count, so that the parents' set pointers
/// stay in registers).
template <int KK>
CUDAG_HD double bd_bitset_score_k(const SampleBits& B, std::int32_t v, const std::int32_t* ps, std::int64_t qi,
                                  const double* cell, const double* row) {
    const std::int64_t W = B.words;
    const std::int32_t r = B.cards[v];
    const std::uint32_t* vb = B.bits + (1 + static_cast<std::int64_t>(B.offs[v])) * W;
    // The row's parent levels, an odometer (parent 0 most significant), and their sets.
    std::int32_t card[KK > 0 ? KK : 1], level[KK > 0 ? KK : 1];
    const std::uint32_t *base[KK > 0 ? KK : 1], *pb[KK > 0 ? KK : 1];
    CUDAG_BITSET_UNROLL
    for (int t = 0; t < KK; ++t) {
        card[t] = B.cards[ps[t]];
        level[t] = 0;
        base[t] = pb[t] = B.bits + (1 + static_cast<std::int64_t>(B.offs[ps[t]])) * W;
    }
    const std::int32_t passes = r > 1 ? r - 1 : 1;
    double score = 0.0;
    for (std::int64_t j = 0; j < qi; ++j) {
        std::int64_t n_j = 0, seen = 0;
        for (std::int32_t k = 0; k < passes; ++k) {
            const std::uint32_t* vk = vb + static_cast<std::int64_t>(k) * W;
            std::int64_t n = 0, all = 0;
            for (std::int64_t w = 0; w < W; ++w) {
                std::uint32_t m = B.bits[w];
                if constexpr (KK > 0) m = pb[0][w];
                CUDAG_BITSET_UNROLL
                for (int t = 1; t < KK; ++t) m &= pb[t][w];
                if (k == 0) all += popcount32(m);
                n += popcount32(m & vk[w]);
            }
            if (k == 0) n_j = all;
            seen += n;
            if (n != 0) score += cell[n];
        }
        if (r > 1 && n_j - seen != 0) score += cell[n_j - seen];
        score += row[n_j];
        CUDAG_BITSET_UNROLL
        for (int t = KK - 1; t >= 0; --t) {  // the next row
            if (++level[t] < card[t]) {
                pb[t] += W;
                break;
            }
            level[t] = 0;
            pb[t] = base[t];
        }
    }
    return score;
}
#undef CUDAG_BITSET_UNROLL

/// bd_bitset_score_k<kk> for a run-time kk in [KK, kBitsetMaxParents].
template <int KK>
CUDAG_HD double bd_bitset_score_from(const SampleBits& B, std::int32_t v, const std::int32_t* ps, int kk,
                                     std::int64_t qi, const double* cell, const double* row) {
    if constexpr (KK < kBitsetMaxParents) {
        if (kk != KK) return bd_bitset_score_from<KK + 1>(B, v, ps, kk, qi, cell, row);
    }
    return bd_bitset_score_k<KK>(B, v, ps, qi, cell, row);
}

/// bd_local_score of node v under parents ps[0, kk) (kk <= kBitsetMaxParents, q = qi parent
/// configurations) from sample bitsets and tables of its terms (bd_term_tables for its a_jk),
/// equal bit for bit: the rows j in the dense counts' order (parent 0 most significant), a
/// row's nonzero cells by level, then the row (an empty row adds row[0] = +0). A row's counts
/// are popcounts of ANDs of its parents' level sets with v's level sets, the last level's
/// count the row's total less the others.
CUDAG_HD inline double bd_bitset_score(const SampleBits& B, std::int32_t v, const std::int32_t* ps, int kk,
                                       std::int64_t qi, const double* cell, const double* row) {
    return bd_bitset_score_from<0>(B, v, ps, kk, qi, cell, row);
}

/// BDeu (bnlearn "bde" with its uniform prior): a_jk = iss / (r q), with q the number of
/// all parent configurations.
CUDAG_HD inline double bdeu_local_score(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double q,
                                        double iss) {
    return bd_local_score(counts, rows, r, iss / (q * static_cast<double>(r)));
}

/// K2 (Cooper & Herskovits; bnlearn "k2"): every a_jk = 1. q does not enter.
CUDAG_HD inline double k2_local_score(const std::uint32_t* counts, std::int64_t rows, std::int32_t r) {
    return bd_local_score(counts, rows, r, 1.0);
}

/// bd_superset_bound's sum, each nonzero count's term as term(count, compute) gives it
/// (compute() computes it): a caller may keep the terms of the counts it has seen.
template <class Term>
CUDAG_HD double bd_superset_bound_terms(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_min,
                                        Term&& term) {
    const double ra = a_min * static_cast<double>(r);
    const double lg_a = xm::lgamma(a_min), lg_ra = xm::lgamma(ra);
    double bound = 0.0;
    for (std::int64_t i = 0; i < rows * r; ++i) {
        if (counts[i] == 0) continue;
        const double n = static_cast<double>(counts[i]);
        bound += term(counts[i], [&] { return (xm::lgamma(a_min + n) - lg_a) + (lg_ra - xm::lgamma(ra + n)); });
    }
    return bound;
}

/// An upper bound on the BD local score of every parent set that refines these counts'
/// configurations (any superset of their parents) and whose a_jk is at least `a_min` (issue
/// 37; de Campos & Ji 2011, the bound of §4 taken per level as in Correia, Cussens & de Campos
/// 2019): the score with each observed configuration's samples split into groups that hold
/// one level each, under a_jk = a_min,
///   sum over the nonzero N_jk of lgamma(a_min + N_jk) - lgamma(a_min)
///                              + lgamma(r a_min) - lgamma(r a_min + N_jk).
/// Why it bounds: a configuration's term is the log probability of its samples' sequence
/// under a Dirichlet-multinomial, prod_t (a + c_t) / (r a + t) taking the samples one level
/// after another (c_t: earlier samples of the same level). (i) A group's samples split by
/// level score at least as high as the group (the numerators are the same, the
/// denominators prod_t (r a + t) only shrink); (ii) two groups of one level score at most as
/// high as their union ((a + t) / (r a + t) grows with t); (iii) each factor (a + t) /
/// (r a + t) shrinks as a grows (r >= 1), so the smallest a_jk bounds every larger one.
CUDAG_HD inline double bd_superset_bound(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_min) {
    return bd_superset_bound_terms(counts, rows, r, a_min, [](std::uint32_t, auto&& compute) { return compute(); });
}

}  // namespace cudag::bn
