// SPDX-License-Identifier: Apache-2.0
// CPython 3.11's str hash and set order as cudag fci --compat causal-learn --python-hash-seed
// reproduces them; the expected values were printed by CPython 3.11.7 (hash("X1") etc. and
// [n.i for n in set(nodes)] of objects hashing as their names) under PYTHONHASHSEED 0, 1, 3, 7.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "fci/cl_pyhash.hpp"

namespace {

using cudag::fci::cl::python_set_order;
using cudag::fci::cl::python_str_hash;

TEST(PythonHash, StrHashIsCPythonsSiphash13) {
    EXPECT_EQ(python_str_hash("X1", 0), 7931989472823280758LL);
    EXPECT_EQ(python_str_hash("X10", 0), -6632337160839593559LL);
    EXPECT_EQ(python_str_hash("abcdefghij", 0), -829746140550000655LL);
    EXPECT_EQ(python_str_hash("g\xc3\xa8ne", 0), -777812893084270891LL);  // "gène": Latin-1 bytes hashed
    EXPECT_EQ(python_str_hash("X1", 1), -8924603884279442953LL);
    EXPECT_EQ(python_str_hash("X10", 1), 433674482097536981LL);
    EXPECT_EQ(python_str_hash("abcdefghij", 7), 3776497188423694595LL);
    EXPECT_EQ(python_str_hash("g\xc3\xa8ne", 7), 1134321848075962691LL);
    EXPECT_EQ(python_str_hash("", 7), 0);
}

std::vector<std::int32_t> order(std::vector<std::int32_t> items, std::uint32_t seed) {
    std::vector<std::int64_t> h;
    for (int k = 1; k <= 30; ++k) {
        std::string name = "X";  // piecewise: GCC 12 warns falsely on "X" + to_string (-Wrestrict)
        name += std::to_string(k);
        h.push_back(python_str_hash(name, seed));
    }
    return python_set_order(items, h);
}

TEST(PythonHash, SetOrderIsCPythons) {
    std::vector<std::int32_t> all(30), even;
    std::iota(all.begin(), all.end(), 0);
    for (int k = 0; k < 30; k += 2) even.push_back(k);
    EXPECT_EQ(order({0, 1, 2, 3}, 0), (std::vector<std::int32_t>{3, 1, 0, 2}));
    EXPECT_EQ(order(even, 0), (std::vector<std::int32_t>{28, 14, 12, 16, 2, 8, 18, 20, 24, 26, 6, 4, 0, 22, 10}));
    EXPECT_EQ(order(all, 0), (std::vector<std::int32_t>{13, 18, 21, 27, 19, 9,  6,  17, 22, 5, 14, 20, 16, 2,  23,
                                                        15, 3,  24, 26, 4,  25, 28, 12, 8,  7, 29, 0,  11, 10, 1}));
    EXPECT_EQ(order({0, 1, 2, 3}, 3), (std::vector<std::int32_t>{3, 1, 2, 0}));
    EXPECT_EQ(order(even, 3), (std::vector<std::int32_t>{18, 28, 8, 10, 2, 0, 26, 12, 20, 4, 24, 6, 16, 14, 22}));
    EXPECT_EQ(order(all, 3), (std::vector<std::int32_t>{5,  10, 2,  26, 15, 20, 4,  16, 18, 21, 9,  24, 19, 17, 11,
                                                        25, 1,  12, 7,  29, 6,  14, 28, 8,  0,  27, 3,  23, 13, 22}));
}

}  // namespace
