// SPDX-License-Identifier: Apache-2.0
#include "run/score_inputs.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "bn/bge.hpp"
#include "bn/cg_bic.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/magnitude.hpp"
#include "io/dataset_io.hpp"

namespace cudag::run {

bn::ScoreKind check_score_options(const ScoreJob& o) {
    const bn::ScoreKind kind = o.score;
    if (kind != bn::ScoreKind::BDeu && o.iss_given) throw InputError("--iss applies to --score bdeu only");
    if (kind != bn::ScoreKind::BGe && (o.am_given || o.aw_given))
        throw InputError("--am and --aw apply to --score bge only");
    if (kind != bn::ScoreKind::CgBic && (!o.discrete_columns.empty() || !o.continuous_columns.empty()))
        throw InputError("--discrete-columns and --continuous-columns apply to --score cg-bic (mixed data) only");
    if (!(o.iss >= bn::kIssMin && o.iss <= bn::kIssMax))
        throw InputError("--iss must lie in [1e-6, 1e6] (got " + exact_number(o.iss) + ")");
    if (!(o.am >= bn::kAmMin && o.am <= bn::kAmMax))
        throw InputError("--am must lie in [1e-6, 1e6] (got " + exact_number(o.am) + ")");
    return kind;
}

io::TableMode score_table_mode(bn::ScoreKind kind, bool discrete) {
    if (kind == bn::ScoreKind::BGe) return io::TableMode::Numeric;
    if (kind == bn::ScoreKind::CgBic && !discrete) return io::TableMode::Auto;
    return io::TableMode::Labels;
}

Dataset read_scored_data(const DataReader& reader, const std::string& path, const std::string& dataset,
                         io::TableMode mode, const ScoreJob& o) {
    const MissingPolicy missing = o.missing;
    if (missing == MissingPolicy::Testwise)
        throw InputError(
            "--missing testwise deletes rows test by test (pc, fci, citest); a score sums over one "
            "table's rows, so mcmc and score take --missing listwise");
    DataOptions options;
    options.missing = missing;
    options.columns.discrete = o.discrete_columns;
    options.columns.continuous = o.continuous_columns;
    Dataset d = read_data(reader, path, dataset, read_options(mode, options));
    prepare_data(d, options);
    return d;
}

ScoreInputs read_score_inputs(const std::string& path, const std::string& dataset, bn::ScoreKind kind,
                              const ScoreJob& o, const DataReader& reader) {
    const bool bge = kind == bn::ScoreKind::BGe;
    Dataset data;
    if (bge && o.discrete) throw InputError("--discrete contradicts --score bge (continuous data)");
    // BDeu and K2 score discrete data: every cell is a label, as pc reads the data for a
    // discrete test (a column of integer codes with one label in it is a column of labels;
    // labels that are all numbers, one with a fraction, are refused below).
    try {
        data = read_scored_data(reader, path, dataset, score_table_mode(kind, o.discrete), o);
    } catch (const io::NonNumericCell& e) {
        throw InputError(std::string(e.what()) +
                         "; --score bge scores continuous data (bdeu, k2 take labels, cg-bic mixed data)");
    } catch (const io::MixedColumn& e) {
        throw InputError(std::string(e.what()) + "; --discrete reads every cell as a label");
    }
    ScoreInputs in;
    in.names = data.names;
    in.n_samples = data.n_samples;
    Digest digest;
    digest.add_value(data.n_samples);
    for (const std::string& name : data.names) digest.add_string(name);
    if (bge) {
        bn::BgeSpec spec{o.am, std::nullopt};
        if (o.aw_given) {
            const double floor = static_cast<double>(data.n_vars) + 1.0;
            if (!(o.aw > floor && o.aw - floor <= bn::kAwExcessMax))
                throw InputError("--aw must lie in (n + 1, n + 1 + 1e6] = (" + exact_number(floor) + ", " +
                                 exact_number(floor + bn::kAwExcessMax) + "] for these " + std::to_string(data.n_vars) +
                                 " variables (got " + exact_number(o.aw) + ")");
            spec.aw = o.aw;
        }
        // BGe depends on the scale: extreme columns refused (core/magnitude.hpp).
        require_ordinary_magnitudes(data, "--score bge");
        digest.add_bytes(data.values.data(), data.values.size() * sizeof(double));
        in.scorer = std::make_unique<bn::BgeScorer>(data, spec);
    } else if (kind == bn::ScoreKind::CgBic) {
        // The values as scored (codes of discrete columns, numbers) and each column's type and
        // level count.
        digest.add_bytes(data.values.data(), data.values.size() * sizeof(double));
        for (std::int64_t v = 0; v < data.n_vars; ++v)
            digest.add_value(data.is_discrete(v) ? static_cast<std::int64_t>(data.levels[v].size()) : -1);
        digest.add_value(static_cast<std::int64_t>(o.declared_levels));
        in.scorer = std::make_unique<bn::CgBicScorer>(std::move(data), o.declared_levels);
    } else {
        auto scorer = std::make_unique<bn::DiscreteScorer>(bn::discrete_codes_for_scoring(std::move(data)),
                                                           bn::ScoreSpec{kind, o.iss});
        const ci::DiscreteCodes& codes = scorer->codes();
        digest.add_bytes(codes.codes.data(), codes.codes.size());
        digest.add_bytes(codes.cards.data(), codes.cards.size() * sizeof(std::int32_t));
        in.scorer = std::move(scorer);
    }
    in.data_digest = digest.value();
    return in;
}

}  // namespace cudag::run
