// SPDX-License-Identifier: Apache-2.0
#include "cli/simulate.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <tuple>
#include <vector>

#include "cli/common.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "io/dataset_io.hpp"
#include "io/graph_reader.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "sim/network.hpp"
#include "sim/nonlinear.hpp"

namespace cudag::cli {

CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& args) {
    auto* sim_cmd = app.add_subcommand("simulate", "simulate data with a known causal graph");
    sim_cmd->require_subcommand(1);
    const auto add_quiet = [&args](CLI::App* c) { c->add_flag("-q,--quiet", args.quiet, "no summary on stderr"); };
    add_quiet(sim_cmd);  // `cudag simulate -q discrete ...`
    const auto add_dag_sim = [&sim_cmd, &add_quiet](const char* name, const char* about, SimArgs& a,
                                                    const char* weight) {
        auto* c = sim_cmd->add_subcommand(name, about);
        add_quiet(c);
        c->add_option("--vars", a.spec.n_vars, "number of variables")->required();
        c->add_option("--samples", a.spec.n_samples, "number of samples")->required();
        auto* density =
            c->add_option("--density", a.spec.density, "edge probability d of each pair j < i")->capture_default_str();
        density->each([&a](const std::string&) { a.density_given = true; });
        c->add_option("--seed", a.spec.seed, "random seed")->check(not_negative_seed, "SEED")->capture_default_str();
        c->add_option("--out", a.out, "data file: .h5/.hdf5 (dataset /data), .csv, .tsv/.txt; '-': CSV on stdout")
            ->required();
        c->add_option("--truth", a.truth,
                      std::string("true DAG as a TSV edge list (source target mark weight: ") + weight + ")");
        c->add_option("--threads", a.threads, "CPU threads (0: all)");
        c->add_flag("--overwrite", a.overwrite, "replace --out and --truth when they exist (else refused)");
        if (std::string(name) == "gaussian") {
            c->add_option("--graph", a.graph,
                          "cupc (cuPC's generator, --density per pair), er (Erdős–Rényi) or scale-free "
                          "(preferential attachment, hubs); er and scale-free: weights of both signs, "
                          "each node's signal-to-noise ratio in [0.5, 2], columns in random order")
                ->capture_default_str();
            c->add_option("--degree", a.degree,
                          "expected neighbours per variable (instead of --density; default 4 for er "
                          "and scale-free)")
                ->excludes(density);
            c->add_option("--hub-exponent", a.hub_exponent,
                          "scale-free: attach to earlier nodes with probability ~ (degree + 1)^A "
                          "(default 1; larger: bigger hubs)");
        }
        return c;
    };
    add_dag_sim("gaussian", "linear Gaussian DAG, cuPC's generator", args.gaussian, "the coefficient");
    add_dag_sim("nonlinear",
                "nonlinear additive-noise DAG (MANM-CS): each edge linear, quadratic, "
                "tanh or sine of the standardised parent; the DAG of simulate gaussian",
                args.nonlinear, "beta, the edge function's factor; a fifth column names the function");

    DiscreteSimArgs& da = args.discrete;
    auto* disc = sim_cmd->add_subcommand("discrete", "random discrete Bayesian network, Dirichlet CPTs");
    add_quiet(disc);
    disc->add_option("--vars", da.spec.n_vars, "number of variables")->required();
    disc->add_option("--samples", da.spec.n_samples, "number of samples")->required();
    disc->add_option("--density", da.spec.density, "probability of each arc j -> i, j < i")->capture_default_str();
    disc->add_option("--states", da.spec.max_states, "each variable gets 2..K states")->capture_default_str();
    disc->add_option("--max-parents", da.spec.max_parents,
                     "keep at most K parents per variable, the nearest ones (0: no bound)")
        ->capture_default_str()
        ->check(not_negative_count, "COUNT");
    disc->add_option("--seed", da.spec.seed, "random seed")->check(not_negative_seed, "SEED")->capture_default_str();
    disc->add_option("--out", da.out, "data file: .csv, .tsv/.txt (level labels), .h5 (codes)")->required();
    disc->add_option("--truth", da.truth, "true DAG as a TSV edge list");
    disc->add_option("--threads", da.threads, "CPU threads (0: all)");
    disc->add_flag("--overwrite", da.overwrite, "replace --out and --truth when they exist (else refused)");
    DiscreteSimArgs& ba = args.bif;
    auto* bif = sim_cmd->add_subcommand("bif", "forward samples of a BIF network (e.g. bnlearn's)");
    add_quiet(bif);
    bif->add_option("--bif", ba.bif, "network file in BIF format")->required();
    bif->add_option("--samples", ba.spec.n_samples, "number of samples")->required();
    bif->add_option("--seed", ba.spec.seed, "random seed")->check(not_negative_seed, "SEED")->capture_default_str();
    bif->add_option("--out", ba.out, "data file: .csv, .tsv/.txt (state names), .h5 (codes)")->required();
    bif->add_option("--truth", ba.truth, "the network's DAG as a TSV edge list");
    bif->add_option("--threads", ba.threads, "CPU threads (0: all)");
    bif->add_flag("--overwrite", ba.overwrite, "replace --out and --truth when they exist (else refused)");
    return sim_cmd;
}

