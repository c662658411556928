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
CUDAG_HD inline double bd_local_score(const std::uint32_t* counts, std::int64_t rows, std::int32_t r, double a_jk) {
    const double a_j = a_jk * static_cast<double>(r);
    const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
    double score = 0.0;
    for (std::int64_t j = 0; j < rows; ++j) {
        const std::uint32_t* row = counts + j * r;
        double n_j = 0.0;
        for (std::int32_t k = 0; k < r; ++k) {
            if (row[k] == 0) continue;
            const double n = static_cast<double>(row[k]);
            n_j += n;
            score += xm::lgamma(a_jk + n) - lg_a_jk;
        }
        score += lg_a_j - xm::lgamma(a_j + n_j);
    }
    return score;
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
    const double ra = a_min * static_cast<double>(r);
    const double lg_a = xm::lgamma(a_min), lg_ra = xm::lgamma(ra);
    double bound = 0.0;
    for (std::int64_t i = 0; i < rows * r; ++i) {
        if (counts[i] == 0) continue;
        const double n = static_cast<double>(counts[i]);
        bound += (xm::lgamma(a_min + n) - lg_a) + (lg_ra - xm::lgamma(ra + n));
    }
    return bound;
}

}  // namespace cudag::bn
