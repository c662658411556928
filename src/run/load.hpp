// SPDX-License-Identifier: Apache-2.0
// A result file cudag wrote (`cudag pc --out`, `cudag fci --out`, `cudag mcmc --out`, or the Python
// functions' out=) read back into the result the run returned: what cudag.load() gives.
#pragma once

#include <optional>
#include <string>

#include "bn/mcmc_result.hpp"
#include "pc/result.hpp"

namespace cudag::run {

/// One of the two, by the file's root attribute "format".
struct LoadedResult {
    std::optional<pc::PcResult> pc;      ///< a PC or FCI result ("cudag-pc-result-1")
    std::optional<bn::McmcOutput> mcmc;  ///< an order-MCMC result ("cudag-mcmc-result-1")
};

/// Reads the HDF5 result `path` (layouts in pc/result_file.hpp and bn/mcmc_result.hpp).
/// A PC result comes back with its names (and level labels), skeleton, CPDAG, separating
/// sets, pMax pairs, levels, n_samples, seconds_total, configuration and (a bootstrap run)
/// its frequency table /bootstrap; an FCI result (`cudag fci`, root attribute kind "pag")
/// with its PAG from /pag/edges in PcResult::pag (the CPDAG empty, as the run leaves it)
/// and its skeleton, separating sets, pMax and levels as a PC result's; an MCMC result
/// with its names, best DAG and score, CPDAG, edge posteriors, chains' traces, acceptance
/// rates, best and final orders, diagnostics and configuration. Configuration keys are as
/// the file stores them (mapped to [A-Za-z0-9_]). One-line InputErrors name the file: not
/// HDF5, not a cudag result, a dataset missing or inconsistent.
LoadedResult load_result(const std::string& path);

}  // namespace cudag::run
