// SPDX-License-Identifier: Apache-2.0
// What `cudag score` and `cudag mcmc` share: the score options' checks and the data read
// as the score needs it (discrete for BDeu/K2, continuous for BGe) with its local scorer.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bn/score.hpp"
#include "cli/data_reader.hpp"
#include "core/format.hpp"

namespace cudag::cli {

/// The score options as a command took them (the Option pointers say what was given).
struct ScoreOptions {
    std::string score;
    double iss = 1.0, am = 1.0, aw = 0.0;
    bool discrete = false;  ///< --discrete: every cell a label (bdeu, k2)
    const CLI::Option* iss_option = nullptr;
    const CLI::Option* am_option = nullptr;
    const CLI::Option* aw_option = nullptr;
};

/// Adds --score, --iss, --am, --aw, --discrete to `cmd`, filling `o`.
void add_score_options(CLI::App& cmd, ScoreOptions& o);

/// The score kind, after refusing options that do not apply to it and a bad --iss.
bn::ScoreKind check_score_options(const ScoreOptions& o);

struct ScoreInputs {
    std::vector<std::string> names;
    std::int64_t n_samples = 0;
    std::unique_ptr<bn::LocalScorer> scorer;
    /// The names and the values as scored (codes and level counts, or numbers): what a
    /// checkpoint's configuration hash takes from the data.
    std::uint64_t data_digest = 0;
};

/// Reads `data` (HDF5 dataset `dataset`) as the score needs it and builds its scorer.
/// One-line InputErrors for labels under BGe, non-integer numbers or a single level under
/// BDeu/K2. `reader`, when given, hands over the data instead of the file.
ScoreInputs read_score_inputs(const std::string& data, const std::string& dataset, bn::ScoreKind kind,
                              const ScoreOptions& o, const DataReader& reader = {});

}  // namespace cudag::cli
