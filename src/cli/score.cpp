// SPDX-License-Identifier: Apache-2.0
#include "cli/score.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "bn/bge.hpp"
#include "bn/score.hpp"
#include "core/error.hpp"
#include "io/dataset_io.hpp"
#include "io/graph_reader.hpp"
#include "io/writers.hpp"

namespace cudag::cli {

CLI::App* add_score_command(CLI::App& app, ScoreArgs& a) {
    auto* cmd = app.add_subcommand("score", "score of a given DAG on data: BDeu, K2 or BGe, total and per node");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input; integer codes or labels (bdeu, k2), numbers (bge)")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    cmd->add_option("--dag", a.dag,
                    "the DAG: cudag's edge TSV (source, target, mark; every mark -->) or any "
                    "graph format `cudag compare` reads, with directed edges only")
        ->required();
    cmd->add_option("--score", a.score, "bdeu or k2 (discrete data, as bnlearn) or bge (continuous, as BiDAG)")
        ->required();
    a.iss_option = cmd->add_option("--iss", a.iss, "BDeu imaginary sample size (> 0)")->capture_default_str();
    a.am_option = cmd->add_option("--am", a.am, "BGe prior precision scale (> 0)")->capture_default_str();
    a.aw_option = cmd->add_option("--aw", a.aw, "BGe prior degrees of freedom (> n + 1; default n + am + 1)");
    cmd->add_flag("--json", a.json, "print one JSON object {\"total\": x, \"nodes\": {...}}");
    return cmd;
}

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// The DAG of `path` on the data's variables: each node's parents. Undirected and
/// bidirected edges and cycles are InputErrors.
bn::Dag read_dag(const std::string& path, const std::vector<std::string>& data_names) {
    std::vector<std::string> names = data_names;
    const Pdag g = io::read_graph(path, names);
    bn::Dag dag;
    dag.parents.resize(static_cast<std::size_t>(g.n()));
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (const std::int32_t j : g.neighbours(i)) {
            if (g.is_directed(j, i)) {
                dag.parents[i].push_back(j);
            } else if (!g.is_directed(i, j) && i < j) {
                throw InputError(path + ": the edge " + names[i] +
                                 (g.is_undirected(i, j) ? " --- " : " <-> ") + names[j] +
                                 " is not directed; a DAG to score has only --> edges");
            }
        }
    const std::vector<std::int32_t> cycle = bn::find_cycle(dag);
    if (!cycle.empty()) {
        std::string path_text;
        for (const std::int32_t v : cycle) path_text += names[v] + " --> ";
        path_text += names[cycle.front()];
        throw InputError(path + ": the graph has a directed cycle through '" + names[cycle.front()] +
                         "' (" + path_text + "); only a DAG can be scored");
    }
    return dag;
}

}  // namespace

int run_score(const ScoreArgs& a) {
    const std::optional<bn::ScoreKind> kind = bn::parse_score_kind(a.score);
    if (!kind)
        throw InputError("unknown --score '" + a.score + "' (available: bdeu, k2, bge)");
    auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
    if (*kind != bn::ScoreKind::BDeu && given(a.iss_option))
        throw InputError("--iss applies to --score bdeu only");
    if (*kind != bn::ScoreKind::BGe && (given(a.am_option) || given(a.aw_option)))
        throw InputError("--am and --aw apply to --score bge only");
    if (!(a.iss > 0.0) || !std::isfinite(a.iss))
        throw InputError("--iss must be a positive number (got " + number(a.iss) + ")");
    const bool bge = *kind == bn::ScoreKind::BGe;
    Dataset data;
    try {
        data = io::read_dataset(a.data, a.dataset, bge ? io::TableMode::Numeric : io::TableMode::Auto);
    } catch (const io::NonNumericCell& e) {
        throw InputError(std::string(e.what()) + "; --score bge scores continuous data (bdeu, k2 take labels)");
    }
    const std::vector<std::string> names = data.names;
    const std::int64_t n_samples = data.n_samples;
    const bn::Dag dag = read_dag(a.dag, names);
    std::unique_ptr<bn::LocalScorer> scorer;
    if (bge) {
        bn::BgeSpec spec{a.am, std::nullopt};
        if (given(a.aw_option)) spec.aw = a.aw;
        scorer = std::make_unique<bn::BgeScorer>(data, spec);
    } else {
        scorer = std::make_unique<bn::DiscreteScorer>(bn::discrete_codes_for_scoring(std::move(data)),
                                                      bn::ScoreSpec{*kind, a.iss});
    }
    const std::vector<double> local = scorer->local_scores(dag);
    double total = 0.0;
    for (const double s : local) total += s;

    std::ostringstream os;
    if (a.json) {
        os << "{\"total\": " << number(total) << ", \"nodes\": {";
        for (std::size_t v = 0; v < local.size(); ++v)
            os << (v ? ", " : "") << io::json_quote(names[v]) << ": " << number(local[v]);
        os << "}}\n";
    } else {
        os << "score\t" << bn::score_name(*kind) << '\n';
        if (*kind == bn::ScoreKind::BDeu) os << "iss\t" << number(a.iss) << '\n';
        if (const auto* b = dynamic_cast<const bn::BgeScorer*>(scorer.get()))
            os << "am\t" << number(b->am()) << "\naw\t" << number(b->aw()) << '\n';
        os << "samples\t" << n_samples << '\n'
           << "total\t" << number(total) << '\n'
           << "node\tlocal_score\tparents\n";
        for (std::size_t v = 0; v < local.size(); ++v) {
            os << io::tsv_escape(names[v]) << '\t' << number(local[v]) << '\t';
            for (std::size_t t = 0; t < dag.parents[v].size(); ++t)
                os << (t ? "," : "") << io::tsv_escape(names[dag.parents[v][t]]);
            os << '\n';
        }
    }
    std::cout << os.str();
    return 0;
}

}  // namespace cudag::cli
