// SPDX-License-Identifier: Apache-2.0
// The CI test of a skeleton search (a PC run, later FCI's), typed: its kind, its parameters with defaults filled in, their
// validation against a data set, and what of it decides results (the checkpoint digest and
// the result file's config attributes). Names ("fisher-z", ...) exist only at the edges:
// parsing the command line, messages, and the result file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ci/cmi_knn.hpp"
#include "ci/discrete_codes.hpp"
#include "ci/test_kind.hpp"
#include "core/dataset.hpp"
#include "core/dsep.hpp"

namespace cudag::skeleton {

/// Whose semantics the run reproduces.
enum class Compat { Pcalg, CausalLearn };

std::string to_string(Compat c);
/// --compat's value: "pcalg" or "causal-learn"; anything else is an InputError naming
/// --compat and the choices (the front ends parse it).
Compat parse_compat(const std::string& name);

/// The tests and their traits live in ci/ (ci/test_kind.hpp); the skeleton's code names
/// them here as before.
using ci::is_discrete;
using ci::parse_test;
using ci::parse_test_kind;
using ci::TestKind;
using ci::to_string;

/// "gpupc", "pcalg" or "causal-learn" (see ci::DofRule); anything else is an InputError.
ci::DofRule parse_dof(const std::string& name);

/// What the options ask for, typed, before the data and the run's semantics fill in the
/// defaults (PcConfig::test).
struct TestOptions {
    /// Unset: the data's default (chi-square when discrete, else fisher-z).
    std::optional<TestKind> kind;
    /// Degrees-of-freedom rule of the discrete tests. Unset: causal-learn under
    /// Compat::CausalLearn, else pcalg.
    std::optional<ci::DofRule> dof;
    /// CMIknn: the test's parameters (early_stop is ignored: resolve_test sets it from
    /// alpha and cmi_early_stop).
    ci::CmiKnnSpec cmi;
    /// CMIknn: a test stops drawing surrogates once independence at alpha is certain; its
    /// stored p-value is then a lower bound (the graph is the same).
    bool cmi_early_stop = true;
    /// The d-separation oracle (`--oracle`): kind unset or DSep; the data are then its
    /// variables (names, no samples: DsepOracle::var_names()).
    std::shared_ptr<const DsepOracle> oracle;
    /// Missing cells as bnlearn 4.9 treats them (TestSpec::bnlearn_missing).
    bool bnlearn_missing = false;
    /// Fisher-z's partial correlations by the exact Student-t test (bnlearn's "cor"): the
    /// CPU engine (TestPolicy::student_t) and the single tests of missing data
    /// (TestSpec::student_t).
    bool student_t = false;
};

/// The test a run uses, every default resolved.
struct TestSpec {
    TestKind kind = TestKind::FisherZ;
    /// ChiSquare / GSquare: the statistic and the degrees-of-freedom rule.
    ci::DiscreteTestSpec discrete;
    /// CmiKnn: the parameters, early_stop at the run's alpha (strict under
    /// Compat::CausalLearn) when TestOptions::cmi_early_stop, else none.
    ci::CmiKnnSpec cmi;
    /// DSep: the oracle (shared, immutable).
    std::shared_ptr<const DsepOracle> oracle;
    /// Data with missing cells tested as bnlearn 4.9's tests do (its R face: pc.stable,
    /// ci.test, boot.strength): each test on its locally complete rows, discrete variables
    /// keeping every level of the whole column (bnlearn's degrees of freedom count the
    /// declared levels), and a test without complete rows, or whose Gaussian degrees of
    /// freedom fall below 1 (cor: m - |S| - 2, zf: m - |S| - 3), independent: statistic 0,
    /// p = 1, as bnlearn's. False: cudag's test-wise deletion, where such a test is an error
    /// and each test's variables keep the levels its rows hold. The CPU only.
    bool bnlearn_missing = false;
    /// FisherZ: the single tests of missing data give the exact Student-t p-value of the
    /// partial correlation (bnlearn's cor), as the CPU engine does under
    /// TestPolicy::student_t for complete data.
    bool student_t = false;

    std::string name() const { return to_string(kind); }
    const ci::TestTraits& traits() const { return ci::traits(kind); }
    bool is_discrete() const { return ci::is_discrete(kind); }

    /// The result file's config attributes that describe the test's parameters, in file
    /// order (after "test"): "dof_rule" for the discrete tests, "cmiknn_*" for CMIknn,
    /// "oracle_dag" and "oracle_latent" for the d-separation oracle.
    std::vector<std::pair<std::string, std::string>> config_entries(std::int64_t n_samples) const;

    /// The strings the checkpoint digest hashes for the test, in order: its name, then what
    /// decides its results (the discrete dof rule; CMIknn's parameters with k resolved; the
    /// oracle's DAG and latent nodes; bnlearn's missing-value rule and the Student-t test
    /// when set).
    std::vector<std::string> digest_entries(std::int64_t n_samples) const;
};

/// The test of `options` on `data` under `compat` at significance `alpha`.
TestSpec resolve_test(const TestOptions& options, const Dataset& data, double alpha, Compat compat);

/// The checks that concern the test alone: the test fits the data's kind (a discrete test
/// refuses a column of numbers with a fraction, io::check_integer_levels), a dof rule only
/// with a discrete test, the CMIknn parameters for the samples (and for conditioning sets
/// when max_level != 0), the oracle's test is d-separation and its variables are the data's.
/// Throws InputError on the first problem.
void validate_test(const TestOptions& options, const Dataset& data, int max_level);

}  // namespace cudag::skeleton
