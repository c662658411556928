// SPDX-License-Identifier: Apache-2.0
#include "ci/parcorr.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ci/student_t.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"

namespace cudag::ci {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t kShuffleStreamTag = 0x5AFF'1E00'0000'0000ull;    // block_shuffle_order's streams
constexpr std::uint64_t kBootstrapStreamTag = 0xB10C'B007'0000'0000ull;  // block_bootstrap_rows's streams

/// floor(u * k) for u in [0, 1) from `rng`: an index below k (the min guards k near 2^53).
std::int64_t below(CounterRng& rng, std::int64_t k) {
    const auto x = static_cast<std::int64_t>(rng.uniform() * static_cast<double>(k));
    return std::min(x, k - 1);
}

void check_blocks(std::int64_t t, std::int64_t blocklength, const char* what) {
    if (t < 1) throw InputError(std::string(what) + " needs at least 1 sample, got " + std::to_string(t));
    if (blocklength < 1 || blocklength > t) {
        std::string m = what;
        m += ": the block length must be in [1, T = ";
        m += std::to_string(t);
        m += "], got ";
        m += std::to_string(blocklength);
        throw InputError(m);
    }
}

double mean(const double* c, std::int64_t t) {
    double s = 0.0;
    for (std::int64_t i = 0; i < t; ++i) s += c[i];
    return s / static_cast<double>(t);
}

/// tigramite's standardisation of one row: subtract the mean, then divide by the population
/// standard deviation (numpy's std: the mean of the squared deviations from the centred
/// values' own mean) unless it is 0.
void standardise(double* c, std::int64_t t) {
    const double m = mean(c, t);
    for (std::int64_t i = 0; i < t; ++i) c[i] -= m;
    const double m2 = mean(c, t);
    double ss = 0.0;
    for (std::int64_t i = 0; i < t; ++i) ss += (c[i] - m2) * (c[i] - m2);
    const double sd = std::sqrt(ss / static_cast<double>(t));
    if (sd != 0.0)
        for (std::int64_t i = 0; i < t; ++i) c[i] /= sd;
}

/// The generator of one replicate (stream tag + replicate under seed) of a block resampling
/// of t rows, after checking the block length.
CounterRng block_rng(std::int64_t t, std::int64_t blocklength, std::uint64_t seed, std::uint64_t tag,
                     std::int64_t replicate, const char* what) {
    check_blocks(t, blocklength, what);
    CUDAG_EXPECTS(replicate >= 0, "block resampling: negative replicate");
    return CounterRng(seed, tag + static_cast<std::uint64_t>(replicate));
}

bool all_equal(const double* values, std::int64_t t, int dim, int col) {
    for (std::int64_t i = 1; i < t; ++i)
        if (values[i * dim + col] != values[col]) return false;
    return true;
}

/// Residuals of the columns `targets` (each t values) after least squares on the k columns
/// of z (column-major, destroyed): Householder QR with column pivoting; a column whose
/// remaining norm is <= eps·max(t, k) times the first pivot's is left out (rank-deficient
/// Z: the residual is the projection onto Z's column space's complement either way).
void residualise(std::vector<double>& z, std::int64_t t, int k, std::vector<double*> targets) {
    if (k == 0) return;
    std::vector<std::vector<double>> reflectors;  // v (rows r..t-1) of H_r = I − β v vᵀ
    std::vector<double> betas;
    const auto col = [&](int j) { return z.data() + static_cast<std::int64_t>(j) * t; };
    const auto apply = [&](int r, double* x) {
        const std::vector<double>& v = reflectors[r];
        double s = 0.0;
        for (std::int64_t i = r; i < t; ++i) s += v[i - r] * x[i];
        s *= betas[r];
        for (std::int64_t i = r; i < t; ++i) x[i] -= s * v[i - r];
    };
    const double eps = std::numeric_limits<double>::epsilon();
    double tol = 0.0;
    int rank = 0;
    for (int r = 0; r < k && r < t; ++r) {
        int p = r;
        double best = -1.0;
        for (int j = r; j < k; ++j) {
            double s = 0.0;
            for (std::int64_t i = r; i < t; ++i) s += col(j)[i] * col(j)[i];
            if (s > best) best = s, p = j;
        }
        const double norm = std::sqrt(best);
        if (r == 0) tol = eps * static_cast<double>(std::max<std::int64_t>(t, k)) * norm;
        if (!(norm > tol)) break;
        if (p != r) std::swap_ranges(col(p), col(p) + t, col(r));
        double* c = col(r);
        const double alpha = c[r] >= 0.0 ? -norm : norm;
        std::vector<double> v(c + r, c + t);
        v[0] -= alpha;
        double vv = 0.0;
        for (double e : v) vv += e * e;
        reflectors.push_back(std::move(v));
        betas.push_back(vv > 0.0 ? 2.0 / vv : 0.0);
        for (int j = r; j < k; ++j) apply(r, col(j));
        for (double* x : targets) apply(r, x);
        ++rank;
    }
    for (double* x : targets) {
        std::fill(x, x + rank, 0.0);  // drop the part in Z's column space
        for (int r = rank - 1; r >= 0; --r) apply(r, x);
    }
}

/// scipy.stats.pearsonr's statistic (1.x): centred values scaled by their largest
/// magnitude before the norm, the dot product of the normalised vectors, clipped to [-1, 1].
double pearson(const double* x, const double* y, std::int64_t t) {
    const double mx = mean(x, t), my = mean(y, t);
    std::vector<double> xm(x, x + t), ym(y, y + t);
    double xmax = 0.0, ymax = 0.0;
    for (std::int64_t i = 0; i < t; ++i) {
        xm[i] -= mx;
        ym[i] -= my;
        xmax = std::max(xmax, std::fabs(xm[i]));
        ymax = std::max(ymax, std::fabs(ym[i]));
    }
    double sx = 0.0, sy = 0.0;
    for (std::int64_t i = 0; i < t; ++i) {
        sx += (xm[i] / xmax) * (xm[i] / xmax);
        sy += (ym[i] / ymax) * (ym[i] / ymax);
    }
    const double nx = xmax * std::sqrt(sx), ny = ymax * std::sqrt(sy);
    double r = 0.0;
    for (std::int64_t i = 0; i < t; ++i) r += (xm[i] / nx) * (ym[i] / ny);
    return std::clamp(r, -1.0, 1.0);
}

}  // namespace

