// SPDX-License-Identifier: Apache-2.0
// The conditional-independence tests cudag runs, and what each of them is, in one table
// (traits()): the data it reads, whether a GPU runs it, what its results depend on, what a
// round of its tests costs. Callers ask the table instead of comparing kinds, so a new test
// is one row here plus its implementations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cudag::ci {

/// The conditional-independence tests. DSep is the d-separation oracle (`--oracle`,
/// pcalg's dsepTest): its answers come from a DAG, not from data.
/// MiCg, MiSh and MiGSh (bnlearn's mi-cg, mi-sh and mi-g-sh) come last so that the others keep
/// their values.
enum class TestKind { FisherZ, ChiSquare, GSquare, CmiKnn, CgLrt, Regression, DSep, MiCg, MiSh, MiGSh };

/// What a test reads.
enum class TestData {
    Continuous,  ///< numbers (Fisher-z, CMIknn)
    Discrete,    ///< labels or integer codes (χ², G²)
    Mixed,       ///< discrete and continuous columns, or either alone (cg-lrt, regression, mi-cg)
    Dag,         ///< no data: a DAG's d-separation (the oracle)
};

/// What a round of tests costs, which decides how many a stage asks at once when it may
/// ask more than it needs (FCI's Possible-D-SEP rounds): never the answers.
enum class TestCost {
    Matrix,       ///< a few flops on a shared matrix (Fisher-z): ~10^6 tests a round
    Table,        ///< a pass over the samples (χ², G², the oracle): ~6.5·10^4 a round
    Permutation,  ///< many passes (CMIknn's surrogates): a few per worker a round
};

struct TestTraits {
    TestKind kind;
    /// The command line's name ("fisher-z", ...): `--test`, messages, the result file.
    const char* name;
    TestData data;
    /// `--test NAME` selects it (the oracle comes from `--oracle` instead).
    bool selectable;
    /// Its degrees of freedom follow a rule (`--dof`: gpupc, pcalg, causal-learn).
    bool dof_rule;
    /// Its p-value comes from surrogates: seeded, with an optional early stop.
    bool permutation;
    /// Every worker reads one matrix computed once (the correlation matrix): a
    /// search shares it instead of each test reading the columns.
    bool shared_matrix;
    /// A GPU engine runs it (skeleton levels and test batches).
    bool gpu;
    /// It tests a constant column itself (CMIknn: p = 1) where the others refuse one (no
    /// variance to test) and a bootstrap replicate drops it.
    bool constant_columns;
    /// It reads numbers whose answer does not change when a column is multiplied by a
    /// power of two: core/magnitude.hpp rescales extreme columns, exactly, before it runs.
    bool scale_free;
    /// Its answer for (x, y) and (y, x) may differ (bnlearn's mi-cg): PC's search then leaves
    /// out the reverse tests bnlearn's pc.stable leaves out (TestPolicy::bnlearn_pairs).
    bool asymmetric = false;
    /// Samples it needs for a conditioning set of `l` variables: more than l + this
    /// (Fisher-z: 2, √(n - |S| - 3) real; at n = |S| + 3 the statistic is 0 and p = 1, as
    /// pcalg's and causal-learn's); -1 when the count does not limit it.
    int spare_samples;
    TestCost cost;
};

/// The row of `k`.
const TestTraits& traits(TestKind k);

/// The command-line name: "fisher-z", "chi-square", "g-square", "cmiknn", "cg-lrt",
/// "regression", "mi-cg" or "d-separation".
std::string to_string(TestKind k);
/// The selectable kind named `name` (as to_string writes it), or none; never DSep, which
/// `--oracle` asks for (it needs a DAG, not data).
std::optional<TestKind> parse_test_kind(const std::string& name);
/// As parse_test_kind; an unknown name is an InputError naming `--test` and the choices.
TestKind parse_test(const std::string& name);
/// The selectable names, comma-separated, in table order ("fisher-z, chi-square, ...").
std::string selectable_test_names();
/// Whether `k` is one of the discrete (contingency-table) tests.
inline bool is_discrete(TestKind k) { return traits(k).data == TestData::Discrete; }
/// Tests a stage asks in one round when it may ask more than it needs (TestCost): the
/// round of a test of kind `k` on `workers` workers over all ranks.
std::int64_t round_tests(TestKind k, std::int64_t workers);

}  // namespace cudag::ci