namespace {

/// The simulate commands' outputs: distinct, at most one on standard output, none replacing
/// a file without --overwrite, every location writable (checked before the work); `inputs`
/// are what the command reads.
std::string prepare_sim_outputs(const std::vector<io::NamedPath>& inputs, const std::string& out,
                                const std::string& truth, bool overwrite, io::OutputSet& outputs) {
    if (out == "-" && truth == "-") throw InputError("--out and --truth cannot both be '-' (standard output)");
    io::check_distinct(inputs, {{"--out", out}, {"--truth", truth}});
    io::check_new_files({{"--out", out}, {"--truth", truth}}, overwrite);
    if (out != "-") outputs.temp_for(out);
    return truth.empty() || truth == "-" ? truth : outputs.temp_for(truth);
}

/// simulate gaussian, or nonlinear (the same DAG, nonlinear edge functions).
int run_dag_simulate(const SimArgs& a, bool nonlinear, bool quiet) {
    if (a.out.empty()) throw InputError("--out is required");
    io::OutputSet outputs;
    const std::string truth_tmp = prepare_sim_outputs({}, a.out, a.truth, a.overwrite, outputs);
    const int threads = checked_threads(a.threads, false);
    const sim::GraphKind graph = sim::parse_graph_kind(a.graph);
    sim::GaussianSimSpec spec = a.spec;
    sim::NetworkSimSpec net;
    net.graph = graph;
    net.degree = a.degree.value_or(4.0);
    if (a.hub_exponent && graph != sim::GraphKind::ScaleFree)
        throw InputError("--hub-exponent applies to --graph scale-free only");
    if (a.density_given && graph != sim::GraphKind::Cupc)
        throw InputError("--density applies to --graph cupc; give --degree (expected neighbours) for " + a.graph);
    if (a.hub_exponent) net.hub_exponent = *a.hub_exponent;
    if (graph != sim::GraphKind::Cupc || a.degree) sim::validate(spec, net);
    if ((graph != sim::GraphKind::Cupc || a.degree) && spec.n_vars > 1)
        spec.density = net.degree / static_cast<double>(spec.n_vars - 1);
    if (spec.n_vars >= 1 && spec.n_samples >= 1 && spec.density >= 0.0) {
        char detail[160];
        std::snprintf(detail, sizeof detail, "%lld x %lld values, %.3g expected edges",
                      static_cast<long long>(spec.n_vars), static_cast<long long>(spec.n_samples),
                      sim::expected_edges(spec));
        require_host_memory(sim::simulation_bytes(spec), nonlinear ? "simulate nonlinear" : "simulate gaussian", detail,
                            "lower --vars, --samples or --density");
    }
    Dataset data;
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> edges;
    std::vector<std::string> functions;  // nonlinear: each edge's function
    std::string kinds;                   // nonlinear: how many edges of each function
    if (nonlinear) {
        sim::NonlinearSim s = sim::simulate_nonlinear(spec, threads);
        edges = s.dag_edges();
        std::map<std::string, int> count;
        for (const sim::NonlinearEdge& e : s.edges) {
            functions.push_back(sim::to_string(e.function));
            ++count[functions.back()];
        }
        for (const auto& [name, c] : count) kinds += (kinds.empty() ? " (" : ", ") + std::to_string(c) + " " + name;
        if (!kinds.empty()) kinds += ")";
        data = std::move(s.data);
    } else {
        sim::GaussianSim s =
            graph == sim::GraphKind::Cupc ? sim::simulate_gaussian(spec, threads) : sim::simulate_network(spec, net);
        edges = std::move(s.dag_edges);
        data = std::move(s.data);
    }
    io::write_dataset(data, a.out, outputs);
    if (!a.truth.empty()) io::write_truth_tsv(data.names, edges, truth_tmp, functions);
    outputs.commit();
    if (quiet) return 0;
    std::cerr << "cudag simulate: " << spec.n_vars << " variables x " << spec.n_samples << " samples, " << edges.size()
              << " true edges" << kinds << "; wrote " << a.out << (a.truth.empty() ? "" : " and " + a.truth) << '\n';
    return 0;
}

int run_simulate_discrete(const DiscreteSimArgs& a, bool from_bif, bool quiet) {
    io::OutputSet outputs;
    std::vector<io::NamedPath> inputs;
    if (from_bif) inputs.push_back({"--bif", a.bif});
    const std::string truth_tmp = prepare_sim_outputs(inputs, a.out, a.truth, a.overwrite, outputs);
    const int threads = checked_threads(a.threads, false);
    if (!from_bif && a.spec.n_vars >= 1 && a.spec.density >= 0.0) {
        // Arcs (bounded by --max-parents) and their CPTs before the network is drawn.
        const double n = static_cast<double>(a.spec.n_vars);
        double arcs = a.spec.density * n * (n - 1.0) / 2.0;
        if (a.spec.max_parents > 0) arcs = std::min(arcs, n * a.spec.max_parents);
        char detail[96];
        std::snprintf(detail, sizeof detail, "%.3g expected arcs", arcs);
        require_host_memory(64.0 * arcs + 64.0 * n, "simulate discrete", detail,
                            "lower --vars, --density or --max-parents");
    }
    const sim::BayesNet net = from_bif ? sim::read_bif(a.bif) : sim::random_network(a.spec);
    if (a.spec.n_samples >= 1)
        require_host_memory(16.0 * static_cast<double>(net.size()) * static_cast<double>(a.spec.n_samples), "simulate",
                            std::to_string(net.size()) + " x " + std::to_string(a.spec.n_samples) + " values",
                            "lower --samples");
    const Dataset data = sim::forward_sample(net, a.spec.n_samples, a.spec.seed, threads);
    io::write_dataset(data, a.out, outputs);
    if (!a.truth.empty()) io::write_truth_tsv(data.names, net.arcs(), truth_tmp);
    outputs.commit();
    if (quiet) return 0;
    std::cerr << "cudag simulate: " << data.n_vars << " discrete variables x " << data.n_samples << " samples, "
              << net.arcs().size() << " true edges; wrote " << a.out << (a.truth.empty() ? "" : " and " + a.truth)
              << '\n';
    return 0;
}

}  // namespace

int run_simulate(const CLI::App& cmd, const SimulateArgs& a) {
    if (cmd.got_subcommand("gaussian")) return run_dag_simulate(a.gaussian, false, a.quiet);
    if (cmd.got_subcommand("nonlinear")) return run_dag_simulate(a.nonlinear, true, a.quiet);
    if (cmd.got_subcommand("discrete")) return run_simulate_discrete(a.discrete, false, a.quiet);
    if (cmd.got_subcommand("bif")) return run_simulate_discrete(a.bif, true, a.quiet);
    return 0;
}

}  // namespace cudag::cli
