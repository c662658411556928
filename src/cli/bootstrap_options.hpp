// SPDX-License-Identifier: Apache-2.0
// --bootstrap, --resample and --consensus, shared by `cudag pc` and `cudag mcmc` (issue 38).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace cudag::cli {

/// The bootstrap options of a command, to tell which were given.
struct BootstrapOptionRefs {
    const CLI::Option* bootstrap = nullptr;
    const CLI::Option* resample = nullptr;
    const CLI::Option* consensus = nullptr;
};

/// Registers the three options on `cmd`, bound to the job's members of the same names but
/// --resample, bound to `resample` (the text the front end parses where the job holds the
/// parsed value); `what` names the search a replicate runs ("PC", "order MCMC").
template <class Job>
BootstrapOptionRefs add_bootstrap_options(CLI::App& cmd, Job& a, std::string& resample, const std::string& what) {
    const std::string group = "Edge confidence (--bootstrap)";
    BootstrapOptionRefs r;
    r.bootstrap =
        cmd.add_option("--bootstrap", a.bootstrap,
                       "run " + what +
                           " on B resamples of the rows (keyed by --seed) and report each pair's edge "
                           "frequencies and their consensus graph; on GPUs, every GPU the process sees (limit "
                           "them with CUDA_VISIBLE_DEVICES)")
            ->group(group);
    r.resample = cmd.add_option("--resample", resample,
                                "rows of a replicate: bootstrap (m with replacement) or half (m/2 without)")
                     ->capture_default_str()
                     ->group(group);
    r.consensus = cmd.add_option("--consensus", a.consensus,
                                 "adjacency frequency an edge needs in the consensus graph, in (0, 1]")
                      ->capture_default_str()
                      ->group(group);
    return r;
}

/// One line for a use the run would otherwise ignore: --bootstrap given below 1 (0 would run
/// the search once), --consensus without --bootstrap, --resample without --bootstrap (or
/// `other_resampler`, an option of the command that resamples too, when it is given).
inline void check_bootstrap_use(const BootstrapOptionRefs& r, std::int64_t bootstrap,
                                const CLI::Option* other_resampler = nullptr) {
    const auto given = [](const CLI::Option* o) { return o != nullptr && o->count() > 0; };
    if (given(r.bootstrap) && bootstrap < 1)
        throw InputError("--bootstrap must be at least 1, got " + std::to_string(bootstrap));
    if (given(r.bootstrap)) return;
    if (given(r.consensus)) throw InputError("--consensus needs --bootstrap B");
    if (given(r.resample) && !given(other_resampler))
        throw InputError(std::string("--resample needs --bootstrap B") +
                         (other_resampler ? " or " + other_resampler->get_name() + " FILE" : ""));
}

}  // namespace cudag::cli
