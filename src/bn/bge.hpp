// SPDX-License-Identifier: Apache-2.0
// The BGe score of Gaussian data (Geiger & Heckerman 2002, with the correction of Kuipers,
// Moffa & Heckerman 2014) in BiDAG's parameterisation: a normal-Wishart prior with prior
// mean 0, precision scale am (default 1), aw degrees of freedom (default n + am + 1) and
// prior scale matrix T0 = t I with t = am (aw - n - 1) / (am + 1); natural logarithm.
//
// With N samples, sample means m and centred sums of squares S, the posterior scale matrix
// is TN = T0 + S + (am N / (am + N)) m m^T. The local score of node j with l parents P is
//   c_l - ((aw + N - n + l + 1) / 2) log(TN_jj - TN_jP TN_PP^-1 TN_Pj) - (1/2) log det TN_PP,
//   c_l = -(N/2) log(pi) + (1/2) log(am / (am + N)) - lgamma(a/2) + lgamma((a + N)/2)
//         + ((a + l)/2) log t,   a = aw - n + l + 1,
// the log marginal likelihood of the family {j} ∪ P minus that of P.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bn/score.hpp"
#include "core/dataset.hpp"
#include "core/exact_math.hpp"
#include "core/hd.hpp"

namespace cudag::bn {

/// BGe's am must lie in [kAmMin, kAmMax] and aw in (n + 1, n + 1 + kAwExcessMax]: beyond
/// them t = am (aw - n - 1) / (am + 1), log(am / (am + N)) or lgamma(aw / 2) overflow or
/// underflow and the local score is NaN or infinite (issue 33 item 7). The default aw,
/// n + 1 + am, lies inside whenever am does.
inline constexpr double kAmMin = 1e-6;
inline constexpr double kAmMax = 1e6;
inline constexpr double kAwExcessMax = 1e6;
/// Fewest samples BGe scores (InputError below, as PC's Fisher-z refuses too few).
inline constexpr std::int64_t kBgeMinSamples = 3;

/// BGe's hyper-parameters; aw unset means n + am + 1 (BiDAG's default).
struct BgeSpec {
    double am = 1.0;
    std::optional<double> aw;
};

/// The part of BGe's local score that depends on the data only through TN: `tn` is the
/// n × n posterior scale matrix (row-major, leading dimension `ld`), `parents` its l
/// parent indices, `c_l` the constant for l parents and `awpn_n` = aw + N - n. `scratch`
/// holds l * (l + 1) doubles (the Cholesky factor of TN_PP, then the solve). Host memory, or device memory in a
/// kernel. sqrt is correctly rounded on both sides and log is xm::log, so the bits agree.
CUDAG_HD inline double bge_local_score(const double* tn, std::int64_t ld, std::int32_t node,
                                       const std::int32_t* parents, std::int32_t l, double c_l, double awpn_n,
                                       double* scratch) {
    // L L^T = TN_PP (lower triangular, row-major in scratch); then with L y = TN_Pj,
    // TN_jj - TN_jP TN_PP^-1 TN_Pj = TN_jj - |y|^2 and log det TN_PP = 2 sum log L_ii.
    double log_det = 0.0;
    for (std::int32_t a = 0; a < l; ++a) {
        for (std::int32_t b = 0; b <= a; ++b) {
            double v = tn[parents[a] * ld + parents[b]];
            for (std::int32_t c = 0; c < b; ++c) v -= scratch[a * l + c] * scratch[b * l + c];
            if (a == b) {
                const double d = sqrt(v);
                scratch[a * l + a] = d;
                log_det += 2.0 * xm::log(d);
            } else {
                scratch[a * l + b] = v / scratch[b * l + b];
            }
        }
    }
    double rest = tn[node * ld + node];
    double* y = scratch + static_cast<std::int64_t>(l) * l;
    for (std::int32_t a = 0; a < l; ++a) {  // forward substitution
        double v = tn[parents[a] * ld + node];
        for (std::int32_t c = 0; c < a; ++c) v -= scratch[a * l + c] * y[c];
        y[a] = v / scratch[a * l + a];
        rest -= y[a] * y[a];
    }
    return c_l - 0.5 * (awpn_n + l + 1) * xm::log(rest) - 0.5 * log_det;
}

/// BGe local and DAG scores of continuous data (Dataset with no levels).
class BgeScorer final : public LocalScorer {
public:
    /// Throws InputError when am or aw lies outside the ranges above (aw <= n + 1: T0 would
    /// not be positive definite).
    BgeScorer(const Dataset& data, const BgeSpec& spec);

    std::int64_t n_vars() const override { return n_; }
    double local(std::int32_t node, std::span<const std::int32_t> parents) const override;

    double am() const { return am_; }
    double aw() const { return aw_; }
    /// The posterior scale matrix TN, n × n row-major.
    const std::vector<double>& tn() const { return tn_; }
    /// c_l for l = 0 .. n-1 and aw + N - n: bge_local_score's other arguments (a GPU copy).
    const std::vector<double>& consts() const { return consts_; }
    double awpn_n() const { return awpn_n_; }

private:
    std::int64_t n_ = 0;
    double am_ = 1.0, aw_ = 0.0;
    std::vector<double> tn_;
    std::vector<double> consts_;  ///< c_l for l = 0 .. n-1
    double awpn_n_ = 0.0;         ///< aw + N - n
};

}  // namespace cudag::bn