double parcorr_p_value(double value, std::int64_t t, int dim) {
    const std::int64_t df = t - dim;
    if (df < 1) return kNaN;
    if (std::fabs(std::fabs(value) - 1.0) <= DBL_MIN) return 0.0;
    const double trafo = value * std::sqrt(static_cast<double>(df) / (1.0 - value * value));
    return student_t_sf(std::fabs(trafo), static_cast<double>(df)) * 2.0;
}

ParCorrResult parcorr(const double* values, std::int64_t t, int dim) {
    if (dim < 2) throw InputError("ParCorr needs X and Y (at least 2 columns), got " + std::to_string(dim));
    if (t < 2) throw InputError("ParCorr needs at least 2 samples, got " + std::to_string(t));
    for (std::int64_t i = 0; i < t * dim; ++i)
        if (!std::isfinite(values[i]))
            throw InputError("ParCorr: the value at sample " + std::to_string(i / dim) + ", column " +
                             std::to_string(i % dim) + " is not finite");
    ParCorrResult res;
    res.degrees_of_freedom = t - dim;
    // Column-major copies: X, Y and Z, each standardised.
    std::vector<double> xy(static_cast<std::size_t>(2 * t));
    std::vector<double> z(static_cast<std::size_t>((dim - 2) * t));
    for (std::int64_t i = 0; i < t; ++i) {
        xy[i] = values[i * dim];
        xy[t + i] = values[i * dim + 1];
        for (int j = 2; j < dim; ++j) z[(j - 2) * t + i] = values[i * dim + j];
    }
    standardise(xy.data(), t);
    standardise(xy.data() + t, t);
    for (int j = 0; j < dim - 2; ++j) standardise(z.data() + static_cast<std::int64_t>(j) * t, t);
    if (all_equal(values, t, dim, 0) || all_equal(values, t, dim, 1)) {
        // pearsonr of a constant residual: NaN (scipy warns ConstantInputWarning).
        res.value = kNaN;
        res.p_value = kNaN;
        return res;
    }
    residualise(z, t, dim - 2, {xy.data(), xy.data() + t});
    res.value = pearson(xy.data(), xy.data() + t, t);
    if (t == 2) res.value = std::round(res.value);  // pearsonr's exact ±1 for two samples
    res.p_value = parcorr_p_value(res.value, t, dim);
    return res;
}

ParCorrResiduals parcorr_residuals(const double* values, std::int64_t t, int dim, int target, bool standardize) {
    if (dim < 2) throw InputError("ParCorr residuals need X and Y (at least 2 columns), got " + std::to_string(dim));
    if (target != 0 && target != 1)
        throw InputError("ParCorr residuals: target_var must be 0 or 1, got " + std::to_string(target));
    if (t < 1) throw InputError("ParCorr residuals need at least 1 sample, got " + std::to_string(t));
    for (std::int64_t i = 0; i < t * dim; ++i)
        if (!std::isfinite(values[i]))
            throw InputError("ParCorr residuals: the value at sample " + std::to_string(i / dim) + ", column " +
                             std::to_string(i % dim) + " is not finite");
    ParCorrResiduals r;
    r.residual.resize(static_cast<std::size_t>(t));
    std::vector<double> z(static_cast<std::size_t>((dim - 2) * t));
    for (std::int64_t i = 0; i < t; ++i) {
        r.residual[i] = values[i * dim + target];
        for (int j = 2; j < dim; ++j) z[(j - 2) * t + i] = values[i * dim + j];
    }
    if (standardize) {
        standardise(r.residual.data(), t);
        for (int j = 0; j < dim - 2; ++j) standardise(z.data() + static_cast<std::int64_t>(j) * t, t);
    }
    if (dim == 2) return r;
    const std::vector<double> y = r.residual;
    residualise(z, t, dim - 2, {r.residual.data()});
    r.fitted.resize(static_cast<std::size_t>(t));
    for (std::int64_t i = 0; i < t; ++i) r.fitted[i] = y[i] - r.residual[i];
    return r;
}

