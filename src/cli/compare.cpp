// SPDX-License-Identifier: Apache-2.0
#include "cli/compare.hpp"

#include <iostream>

#include "io/graph_reader.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "pc/metrics.hpp"

namespace cudag::cli {

CLI::App* add_compare_command(CLI::App& app, CompareArgs& a) {
    auto* cmp = app.add_subcommand("compare", "skeleton precision/recall/F1 and CPDAG SHD of an estimate");
    cmp->add_option("--truth", a.truth,
                    "true graph: edge TSV, Tetrad/causal-learn graph text or matrix, pcalg "
                    ".amat.csv, node-link .json, .dot or cudag's .h5 result")
        ->required();
    cmp->add_option("--estimate", a.estimate, "estimated graph, same formats (any cudag pc output)")->required();
    cmp->add_option("--json", a.json,
                    "also write the numbers as JSON to this file; '-': only the JSON on stdout "
                    "(the table goes to stderr)");
    return cmp;
}

// Reads both graphs (any format read_graph_file knows), puts them on one variable list
// (align_graphs refuses different variable sets), converts a DAG (truth or estimate) to its
// CPDAG and prints which graph of each file it used, then the metrics. With --json -, stdout holds only the JSON and
// the table goes to stderr, so that `cudag compare ... --json - | jq` works.
int run_compare(const CompareArgs& a) {
    io::check_distinct({{"--truth", a.truth}, {"--estimate", a.estimate}}, {{"--json", a.json}});
    const io::GraphFile truth_file = io::read_graph_file(a.truth);
    const io::GraphFile est_file = io::read_graph_file(a.estimate);
    io::AlignedGraphs g = io::align_graphs(truth_file, est_file);
    // One graph per file, named: which graph of a file with several (a cudag result) was
    // read, and whether it was a DAG, compared as its CPDAG. Both sides alike, so that an
    // MCMC run's best DAG gives one answer from any of its files (r.h5, r.edges.tsv, ...)
    // and the same as its CPDAG (r.cpdag.tsv).
    std::string used;
    const auto describe = [&](const char* role, const io::GraphFile& f, Pdag& graph) {
        used += std::string(role) + f.path + " (" + f.format + (f.graph_name.empty() ? "" : ": " + f.graph_name) + ")";
        if (pc::is_dag(graph) && graph.n_edges() > 0) {
            graph = pc::dag_to_cpdag(graph);
            used += ", a DAG: compared as its CPDAG";
        }
        used += '\n';
    };
    describe("truth:    ", truth_file, g.truth);
    describe("estimate: ", est_file, g.estimate);
    const pc::Comparison c = pc::compare_graphs(g.truth, g.estimate);
    const std::string js = pc::comparison_json(c);
    if (a.json == "-") {
        std::cerr << used << pc::comparison_table(c);
        std::cout << js << '\n';
        return 0;
    }
    if (!a.json.empty()) {
        io::OutputSet outputs;
        const std::string tmp = outputs.temp_for(a.json);
        io::TextFile f(tmp);
        f.write(js);
        f.write("\n");
        f.close();
        outputs.commit();
    }
    std::cout << used << pc::comparison_table(c);
    return 0;
}

}  // namespace cudag::cli
