// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ci/fisher_z.hpp"

using namespace cudag::ci;

// Expected values computed independently with Python's math module:
// p = 2 * (1 - Phi(sqrt(m - l - 3) * |atanh r|)), Phi via math.erf.
TEST(FisherZ, PValueMatchesIndependentValues) {
    EXPECT_NEAR(fisher_z_pvalue(0.3, 100, 0), 0.0023005231439006124, 1e-15);
    EXPECT_NEAR(fisher_z_pvalue(-0.05, 1000, 2), 0.11445140285713307, 1e-14);
    EXPECT_NEAR(fisher_z_pvalue(0.01, 50, 1), 0.9459244960803501, 1e-14);
    EXPECT_NEAR(fisher_z_pvalue(0.2, 30, 5), 0.3416551587944001, 1e-14);
}

TEST(FisherZ, ExtremeCorrelationsAreClampedNotNaN) {
    const double p1 = fisher_z_pvalue(1.0, 100, 0);
    const double p2 = fisher_z_pvalue(-1.0, 100, 0);
    EXPECT_FALSE(std::isnan(p1));
    EXPECT_LT(p1, 1e-100);
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(fisher_z_pvalue(0.0, 100, 0), 1.0);
    EXPECT_EQ(fisher_z_pvalue(std::nan(""), 100, 0), 1.0);  // degenerate → r = 0, as pcalg
}

namespace {

// Reference partial correlation by Gauss–Jordan inversion of C[{i,j}∪S]:
// r = -P01 / sqrt(P00 P11) with P the inverse (the precision-matrix route, not
// the route the library takes).
double partial_by_inverse(const std::vector<double>& c, int n, int i, int j, const std::vector<int>& s) {
    std::vector<int> v = {i, j};
    v.insert(v.end(), s.begin(), s.end());
    const int k = static_cast<int>(v.size());
    std::vector<double> a(k * 2 * k, 0.0);
    for (int r = 0; r < k; ++r) {
        for (int q = 0; q < k; ++q) a[r * 2 * k + q] = c[v[r] * n + v[q]];
        a[r * 2 * k + k + r] = 1.0;
    }
    for (int col = 0; col < k; ++col) {
        int piv = col;
        for (int r = col + 1; r < k; ++r)
            if (std::fabs(a[r * 2 * k + col]) > std::fabs(a[piv * 2 * k + col])) piv = r;
        for (int q = 0; q < 2 * k; ++q) std::swap(a[col * 2 * k + q], a[piv * 2 * k + q]);
        const double d = a[col * 2 * k + col];
        for (int q = 0; q < 2 * k; ++q) a[col * 2 * k + q] /= d;
        for (int r = 0; r < k; ++r) {
            if (r == col) continue;
            const double f = a[r * 2 * k + col];
            for (int q = 0; q < 2 * k; ++q) a[r * 2 * k + q] -= f * a[col * 2 * k + q];
        }
    }
    auto p = [&](int r, int q) { return a[r * 2 * k + k + q]; };
    return -p(0, 1) / std::sqrt(p(0, 0) * p(1, 1));
}

double partial_by_library(const std::vector<double>& c, int n, int i, int j, const std::vector<int>& s) {
    const int l = static_cast<int>(s.size());
    std::vector<double> lmat(l * l), scratch(2 * l * l), yi(l), yj(l);
    ConditioningBlock b;
    b.lmat = lmat.data();
    b.factorise(c.data(), n, s.data(), l, scratch.data());
    b.project(c.data(), n, s.data(), i, yi.data());
    b.project(c.data(), n, s.data(), j, yj.data());
    return partial_correlation(b, c[i * n + j], yi.data(), yj.data());
}

// A well-conditioned 5×5 correlation matrix (A Aᵀ normalised).
std::vector<double> example_corr() {
    const double a[5][3] = {{1, 0.2, 0.1}, {0.5, 1, 0.3}, {0.3, 0.4, 1}, {0.9, 0.1, 0.6}, {0.2, 0.8, 0.5}};
    std::vector<double> c(25);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            double s = 0, si = 0, sj = 0;
            for (int t = 0; t < 3; ++t) {
                s += a[i][t] * a[j][t];
                si += a[i][t] * a[i][t];
                sj += a[j][t] * a[j][t];
            }
            c[i * 5 + j] = (i == j) ? 1.0 : s / std::sqrt(si * sj) * 0.9;  // shrink: full rank
        }
    return c;
}

}  // namespace

