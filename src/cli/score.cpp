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
    auto* cmd =
        app.add_subcommand("score", "score of a given DAG on data: BDeu, K2, BGe or CG-BIC, total and per node");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input; integer codes or labels (bdeu, k2), numbers (bge), both (cg-bic)")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    cmd->add_option("--dag", a.dag,
                    "the DAG: cudag's edge TSV (source, target, mark; every mark -->) or any "
                    "graph format `cudag compare` reads, with directed edges only")
        ->required();
    add_score_options(*cmd, a.score, a.score_options);
    cmd->add_flag("--json", a.json, "print one JSON object {\"total\": x, \"nodes\": {...}}");
    return cmd;
}

namespace {

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
                throw InputError(path + ": the edge " + names[i] + (g.is_undirected(i, j) ? " --- " : " <-> ") +
                                 names[j] + " is not directed; a DAG to score has only --> edges");
            }
        }
    const std::vector<std::int32_t> cycle = bn::find_cycle(dag);
    if (!cycle.empty()) {
        std::string path_text;
        for (const std::int32_t v : cycle) path_text += names[v] + " --> ";
        path_text += names[cycle.front()];
        throw InputError(path + ": the graph has a directed cycle through '" + names[cycle.front()] + "' (" +
                         path_text + "); only a DAG can be scored");
    }
    return dag;
}

}  // namespace

int run_score(const ScoreArgs& a) {
    run::ScoreJob score = a.score;
    a.score_options.apply(score);
    const bn::ScoreKind kind = run::check_score_options(score);
    run::ScoreInputs in =
        run::read_score_inputs(a.data, a.dataset, kind, score, with_na_values({}, a.data, a.dataset, a.na_values));
    const std::vector<std::string>& names = in.names;
    const bn::Dag dag = read_dag(a.dag, names);
    const std::unique_ptr<bn::LocalScorer>& scorer = in.scorer;
    const std::vector<double> local = scorer->local_scores(dag);
    double total = 0.0;
    for (const double s : local) total += s;
    // A non-finite score is an error, never a result.
    for (std::size_t v = 0; v < local.size(); ++v)
        if (!std::isfinite(local[v]))
            throw InputError(a.data + ": the " + bn::score_name(kind) + " local score of '" + names[v] + "' is " +
                             exact_number(local[v]) + ", not a number a score can be");

    std::ostringstream os;
    if (a.json) {
        os << "{\"total\": " << exact_number(total) << ", \"nodes\": {";
        for (std::size_t v = 0; v < local.size(); ++v)
            os << (v ? ", " : "") << io::json_quote(names[v]) << ": " << exact_number(local[v]);
        os << "}}\n";
    } else {
        os << "score\t" << bn::score_name(kind) << '\n';
        if (kind == bn::ScoreKind::BDeu) os << "iss\t" << exact_number(a.score.iss) << '\n';
        if (const auto* b = dynamic_cast<const bn::BgeScorer*>(scorer.get()))
            os << "am\t" << exact_number(b->am()) << "\naw\t" << exact_number(b->aw()) << '\n';
        os << "samples\t" << in.n_samples << '\n'
           << "total\t" << exact_number(total) << '\n'
           << "node\tlocal_score\tparents\n";
        for (std::size_t v = 0; v < local.size(); ++v) {
            os << io::tsv_escape(names[v]) << '\t' << exact_number(local[v]) << '\t';
            for (std::size_t t = 0; t < dag.parents[v].size(); ++t)
                os << (t ? "," : "") << io::tsv_escape(names[dag.parents[v][t]]);
            os << '\n';
        }
    }
    std::cout << os.str();
    return 0;
}

}  // namespace cudag::cli
