// SPDX-License-Identifier: Apache-2.0
#include "ci/test_kind.hpp"

#include <array>

#include "core/error.hpp"

namespace cudag::ci {

namespace {

constexpr std::array<TestTraits, 10> kTable{{
    {.kind = TestKind::FisherZ,
     .name = "fisher-z",
     .data = TestData::Continuous,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = true,
     .gpu = true,
     .constant_columns = false,
     .scale_free = true,
     .spare_samples = 2,  // n - |S| - 3 >= 0: at n = |S| + 3, z = 0 and p = 1 (pcalg's, causal-learn's)
     .cost = TestCost::Matrix},
    {.kind = TestKind::ChiSquare,
     .name = "chi-square",
     .data = TestData::Discrete,
     .selectable = true,
     .dof_rule = true,
     .permutation = false,
     .shared_matrix = false,
     .gpu = true,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    {.kind = TestKind::GSquare,
     .name = "g-square",
     .data = TestData::Discrete,
     .selectable = true,
     .dof_rule = true,
     .permutation = false,
     .shared_matrix = false,
     .gpu = true,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    // CMIknn: rescaled too (its tie-break noise is relative to each column's spread).
    {.kind = TestKind::CmiKnn,
     .name = "cmiknn",
     .data = TestData::Continuous,
     .selectable = true,
     .dof_rule = false,
     .permutation = true,
     .shared_matrix = false,
     .gpu = true,
     .constant_columns = true,
     .scale_free = true,
     .spare_samples = -1,
     .cost = TestCost::Permutation},
    // The mixed-data tests (issue 55): the conditional-Gaussian likelihood ratio (ci/cg_lrt.hpp;
    // on a GPU in batches, kernels/cg_lrt_batch.cu) and tigramite's RegressionCI
    // (ci/regression_ci.hpp; on a GPU in batches, kernels/regression_batch.cu).
    {.kind = TestKind::CgLrt,
     .name = "cg-lrt",
     .data = TestData::Mixed,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = true,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    {.kind = TestKind::Regression,
     .name = "regression",
     .data = TestData::Mixed,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = true,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    // bnlearn's mi-cg (ci/mi_cg.hpp): the CPU only; a constant column is its own answer
    // (bnlearn's singular models), and x, y are not interchangeable.
    {.kind = TestKind::MiCg,
     .name = "mi-cg",
     .data = TestData::Mixed,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = false,
     .constant_columns = true,
     .scale_free = false,
     .asymmetric = true,
     .spare_samples = -1,
     .cost = TestCost::Table},
    // bnlearn's mi-sh (ci/mi_sh.hpp): the CPU only, on the dense table of declared levels.
    {.kind = TestKind::MiSh,
     .name = "mi-sh",
     .data = TestData::Discrete,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = false,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    // bnlearn's mi-g-sh (ci/mi_g_sh.hpp): the CPU only, the shrunk covariance of x, y and S.
    {.kind = TestKind::MiGSh,
     .name = "mi-g-sh",
     .data = TestData::Continuous,
     .selectable = true,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = false,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
    {.kind = TestKind::DSep,
     .name = "d-separation",
     .data = TestData::Dag,
     .selectable = false,
     .dof_rule = false,
     .permutation = false,
     .shared_matrix = false,
     .gpu = false,
     .constant_columns = false,
     .scale_free = false,
     .spare_samples = -1,
     .cost = TestCost::Table},
}};

}  // namespace

const TestTraits& traits(TestKind k) {
    for (const TestTraits& t : kTable)
        if (t.kind == k) return t;
    throw LogicError("ci::traits: a test kind without a row");
}

std::string to_string(TestKind k) { return traits(k).name; }

std::optional<TestKind> parse_test_kind(const std::string& name) {
    for (const TestTraits& t : kTable)
        if (t.selectable && name == t.name) return t.kind;
    return std::nullopt;
}

std::string selectable_test_names() {
    std::string out;
    for (const TestTraits& t : kTable)
        if (t.selectable) out += (out.empty() ? "" : ", ") + std::string(t.name);
    return out;
}

TestKind parse_test(const std::string& name) {
    if (const std::optional<TestKind> k = parse_test_kind(name)) return *k;
    throw InputError("unknown --test '" + name + "' (available: " + selectable_test_names() + ")");
}

std::int64_t round_tests(TestKind k, std::int64_t workers) {
    switch (traits(k).cost) {
        case TestCost::Matrix:
            return std::int64_t{1} << 20;
        case TestCost::Table:
            return std::int64_t{1} << 16;
        case TestCost::Permutation:
            return 4 * (workers < 1 ? 1 : workers);
    }
    return 1;
}

}  // namespace cudag::ci