TEST(FisherZ, PartialCorrelationLevelOneMatchesClosedForm) {
    const auto c = example_corr();
    const double rij = c[0 * 5 + 1], rik = c[0 * 5 + 2], rjk = c[1 * 5 + 2];
    const double want = (rij - rik * rjk) / std::sqrt((1 - rik * rik) * (1 - rjk * rjk));
    EXPECT_NEAR(partial_by_library(c, 5, 0, 1, {2}), want, 1e-14);
}

TEST(FisherZ, PartialCorrelationMatchesPrecisionMatrixRoute) {
    const auto c = example_corr();
    EXPECT_NEAR(partial_by_library(c, 5, 0, 1, {2, 3}), partial_by_inverse(c, 5, 0, 1, {2, 3}), 1e-12);
    EXPECT_NEAR(partial_by_library(c, 5, 1, 4, {0, 2, 3}), partial_by_inverse(c, 5, 1, 4, {0, 2, 3}), 1e-12);
}

TEST(PseudoInverse, SingularBlockFallsBackAndMatchesReducedSet) {
    // Variables 2 and 3 are identical: C[{2,3},{2,3}] is singular. The
    // pseudo-inverse gives the same partial correlation as conditioning on 2 alone.
    auto c = example_corr();
    for (int k = 0; k < 5; ++k) {
        c[3 * 5 + k] = c[2 * 5 + k];
        c[k * 5 + 3] = c[k * 5 + 2];
    }
    c[3 * 5 + 3] = 1.0;
    c[2 * 5 + 3] = c[3 * 5 + 2] = 1.0;
    std::vector<double> lmat(4), scratch(8);
    ConditioningBlock b;
    b.lmat = lmat.data();
    const int s[2] = {2, 3};
    b.factorise(c.data(), 5, s, 2, scratch.data());
    EXPECT_FALSE(b.chol);  // took the pseudo-inverse route
    const double r2 = partial_by_library(c, 5, 0, 1, {2, 3});
    const double r1 = partial_by_library(c, 5, 0, 1, {2});
    EXPECT_FALSE(std::isnan(r2));
    EXPECT_NEAR(r2, r1, 1e-12);
}

TEST(PseudoInverse, MoorePenroseConditionsOnRankDeficientMatrix) {
    // A = u uᵀ + w wᵀ in 3-D has rank 2; check A A⁺ A = A and A⁺ A A⁺ = A⁺.
    const double u[3] = {1, 2, 3}, w[3] = {0.5, -1, 0.25};
    double a[9], keep[9], v[9], pinv[9];
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) keep[r * 3 + q] = a[r * 3 + q] = u[r] * u[q] + w[r] * w[q];
    pseudo_inverse_sym(a, 3, v, pinv);
    auto mul = [](const double* x, const double* y, double* z) {
        for (int r = 0; r < 3; ++r)
            for (int q = 0; q < 3; ++q) {
                z[r * 3 + q] = 0;
                for (int k = 0; k < 3; ++k) z[r * 3 + q] += x[r * 3 + k] * y[k * 3 + q];
            }
    };
    double t1[9], t2[9];
    mul(keep, pinv, t1);
    mul(t1, keep, t2);
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(t2[k], keep[k], 1e-10);
    mul(pinv, keep, t1);
    mul(t1, pinv, t2);
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(t2[k], pinv[k], 1e-10);
}

TEST(PseudoInverse, IllConditionedBlockGivesFiniteP) {
    auto c = example_corr();
    const double r = 1.0 - 1e-9;  // nearly collinear 2 and 3
    c[2 * 5 + 3] = c[3 * 5 + 2] = r;
    const double pr = partial_by_library(c, 5, 0, 1, {2, 3});
    EXPECT_TRUE(std::isfinite(pr));
    EXPECT_LE(std::fabs(pr), 1.0 + 1e-9);
    const double p = fisher_z_pvalue(pr, 100, 2);
    EXPECT_GE(p, 0.0);
    EXPECT_LE(p, 1.0);
}
