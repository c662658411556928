// SPDX-License-Identifier: Apache-2.0
// The score options of `cudag score` and `cudag mcmc`, bound into a run::ScoreJob
// (run/score_inputs.hpp checks them and reads the data as the score needs it).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "run/score_inputs.hpp"

namespace cudag::cli {

/// The score options added to a command, to tell which were given, and --score, --missing
/// as given.
struct ScoreOptionRefs {
    const CLI::Option* iss = nullptr;
    const CLI::Option* am = nullptr;
    const CLI::Option* aw = nullptr;
    std::string score, missing = "error";
    /// Marks in `o` the options the command line used, and parses --score and --missing into
    /// it (bn::parse_score, parse_missing).
    void apply(run::ScoreJob& o) const {
        const auto given = [](const CLI::Option* opt) { return opt && opt->count() > 0; };
        o.score = bn::parse_score(score);
        o.missing = parse_missing(missing);
        o.iss_given = given(iss);
        o.am_given = given(am);
        o.aw_given = given(aw);
    }
};

/// Adds --score, --iss, --am, --aw, --discrete to `cmd`, filling `o`.
void add_score_options(CLI::App& cmd, run::ScoreJob& o, ScoreOptionRefs& refs);

}  // namespace cudag::cli
