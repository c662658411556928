// SPDX-License-Identifier: Apache-2.0
// What the mixed-data tests (cg-lrt, mi-cg) say about their inputs: a variable's name, the
// test's label in messages, and the check of every value a test reads.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/dataset.hpp"

namespace cudag::ci {

/// "'name'" of variable v of `d` ("variable v" where it has no name).
std::string quoted_variable(const Dataset& d, std::int32_t v);

/// "the <test> test of 'x' and 'y' given {'a', 'b'}" (no "given" for an empty s).
std::string test_label(const std::string& test, const Dataset& d, std::int32_t x, std::int32_t y,
                       std::span<const std::int32_t> s);

/// InputError (prefixed by `label`) for an index of `vars` outside the data, a continuous
/// value that is not finite or a discrete value that is not a code of its variable's levels,
/// naming the variable and row: every value of `vars` checked once.
void check_test_values(const Dataset& d, std::span<const std::int32_t> vars, const std::string& label);

}  // namespace cudag::ci
