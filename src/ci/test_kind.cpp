// SPDX-License-Identifier: Apache-2.0
#include "ci/test_kind.hpp"

#include <array>

#include "core/error.hpp"

namespace cudag::ci {

namespace {

constexpr std::array<TestTraits, 5> kTable{{
    // kind, name, data, selectable, dof_rule, permutation, shared_matrix, gpu, scale_free, spare_samples, cost
    {TestKind::FisherZ, "fisher-z", TestData::Continuous, true, false, false, true, true, true, 3, TestCost::Matrix},
    {TestKind::ChiSquare, "chi-square", TestData::Discrete, true, true, false, false, true, false, -1, TestCost::Table},
    {TestKind::GSquare, "g-square", TestData::Discrete, true, true, false, false, true, false, -1, TestCost::Table},
    // CMIknn on raw values too: its tie-break noise is relative to each column's spread.
    {TestKind::CmiKnn, "cmiknn", TestData::Continuous, true, false, true, false, true, true, -1, TestCost::Permutation},
    {TestKind::DSep, "d-separation", TestData::Dag, false, false, false, false, false, false, -1, TestCost::Table},
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