std::vector<std::int64_t> block_shuffle_order(std::int64_t t, std::int64_t blocklength, std::uint64_t seed,
                                              std::int64_t replicate) {
    CounterRng rng = block_rng(t, blocklength, seed, kShuffleStreamTag, replicate, "ParCorr's block shuffle");
    const std::int64_t n_blocks = t / blocklength;
    std::vector<std::int64_t> blocks(static_cast<std::size_t>(n_blocks));
    for (std::int64_t k = 0; k < n_blocks; ++k) blocks[k] = k;
    for (std::int64_t k = n_blocks - 1; k > 0; --k) std::swap(blocks[k], blocks[below(rng, k + 1)]);  // Fisher-Yates
    const std::int64_t tail = t - n_blocks * blocklength;
    const std::int64_t tail_at = tail > 0 ? below(rng, n_blocks) : n_blocks;
    std::vector<std::int64_t> order;
    order.reserve(static_cast<std::size_t>(t));
    for (std::int64_t k = 0; k < n_blocks; ++k) {
        if (k == tail_at)
            for (std::int64_t i = n_blocks * blocklength; i < t; ++i) order.push_back(i);
        for (std::int64_t b = 0; b < blocklength; ++b) order.push_back(blocks[k] * blocklength + b);
    }
    return order;
}

std::vector<std::int64_t> block_bootstrap_rows(std::int64_t t, std::int64_t blocklength, std::uint64_t seed,
                                               std::int64_t replicate) {
    CounterRng rng = block_rng(t, blocklength, seed, kBootstrapStreamTag, replicate, "ParCorr's block bootstrap");
    const std::int64_t n_blocks = (t + blocklength - 1) / blocklength;
    std::vector<std::int64_t> rows;
    rows.reserve(static_cast<std::size_t>(n_blocks * blocklength));
    for (std::int64_t k = 0; k < n_blocks; ++k) {
        const std::int64_t start = below(rng, t - blocklength + 1);
        for (std::int64_t b = 0; b < blocklength; ++b) rows.push_back(start + b);
    }
    rows.resize(static_cast<std::size_t>(t));
    return rows;
}

std::vector<double> parcorr_shuffle_null(const double* x, const double* y, std::int64_t t, std::int64_t samples,
                                         std::int64_t blocklength, std::uint64_t seed) {
    check_blocks(t, blocklength, "ParCorr's shuffle test");
    if (samples < 1) throw InputError("ParCorr's shuffle test needs sig_samples >= 1, got " + std::to_string(samples));
    std::vector<double> null(static_cast<std::size_t>(samples));
    std::vector<double> xs(static_cast<std::size_t>(t));
    const bool constant = all_equal(x, t, 1, 0) || all_equal(y, t, 1, 0);
    for (std::int64_t r = 0; r < samples; ++r) {
        if (constant) {
            null[r] = kNaN;
            continue;
        }
        const std::vector<std::int64_t> order = block_shuffle_order(t, blocklength, seed, r);
        for (std::int64_t i = 0; i < t; ++i) xs[i] = x[order[i]];
        null[r] = pearson(xs.data(), y, t);
    }
    return null;
}

std::vector<double> parcorr_bootstrap(const double* values, std::int64_t t, int dim, std::int64_t samples,
                                      std::int64_t blocklength, std::uint64_t seed) {
    check_blocks(t, blocklength, "ParCorr's bootstrap");
    if (samples < 1) throw InputError("ParCorr's bootstrap needs conf_samples >= 1, got " + std::to_string(samples));
    if (dim < 2) throw InputError("ParCorr needs X and Y (at least 2 columns), got " + std::to_string(dim));
    std::vector<double> dist(static_cast<std::size_t>(samples));
    std::vector<double> boot(static_cast<std::size_t>(t * dim));
    for (std::int64_t r = 0; r < samples; ++r) {
        const std::vector<std::int64_t> rows = block_bootstrap_rows(t, blocklength, seed, r);
        for (std::int64_t i = 0; i < t; ++i)
            std::copy(values + rows[i] * dim, values + (rows[i] + 1) * dim, boot.data() + i * dim);
        dist[r] = parcorr(boot.data(), t, dim).value;
    }
    return dist;
}

}  // namespace cudag::ci
