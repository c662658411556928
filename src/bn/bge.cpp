// SPDX-License-Identifier: Apache-2.0
#include "bn/bge.hpp"

#include <numbers>
#include <string>

#include "core/error.hpp"

namespace cudag::bn {

BgeScorer::BgeScorer(const Dataset& data, const BgeSpec& spec) : n_(data.n_vars), am_(spec.am) {
    CUDAG_EXPECTS(!data.discrete(), "BGe scores continuous data");
    // As PC's Fisher-z refuses too few samples: one or two give a sample covariance of at
    // most one degree of freedom, and every DAG's score then comes from the prior alone.
    if (data.n_samples < kBgeMinSamples)
        throw InputError((data.source.empty() ? std::string("the data") : data.source) + ": " +
                         std::to_string(data.n_samples) + " sample" + (data.n_samples == 1 ? "" : "s") +
                         "; BGe needs at least " + std::to_string(kBgeMinSamples));
    const auto n = static_cast<double>(n_);
    aw_ = spec.aw ? *spec.aw : n + am_ + 1.0;
    if (!(am_ >= kAmMin && am_ <= kAmMax))
        throw InputError("BGe: am must lie in [1e-6, 1e6] (got " + std::to_string(am_) + ")");
    if (!(aw_ > n + 1.0 && aw_ - n - 1.0 <= kAwExcessMax))
        throw InputError("BGe: aw must lie in (n + 1, n + 1 + 1e6] with n + 1 = " + std::to_string(n_ + 1) +
                         " the number of variables + 1 (got " + std::to_string(aw_) + ")");
    const std::int64_t m = data.n_samples;
    const auto big_n = static_cast<double>(m);
    const double t = am_ * (aw_ - n - 1.0) / (am_ + 1.0);

    std::vector<double> mean(static_cast<std::size_t>(n_), 0.0);
    for (std::int64_t v = 0; v < n_; ++v) {
        double sum = 0.0;
        for (std::int64_t s = 0; s < m; ++s) sum += data.column(v)[s];
        mean[v] = m ? sum / big_n : 0.0;
    }
    // TN = t I + S + (am N / (am + N)) (mu0 - m)(mu0 - m)^T with mu0 = 0.
    const double shrink = am_ * big_n / (am_ + big_n);
    tn_.assign(static_cast<std::size_t>(n_ * n_), 0.0);
    for (std::int64_t a = 0; a < n_; ++a)
        for (std::int64_t b = 0; b <= a; ++b) {
            const double* x = data.column(a);
            const double* y = data.column(b);
            double s = 0.0;
            for (std::int64_t k = 0; k < m; ++k) s += (x[k] - mean[a]) * (y[k] - mean[b]);
            const double v = s + shrink * mean[a] * mean[b] + (a == b ? t : 0.0);
            tn_[a * n_ + b] = tn_[b * n_ + a] = v;
        }
    const double base = -0.5 * big_n * std::log(std::numbers::pi) + 0.5 * std::log(am_ / (am_ + big_n));
    consts_.resize(static_cast<std::size_t>(n_));
    for (std::int64_t l = 0; l < n_; ++l) {
        const double a = aw_ - n + static_cast<double>(l) + 1.0;
        consts_[l] = base - std::lgamma(0.5 * a) + std::lgamma(0.5 * (a + big_n)) +
                     0.5 * (a + static_cast<double>(l)) * std::log(t);
    }
    awpn_n_ = aw_ + big_n - n;
}

double BgeScorer::local(std::int32_t node, std::span<const std::int32_t> parents) const {
    const auto l = static_cast<std::int32_t>(parents.size());
    CUDAG_ASSERT(node >= 0 && node < n_ && l < n_);
    std::vector<double> scratch(static_cast<std::size_t>(l) * static_cast<std::size_t>(l + 1));
    return bge_local_score(tn_.data(), n_, node, parents.data(), l, consts_[l], awpn_n_, scratch.data());
}

}  // namespace cudag::bn
