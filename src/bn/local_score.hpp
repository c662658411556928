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

}  // namespace cudag::bn
