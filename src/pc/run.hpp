// SPDX-License-Identifier: Apache-2.0
// One PC run from a loaded data set to a PcResult: engine, skeleton, orientation.
#pragma once

#include <functional>

#include <optional>
#include <string>

#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "pc/result.hpp"
#include "pc/skeleton.hpp"

namespace cudag::pc {

/// Whose semantics the run reproduces.
enum class Compat { Pcalg, CausalLearn };

/// A PC run's configuration (the CLI's `cudag pc` options).
struct PcConfig {
    /// "fisher-z" or "cmiknn" (continuous data), "chi-square" or "g-square" (discrete data); empty:
    /// chosen by the data (fisher-z when continuous, chi-square when discrete).
    std::string test;
    /// --test cmiknn: the test's parameters (ci::CmiKnnSpec; its early_stop is set by the
    /// run from alpha and cmi_early_stop).
    ci::CmiKnnSpec cmi;
    /// --test cmiknn: a test stops drawing surrogates once independence at alpha is
    /// certain; its stored p-value is then a lower bound (the graph is the same).
    bool cmi_early_stop = true;
    /// Degrees-of-freedom rule of the discrete tests: "gpupc", "pcalg" or "causal-learn"
    /// (see ci::DofRule); empty: causal-learn under Compat::CausalLearn, else pcalg.
    std::string dof;
    double alpha = 0.01;
    int max_level = -1;  ///< -1: no cap
    int threads = 0;     ///< 0: all hardware threads
    Compat compat = Compat::Pcalg;
    /// causal-learn's uc_rule (0 sepset, 1 maxP, 2 definiteMaxP). Unset: pcalg's
    /// orientation (udag2pdagRelaxed), or 0 under --compat causal-learn.
    std::optional<int> uc_rule;
    /// causal-learn's uc_priority (-1 rule default, 0..4). Unset: 2 (causal-learn's pc() default).
    std::optional<int> uc_priority;
    BackendKind backend = BackendKind::Auto;
    GpuTunables gpu;
    int device = 0;
    LevelCallback on_level;  ///< progress hook, may be empty
    std::function<void(const std::string&)> on_note;  ///< phase timings (verbose), may be empty
    /// HDF5 checkpoint written by rank 0 after every level ("" for none).
    std::string checkpoint;
    /// Called on rank 0 after a checkpoint was written, with the last level it holds.
    std::function<void(int)> on_checkpoint;
    /// Called on rank 0 when a run resumes, with the first level it runs.
    std::function<void(int)> on_resume;
    /// Continue from `checkpoint`, which must exist and match the data and the options
    /// that change results (see config_hash).
    bool resume = false;
    /// Testing: stop after this level (and its checkpoint), as a kill would; -1: never.
    int stop_after_level = -1;
};

/// Validate a configuration against a data set; throws InputError on the first problem.
void validate(const PcConfig& cfg, const Dataset& data);

/// The checks of validate() that concern the CI test alone (`cudag citest`): a known test
/// for the data's kind, --dof only with a discrete test, the CMIknn parameters for the
/// samples and for conditioning sets when max_level != 0. Not alpha, levels or orientation.
void validate_test(const PcConfig& cfg, const Dataset& data);

/// The test a run of `cfg` on `data` uses (PcConfig::test, or the data's default).
std::string resolved_test(const PcConfig& cfg, const Dataset& data);

/// Whether `test` is one of the discrete (contingency-table) tests.
bool is_discrete_test(const std::string& test);

/// The discrete test (statistic and degrees-of-freedom rule) a run of `cfg` with the
/// discrete `test` uses; throws InputError for an unknown PcConfig::dof.
ci::DiscreteTestSpec resolved_discrete_spec(const PcConfig& cfg, const std::string& test);

/// The CMIknn spec a run of `cfg` uses: cfg.cmi with the early stop at cfg.alpha (strict
/// under Compat::CausalLearn) when cfg.cmi_early_stop, else none.
ci::CmiKnnSpec resolved_cmi_spec(const PcConfig& cfg);

/// Run PC-stable on `data` (continuous data with Fisher-z, discrete data with χ²/G²). Fills every PcResult field except `config`
/// provenance entries the caller adds (input path, command line).
PcResult run_pc(const Dataset& data, const PcConfig& cfg);

/// The distributed form: every rank of `comm` calls it with the same data and options.
/// The skeleton search is split over the ranks (pc::learn_skeleton); separating sets,
/// pMax and the orientation are complete on rank 0 only (other ranks get the skeleton,
/// the level statistics and the names). Errors on any rank are agreed on at level
/// boundaries: the failing rank throws its error (mpi::AgreedFailure when there are
/// several ranks), the others mpi::PeerFailed.
PcResult run_pc(const Dataset& data, const PcConfig& cfg, mpi::Communicator& comm);

/// Hex digest (64-bit FNV-1a) of what decides a run's results: the data (shape, names,
/// values), the resolved test (PcConfig::test or the data's default) with its resolved
/// degrees-of-freedom rule or CMIknn parameters (k resolved from --knn, shuffle neighbours,
/// permutations, transform, permuted variable, tie rule, seed, early stop), alpha and
/// compat semantics. Not threads, backend, ranks or
/// --max-level. A checkpoint is resumed only by a run with the same digest.
std::string config_hash(const Dataset& data, const PcConfig& cfg);

std::string to_string(Compat c);

/// Host memory a run of `cfg` on `data` needs beyond the data set, in bytes (an estimate
/// from the largest structures: the CPU engine's n x n correlation matrix, the bit
/// graphs, the dense pMax table). `gpu`: the engine runs on a GPU (C lives there).
double estimate_host_bytes(const Dataset& data, const PcConfig& cfg, bool gpu);

}  // namespace cudag::pc
