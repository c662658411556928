// SPDX-License-Identifier: Apache-2.0
#include "cli/compare.hpp"

#include <iostream>

#include "io/graph_reader.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "pc/graph_compare.hpp"
#include "pc/metrics.hpp"

namespace cudag::cli {

namespace {

constexpr const char* kPagHelp =
    "PAGs (cudag fci's outputs, or any graph with a circle mark o): when truth or estimate is a\n"
    "PAG, the other side, if a DAG, is taken as its CPDAG, and a CPDAG's undirected a --- b as\n"
    "a o-o b (not decided); a --> b is a tail at a and an arrowhead at b. Mark scores count the\n"
    "two endpoints of every edge adjacent in both graphs: arrowhead precision = endpoints where\n"
    "both have an arrowhead / arrowheads of the estimate there, recall = the same / arrowheads\n"
    "of the truth there; tails and circles alike. SHD on PAGs: 1 per pair adjacent in one graph\n"
    "only, 1 per pair adjacent in both with any endpoint mark different (as pcalg's shd counts\n"
    "a mis-marked edge once).";

void write_json(const std::string& path, const std::string& js) {
    io::OutputSet outputs;
    const std::string tmp = outputs.temp_for(path);
    io::TextFile f(tmp);
    f.write(js);
    f.write("\n");
    f.close();
    outputs.commit();
}

/// The table (to stdout, or to stderr with --json -) and the JSON (--json).
int report(const CompareArgs& a, const std::string& used, const std::string& table, const std::string& js) {
    if (a.json == "-") {
        std::cerr << used << table;
        std::cout << js << '\n';
        return 0;
    }
    if (!a.json.empty()) write_json(a.json, js);
    std::cout << used << table;
    return 0;
}

}  // namespace

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
    auto* cmp = app.add_subcommand("compare",
                                   "skeleton precision/recall/F1 and SHD of an estimate (CPDAG, DAG or PAG), "
                                   "with arrowhead/tail/circle precision and recall when either is a PAG");
    cmp->add_option("--truth", a.truth,
                    "true graph: edge TSV, Tetrad/causal-learn graph text or matrix, pcalg "
                    ".amat.csv, node-link .json, .dot or cudag's .h5 result")
        ->required();
    cmp->add_option("--estimate", a.estimate, "estimated graph, same formats (any cudag pc or fci output)")->required();
    cmp->add_option("--json", a.json,
                    "also write the numbers as JSON to this file; '-': only the JSON on stdout "
                    "(the table goes to stderr)");
    cmp->add_flag("--truth-pag", a.truth_pag,
                  "the truth is a PAG even without a circle mark (e.g. an edge list of only --> and <->; "
                  "a pcalg amat of only 1/1 and 2/2 codes is then read as amat.pag)");
    cmp->add_flag("--estimate-pag", a.estimate_pag, "likewise for the estimate");
    cmp->footer(kPagHelp);
    return cmp;
}

// Reads both graphs (any format read_graph_file knows, PAGs too), puts them on one variable
// list (align_graphs refuses different variable sets), converts them as compare_aligned does
// (a DAG to its CPDAG; a CPDAG to PAG marks when the other side is a PAG), prints which graph
// of each file it used and how it was taken, then the metrics. With --json -, stdout holds
// only the JSON and the table goes to stderr, so that `cudag compare ... --json - | jq` works.
int run_compare(const CompareArgs& a) {
    io::check_distinct({{"--truth", a.truth}, {"--estimate", a.estimate}}, {{"--json", a.json}});
    const auto mode = [](bool assume) { return assume ? io::PagMarks::Assume : io::PagMarks::Accept; };
    const io::GraphFile truth_file = io::read_graph_file(a.truth, mode(a.truth_pag));
    const io::GraphFile est_file = io::read_graph_file(a.estimate, mode(a.estimate_pag));
    io::AlignedGraphs g = io::align_graphs(truth_file, est_file);
    const pc::GraphComparison c = pc::compare_aligned(g, truth_file.pag, est_file.pag);
    // One graph per file, named: which graph of a file with several (a cudag result) was
    // read, and whether it was a DAG, compared as its CPDAG. Both sides alike, so that an
    // MCMC run's best DAG gives one answer from any of its files (r.h5, r.edges.tsv, ...)
    // and the same as its CPDAG (r.cpdag.tsv).
    std::string used;
    const auto describe = [&](const char* role, const io::GraphFile& f, const pc::SideTaken& side) {
        used += role;
        used += f.path + " (" + f.format + (f.graph_name.empty() ? "" : ": " + f.graph_name) + ")";
        if (side.pag) used += ", a PAG";
        if (side.was_dag) used += ", a DAG: compared as its CPDAG";
        if (side.as_pag) used += side.was_dag ? ", its --- as o-o" : ", a CPDAG: --- compared as o-o";
        used += '\n';
    };
    describe("truth:    ", truth_file, c.truth);
    describe("estimate: ", est_file, c.estimate);
    if (c.pag) return report(a, used, pc::pag_comparison_table(c.scores), pc::pag_comparison_json(c.scores));
    return report(a, used, pc::comparison_table(c.scores.skeleton), pc::comparison_json(c.scores.skeleton));
}

}  // namespace cudag::cli
