// SPDX-License-Identifier: Apache-2.0
// What `cudag score` and `cudag mcmc` share: the score settings' checks and the data read
// as the score needs it (discrete for BDeu/K2, continuous for BGe, each column as it is for
// cg-bic) with its local scorer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bn/score.hpp"
#include "run/common.hpp"
#include "core/format.hpp"

namespace cudag::run {

/// The score settings of a job (`cudag score`, `cudag mcmc`), with which were given; --score
/// (which every front end requires) and --missing are parsed by the front end
/// (bn::parse_score, parse_missing).
struct ScoreJob {
    bn::ScoreKind score = bn::ScoreKind::BDeu;
    double iss = 1.0, am = 1.0, aw = 0.0;
    bool discrete = false;                         ///< every cell a label (bdeu, k2)
    MissingPolicy missing = MissingPolicy::Error;  ///< error or listwise (testwise is refused)
    /// --discrete-columns, --continuous-columns: the named columns' types (cg-bic's mixed data).
    std::vector<std::string> discrete_columns, continuous_columns;
    bool iss_given = false, am_given = false, aw_given = false;
    /// cg-bic counts each discrete variable's declared levels (Dataset::levels), used or not,
    /// as bnlearn's bic does for a factor (the R face); false: the levels that occur.
    bool declared_levels = false;
};

/// The mode a score reads its data in: Numeric (bge), Labels (bdeu, k2) or Auto (cg-bic: a
/// column of labels is discrete, a numeric one continuous, then --discrete-columns and
/// --continuous-columns).
io::TableMode score_table_mode(bn::ScoreKind kind, bool discrete);

/// The data a score reads, in `mode`, with --missing applied: error (missing cells refused
/// by the reader) or listwise (incomplete rows removed); testwise is refused, since a score
/// sums over one table's rows (every family must see the same rows).
Dataset read_scored_data(const DataReader& reader, const std::string& path, const std::string& dataset,
                         io::TableMode mode, const ScoreJob& o);

/// The score kind, after refusing options that do not apply to it and a bad --iss.
bn::ScoreKind check_score_options(const ScoreJob& o);

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
/// BDeu/K2, column types named under another score than cg-bic. `reader`, when given, hands over the data instead of
/// the file.
ScoreInputs read_score_inputs(const std::string& data, const std::string& dataset, bn::ScoreKind kind,
                              const ScoreJob& o, const DataReader& reader = {});

}  // namespace cudag::run
