// SPDX-License-Identifier: Apache-2.0
// One PC run from a loaded data set to a PcResult: engine, skeleton, orientation.
#pragma once

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
    /// "fisher-z" (continuous data), "chi-square" or "g-square" (discrete data); empty:
    /// chosen by the data (fisher-z when continuous, chi-square when discrete).
    std::string test;
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
};

/// Validate a configuration against a data set; throws InputError on the first problem.
void validate(const PcConfig& cfg, const Dataset& data);

/// The test a run of `cfg` on `data` uses (PcConfig::test, or the data's default).
std::string resolved_test(const PcConfig& cfg, const Dataset& data);

/// Whether `test` is one of the discrete (contingency-table) tests.
bool is_discrete_test(const std::string& test);

/// Run PC-stable on `data` (continuous data with Fisher-z, discrete data with χ²/G²). Fills every PcResult field except `config`
/// provenance entries the caller adds (input path, command line).
PcResult run_pc(const Dataset& data, const PcConfig& cfg);

std::string to_string(Compat c);

}  // namespace cudag::pc
