// SPDX-License-Identifier: Apache-2.0
// ci/cg_lrt_core.hpp, the arithmetic ci::cg_lrt and the GPU batch share: sums and
// cross-products, the Cholesky roots of a stratum's covariance and their singular rule, log
// det, the dof of a set and of the test, the statistic from the four sets' terms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ci/cg_lrt_core.hpp"

using namespace cudag::ci;
namespace core = cudag::ci::cg_lrt_core;

namespace {

/// Sums and cross-products of rows (each p values) less the first row, as the test keeps them.
void accumulate(const std::vector<std::vector<double>>& rows, std::vector<double>& sum, std::vector<double>& cross) {
    const int p = static_cast<int>(rows[0].size());
    sum.assign(static_cast<std::size_t>(p), 0.0);
    cross.assign(static_cast<std::size_t>(core::triangle(p)), 0.0);
    std::vector<double> dev(static_cast<std::size_t>(p));
    for (const auto& r : rows) {
        for (int a = 0; a < p; ++a)
            dev[static_cast<std::size_t>(a)] = r[static_cast<std::size_t>(a)] - rows[0][static_cast<std::size_t>(a)];
        core::add_row(dev.data(), p, sum.data(), cross.data());
    }
}

}  // namespace

TEST(CgLrtCore, AddRowKeepsSumsAndLowerTriangle) {
    std::vector<double> sum, cross;
    accumulate({{1.0, 2.0}, {2.0, 4.0}, {4.0, 3.0}}, sum, cross);
    // Deviations (0, 0), (1, 2), (3, 1).
    EXPECT_EQ(sum, (std::vector<double>{4.0, 3.0}));
    EXPECT_EQ(cross, (std::vector<double>{10.0, 5.0, 5.0}));  // Σ a², Σ b a, Σ b²
}

TEST(CgLrtCore, CholeskyRootsOfTheMaximumLikelihoodCovariance) {
    // Rows (0, 0), (2, 0), (0, 2), (2, 2): means (1, 1), ML covariance diag(1, 1), roots 1, 1.
    std::vector<double> sum, cross, l(3), roots(2);
    accumulate({{0.0, 0.0}, {2.0, 0.0}, {0.0, 2.0}, {2.0, 2.0}}, sum, cross);
    EXPECT_EQ(core::cholesky_roots(4.0, sum.data(), cross.data(), 2, l.data(), roots.data()), -1);
    EXPECT_EQ(roots, (std::vector<double>{1.0, 1.0}));
    EXPECT_EQ(core::log_det(roots.data(), 2), 0.0);
    // Rows (0, 0), (2, 2), (4, 2): covariance [[8/3, 4/3], [4/3, 8/9]]; L = [[√(8/3), 0],
    // [(4/3)/√(8/3), √(8/9 − 2/3)]].
    accumulate({{0.0, 0.0}, {2.0, 2.0}, {4.0, 2.0}}, sum, cross);
    ASSERT_EQ(core::cholesky_roots(3.0, sum.data(), cross.data(), 2, l.data(), roots.data()), -1);
    EXPECT_NEAR(roots[0], std::sqrt(8.0 / 3.0), 1e-15);
    EXPECT_NEAR(roots[1], std::sqrt(8.0 / 9.0 - 2.0 / 3.0), 1e-15);
    EXPECT_NEAR(l[1], (4.0 / 3.0) / std::sqrt(8.0 / 3.0), 1e-15);
    EXPECT_EQ(core::log_det(roots.data(), 2), 2.0 * std::log(roots[0]) + 2.0 * std::log(roots[1]));
}

TEST(CgLrtCore, SingularPivotsAreFound) {
    std::vector<double> sum, cross, l(6), roots(3);
    // The second variable twice the first plus one: pivot 1 is (about) zero.
    accumulate({{0.0, 1.0, 5.0}, {1.0, 3.0, 2.0}, {2.0, 5.0, 7.0}, {5.0, 11.0, 1.0}}, sum, cross);
    EXPECT_EQ(core::cholesky_roots(4.0, sum.data(), cross.data(), 3, l.data(), roots.data()), 1);
    // A constant first variable: its diagonal is zero.
    accumulate({{3.0, 1.0}, {3.0, 2.0}, {3.0, 4.0}}, sum, cross);
    EXPECT_EQ(core::cholesky_roots(3.0, sum.data(), cross.data(), 2, l.data(), roots.data()), 0);
}

TEST(CgLrtCore, DofFollowsTheParameterCounts) {
    EXPECT_EQ(core::set_dof(1.0, 0), 0.0);
    EXPECT_EQ(core::set_dof(3.0, 0), 2.0);
    EXPECT_EQ(core::set_dof(2.0, 2), 2.0 * (2.0 + 3.0) + 1.0);
    // x, y continuous: F_S (here F_S = 6, k = 2).
    EXPECT_EQ(core::test_dof(6.0, 1.0, 1.0, 2, 1, 1), 6.0);
    // one discrete with r = 4 levels: (r − 1)(k + 2) F_S.
    EXPECT_EQ(core::test_dof(6.0, 4.0, 1.0, 2, 0, 1), 3.0 * 4.0 * 6.0);
    EXPECT_EQ(core::test_dof(6.0, 1.0, 4.0, 2, 1, 0), 3.0 * 4.0 * 6.0);
    // both discrete: (r_x − 1)(r_y − 1)(1 + k(k + 3)/2) F_S.
    EXPECT_EQ(core::test_dof(6.0, 3.0, 5.0, 2, 0, 0), 2.0 * 4.0 * 6.0 * 6.0);
    EXPECT_EQ(core::test_dof(2.0, 3.0, 5.0, 0, 0, 0), 2.0 * 4.0 * 2.0);
}

TEST(CgLrtCore, StatisticFromTheFourSets) {
    const core::SetTerms xys{10.0, 4.0}, xs{3.0, 1.0}, ys{2.0, 0.5}, s{1.0, 0.25};
    EXPECT_EQ(core::statistic(xys, xs, ys, s), 2.0 * (10.0 - 3.0 - 2.0 + 1.0) - (4.0 - 1.0 - 0.5 + 0.25));
}
