// SPDX-License-Identifier: Apache-2.0
// Variable names for test data sets.
#pragma once

#include <string>

namespace cudag::test {

/// `prefix` followed by `index` ("V12"). Appended rather than `"V" + std::to_string(i)`,
/// on which GCC 12 warns with a false -Wrestrict once inlined.
inline std::string indexed_name(const char* prefix, long long index) {
    std::string name = prefix;
    name += std::to_string(index);
    return name;
}

}  // namespace cudag::test
