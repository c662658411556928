// SPDX-License-Identifier: Apache-2.0
// One conditional-independence test behind one interface (issue 34): Fisher-z, chi-square /
// G-square and CMIknn answer x ⟂ y | S the same way, for `cudag citest`, the Python module
// and any caller that needs single tests. The implementations (skeleton::make_ci_test) are the
// CPU engines' own arithmetic, so a single test equals the one a search runs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cudag::ci {

/// A test's answer: the statistic, the p-value and the test's other numbers (name, exact
/// text: "z", "dof", "k", ...) in print order.
struct CiOutcome {
    double statistic = 0.0;
    double p = 1.0;
    std::vector<std::pair<std::string, std::string>> extra;
    /// Fisher-z: the correlation block of x, y and s is singular (to a Cholesky pivot of
    /// ci::kPivotTolerance); causal-learn's CIT raises there (run::CitestSession does under
    /// --compat causal-learn).
    bool singular = false;
};

class CiTest {
public:
    virtual ~CiTest() = default;
    /// The command line's name: "fisher-z", "chi-square", "g-square" or "cmiknn".
    virtual std::string name() const = 0;
    /// x ⟂ y | s over the variables of the data the test was made for (s: any order; no
    /// repeats, neither x nor y).
    virtual CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) = 0;
    /// Notes a caller may show on the test of x, y given s, one per line (CMIknn: constant
    /// columns and what the test does with them); empty for most.
    virtual std::vector<std::string> notes(std::int32_t, std::int32_t, std::span<const std::int32_t>) const {
        return {};
    }
    /// What decides the test's results (its name, then its parameters), as a checkpoint
    /// digest hashes them.
    virtual std::vector<std::string> digest() const = 0;
};

}  // namespace cudag::ci
