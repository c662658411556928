// SPDX-License-Identifier: Apache-2.0
#include "cli/mcmc.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include "bn/diagnostics.hpp"
#include "bn/engines.hpp"
#include "bn/mcmc_run.hpp"
#include "bn/prior.hpp"
#include "bn/score_table.hpp"
#include "bn/table_split.hpp"
#include "cli/common.hpp"
#include "core/backend.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/dataset_io.hpp"
#include "io/hdf5_plan.hpp"
#include "io/graph_reader.hpp"
#include "io/mcmc_result.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "pc/metrics.hpp"
#include "pc/progress.hpp"
#include "pc/run.hpp"

namespace cudag::cli {

namespace {

/// The formats `cudag mcmc --format` writes beside --out.
const std::vector<std::string>& mcmc_formats() {
    static const std::vector<std::string> names = {"edgeprob", "traces", "trace-png", "cpdag", "edges",
                                                   "dot",      "json",   "amat",      "cl",    "png",  "svg"};
    return names;
}

}  // namespace

CLI::App* add_mcmc_command(CLI::App& app, McmcArgs& a) {
    auto* cmd = app.add_subcommand(
        "mcmc", "order MCMC: a Bayesian network (best DAG, edge posteriors) from data, BDeu/K2/BGe scores");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input; integer codes or labels (bdeu, k2), numbers (bge)")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    add_score_options(*cmd, a.score);
    cmd->add_option("--max-parents", a.max_parents, "largest parent set (the paper's s)")->capture_default_str();
    cmd->add_option("--space", a.space,
                    "parent sets: all (every set of --max-parents others), pc (each node's PC-skeleton "
                    "neighbours plus one other node, BiDAG's plus1) or a graph FILE (a --> b lets a "
                    "be a parent of b, a --- b either way)")
        ->capture_default_str();
    a.alpha_option =
        cmd->add_option("--alpha", a.alpha, "significance level of the PC skeleton of --space pc")->capture_default_str();
    a.hard_limit_option = cmd->add_option("--hard-limit", a.hard_limit,
                                          "--space pc: most skeleton neighbours kept per node (the "
                                          "strongest, by pMax), as BiDAG's hardlimit")
                              ->capture_default_str();
    cmd->add_option("--order-score", a.order_score,
                    "max (an order scores its best DAG, as the paper and BiDAG's MAP) or sum (all its "
                    "DAGs, Friedman-Koller: exact edge posteriors)")
        ->capture_default_str();
    cmd->add_option("--moves", a.moves,
                    "swap (two positions, the paper's) or bidag (any two, adjacent or stay, BiDAG's mixture)")
        ->capture_default_str();
    cmd->add_option("--chains", a.chains, "independent chains (split over threads and ranks)")->capture_default_str();
    cmd->add_option("--iterations", a.iterations, "proposals per chain (>= 1)")->capture_default_str();
    cmd->add_option("--burn-in", a.burn_in, "first iterations not kept, in [0, --iterations - 1] (default: a fifth of --iterations)");
    cmd->add_option("--thin", a.thin, "keep every T-th iteration after the burn-in, in [1, --iterations - --burn-in]")->capture_default_str();
    cmd->add_option("--seed", a.seed, "random seed: the same seed gives the same chains anywhere")
        ->capture_default_str()
        ->check(not_negative, "SEED");
    cmd->add_option("--prior", a.prior,
                    "pairwise prior: a table with a header of the variable names and one row per "
                    "variable in that order; row a, column b in [0, 1] is the belief in a --> b "
                    "(0.5: none), adding 100 (belief - 0.5)^3 per parent");
    cmd->add_option("--edge-penalty", a.edge_penalty, "BiDAG's edgepf: each parent adds -log(P) (1: none)")
        ->capture_default_str();
    add_knowledge_options(cmd, a.knowledge);
    cmd->add_option("--checkpoint", a.checkpoint, "HDF5 checkpoint of every chain, rewritten as it runs")
        ->check(not_empty_file_name, "FILE");
    cmd->add_option("--checkpoint-every", a.checkpoint_every,
                    "checkpoint interval: N iterations, or Ns / Nm / Nh (default 5m)");
    cmd->add_flag("--resume", a.resume, "continue from --checkpoint (same data and options required)");
    cmd->add_flag("--keep-checkpoint", a.keep_checkpoint,
                  "keep --checkpoint after a successful run, holding the finished chains");
    cmd->add_flag("--overwrite-checkpoint", a.overwrite_checkpoint,
                  "start afresh over an existing --checkpoint (without it or --resume, one is refused)");
    cmd->add_option("--backend", a.backend, "auto (GPU when available), cpu or cuda: the BDeu/K2 table and max-mode chains run on the GPU")->capture_default_str();
    cmd->add_option("--threads", a.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
    cmd->add_option("--out", a.out, "result HDF5 file (default: the best DAG's edge list on stdout)");
    cmd->add_option("--format", a.formats,
                    "extra outputs beside --out, comma-separated: edgeprob,traces,trace-png (gnuplot), cpdag (the "
                    "best DAG's class), "
                    "and edges,dot,json,amat,cl,png,svg (the best DAG)");
    cmd->add_flag("--force", a.force, "draw png/svg even for more than 500 variables");
    cmd->add_option("--stop-after", a.stop_after)->group("");  // testing: a kill after a checkpoint
    auto* quiet_flag = cmd->add_flag("-q,--quiet", a.quiet, "no progress or summary on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet_flag);
    return cmd;
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// --checkpoint-every: "N" iterations or "N" followed by s, m or h.
void parse_checkpoint_every(const std::string& text, bn::McmcRunConfig& cfg) {
    if (text.empty()) {
        cfg.checkpoint_seconds = 300.0;
        return;
    }
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const std::string unit = text.substr(used);
    const double scale = unit.empty() ? 0.0 : unit == "s" ? 1.0 : unit == "m" ? 60.0 : unit == "h" ? 3600.0 : -1.0;
    if (used == 0 || scale < 0.0 || !(v > 0.0) || !std::isfinite(v) || (unit.empty() && v != std::floor(v)))
        throw InputError("--checkpoint-every takes N iterations or a time such as 90s, 10m, 1h; got '" + text + "'");
    if (unit.empty())
        cfg.checkpoint_every = static_cast<std::int64_t>(v);
    else
        cfg.checkpoint_seconds = v * scale;
}

/// The --prior table: header = the data's variable names (any order), one row per
/// variable in header order; entry (a, b) = belief in a --> b. Returned by data index,
/// belief[p * n + v].
std::vector<double> read_prior(const std::string& path, const std::vector<std::string>& names) {
    Dataset m;
    try {
        m = io::read_dataset(path, "", io::TableMode::Numeric);
    } catch (const io::NonNumericCell& e) {
        throw InputError(std::string(e.what()) + "; --prior holds beliefs in [0, 1]");
    }
    const auto n = static_cast<std::int64_t>(names.size());
    if (m.n_vars != n || m.n_samples != n)
        throw InputError("--prior " + path + ": a " + std::to_string(n) + " x " + std::to_string(n) +
                         " matrix is needed (one row and column per variable), not " + std::to_string(m.n_samples) +
                         " x " + std::to_string(m.n_vars));
    std::vector<std::int64_t> index(static_cast<std::size_t>(n), -1);  // file column -> data variable
    for (std::int64_t c = 0; c < n; ++c) {
        const auto it = std::find(names.begin(), names.end(), m.names[c]);
        if (it == names.end())
            throw InputError("--prior " + path + ": column '" + m.names[c] + "' is not a variable of the data");
        index[c] = it - names.begin();
    }
    std::vector<double> belief(static_cast<std::size_t>(n * n));
    for (std::int64_t row = 0; row < n; ++row)
        for (std::int64_t col = 0; col < n; ++col) {
            const double r = m.column(col)[row];
            if (!(r >= 0.0 && r <= 1.0))
                throw InputError("--prior " + path + ": row " + std::to_string(row + 1) + " ('" + m.names[row] +
                                 "'), column '" + m.names[col] + "' is " + exact_number(r) +
                                 ", outside [0, 1]");
            belief[static_cast<std::size_t>(index[row] * n + index[col])] = r;
        }
    return belief;
}

/// The parent space: candidates per node and (plus1) extras per node.
struct Space {
    std::vector<std::vector<std::int32_t>> candidates, extras;
    std::string description;
};

/// --space FILE: a --> b lets a be a parent of b, a --- b (or <->) either way.
Space read_space(const std::string& path, const std::vector<std::string>& data_names) {
    std::vector<std::string> names = data_names;
    const Pdag g = io::read_graph(path, names);
    Space s;
    s.candidates.resize(data_names.size());
    for (std::int32_t v = 0; v < g.n(); ++v)
        for (const std::int32_t u : g.neighbours(v))
            if (!g.is_directed(v, u)) s.candidates[v].push_back(u);  // u --> v or u --- v
    s.description = "file " + path;
    return s;
}

/// The space less the parents background knowledge forbids (a forbidden direction, a
/// forbidden pair, or a parent from a later tier); `all`: the space of every other node.
/// Required edges cannot be constraints on one node's parent sets here (the table holds
/// every subset of the candidates): refused in one line.
Space restrict_space(Space s, bool all, const Knowledge& k, std::int64_t n) {
    if (!k.required_directions().empty() || !k.undirected_required_pairs().empty())
        throw InputError("cudag mcmc: --require is not supported (order MCMC's score table holds every subset of "
                         "a node's allowed parents, so a parent cannot be made mandatory); use --forbid and --tiers");
    if (all) {
        s.candidates.assign(static_cast<std::size_t>(n), {});
        for (std::int32_t v = 0; v < n; ++v)
            for (std::int32_t u = 0; u < n; ++u)
                if (u != v) s.candidates[static_cast<std::size_t>(v)].push_back(u);
        s.extras.clear();
        s.description = "all";
    }
    std::int64_t dropped = 0;
    const auto drop = [&](std::vector<std::int32_t>& list, std::int32_t v) {
        const auto before = list.size();
        std::erase_if(list, [&](std::int32_t u) { return k.forbidden(u, v); });
        dropped += static_cast<std::int64_t>(before - list.size());
    };
    for (std::int32_t v = 0; v < static_cast<std::int32_t>(s.candidates.size()); ++v) drop(s.candidates[static_cast<std::size_t>(v)], v);
    for (std::int32_t v = 0; v < static_cast<std::int32_t>(s.extras.size()); ++v) drop(s.extras[static_cast<std::size_t>(v)], v);
    s.description += " less " + std::to_string(dropped) + " parents forbidden by background knowledge";
    return s;
}

/// --space pc: the PC skeleton (chi-square for discrete data, Fisher-z for BGe); each node's
/// neighbours (at most hard_limit, the smallest pMax first) are its candidates, every other
/// node an extra (plus1).
Space pc_space(const McmcArgs& a, bool bge, const std::vector<std::string>& names, mpi::Communicator& comm,
               pc::Progress& progress, const DataReader& reader) {
    Dataset data = read_data(reader, a.data, a.dataset, bge ? io::TableMode::Numeric : io::TableMode::Labels);
    pc::PcConfig cfg;
    cfg.alpha = a.alpha;
    cfg.test.kind = bge ? pc::TestKind::FisherZ : pc::TestKind::ChiSquare;
    cfg.backend.kind = parse_backend(a.backend);
    cfg.backend.threads = a.threads;
    const pc::PcResult r = pc::run_pc(data, cfg, comm);
    const auto n = static_cast<std::int64_t>(names.size());
    std::vector<std::vector<std::pair<double, std::int32_t>>> nb(static_cast<std::size_t>(n));
    for (std::int32_t v = 0; v < n; ++v)
        for (const std::int32_t u : r.skeleton.neighbours(v)) nb[v].push_back({0.0, u});
    for (const pc::PairP& p : r.pmax) {
        for (auto& [pv, u] : nb[p.i])
            if (u == p.j) pv = p.p;
        for (auto& [pv, u] : nb[p.j])
            if (u == p.i) pv = p.p;
    }
    Space s;
    s.candidates.resize(static_cast<std::size_t>(n));
    s.extras.resize(static_cast<std::size_t>(n));
    std::int64_t edges = 0, trimmed = 0;
    for (std::int32_t v = 0; v < n; ++v) {
        auto& list = nb[v];
        edges += static_cast<std::int64_t>(list.size());
        std::stable_sort(list.begin(), list.end());
        if (static_cast<int>(list.size()) > a.hard_limit) {
            trimmed += static_cast<std::int64_t>(list.size()) - a.hard_limit;
            list.resize(static_cast<std::size_t>(a.hard_limit));
        }
        std::vector<char> in(static_cast<std::size_t>(n), 0);
        for (const auto& [pv, u] : list) s.candidates[v].push_back(u), in[u] = 1;
        for (std::int32_t u = 0; u < n; ++u)
            if (u != v && !in[u]) s.extras[v].push_back(u);
    }
    s.description = "pc (alpha " + exact_number(a.alpha) + ", " + std::to_string(edges / 2) + " skeleton edges" +
                    (trimmed ? ", " + std::to_string(trimmed) + " neighbours over the hard limit dropped" : "") +
                    ", plus1)";
    progress.note("search space: " + s.description);
    return s;
}

/// The index of the chain whose best order scored highest (the first on ties).
std::int64_t best_chain_of(const bn::OrderMcmcResult& r) {
    std::int64_t best = 0;
    for (std::size_t c = 1; c < r.chains.size(); ++c)
        if (r.chains[c].best_dag_score > r.chains[best].best_dag_score) best = static_cast<std::int64_t>(c);
    return best;
}

io::McmcDiagnostics diagnose(const bn::OrderMcmcResult& r, std::int64_t n) {
    io::McmcDiagnostics d;
    std::vector<std::vector<double>> traces;
    std::vector<double> sums, sumsq;
    for (const auto& c : r.chains) {
        traces.push_back(c.trace);
        sums.insert(sums.end(), c.edge_sum.begin(), c.edge_sum.end());
        sumsq.insert(sumsq.end(), c.edge_sumsq.begin(), c.edge_sumsq.end());
    }
    d.score_psrf = bn::psrf(traces);
    d.score_ess = bn::effective_sample_size(traces);
    d.edges = bn::edge_convergence(sums, sumsq, static_cast<int>(r.chains.size()), r.kept_per_chain, n);
    return d;
}

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

}  // namespace

int run_mcmc_command(const McmcArgs& args, const std::string& command_line, const mpi::Environment& env,
                     std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    McmcArgs a = args;
    if (a.out == "-") a.out.clear();
    const bn::ScoreKind kind = check_score_options(a.score);
    const bool bge = kind == bn::ScoreKind::BGe;
    std::vector<std::string> formats = unique_items(split_commas(a.formats));
    for (const std::string& f : formats)
        if (std::find(mcmc_formats().begin(), mcmc_formats().end(), f) == mcmc_formats().end()) {
            std::string list;
            for (const std::string& v : mcmc_formats()) list += (list.empty() ? "" : ", ") + v;
            throw InputError("unknown output format '" + f + "' (valid: " + list + ")");
        }
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    bn::McmcRunConfig run;
    bn::OrderMcmcOptions& opts = run.opts;
    if (a.order_score == "sum")
        opts.mode = bn::OrderScoreMode::Sum;
    else if (a.order_score == "max")
        opts.mode = bn::OrderScoreMode::Max;
    else
        throw InputError("unknown --order-score '" + a.order_score + "' (available: max, sum)");
    if (a.moves == "swap")
        opts.moves = bn::MoveSet::Swap;
    else if (a.moves == "bidag")
        opts.moves = bn::MoveSet::Bidag;
    else
        throw InputError("unknown --moves '" + a.moves + "' (available: swap, bidag)");
    if (a.chains < 1) throw InputError("--chains must be at least 1, got " + std::to_string(a.chains));
    // A run must keep at least one iteration: the outputs and diagnostics are over the kept
    // ones (iterations t with burn_in < t <= iterations and (t - burn_in) % thin == 0).
    if (a.iterations < 1)
        throw InputError("--iterations must be at least 1 (a run keeps iterations after --burn-in), got " +
                         std::to_string(a.iterations));
    if (!a.burn_in) a.burn_in = a.iterations / 5;
    if (*a.burn_in < 0 || *a.burn_in >= a.iterations)
        throw InputError("--burn-in must lie in [0, --iterations - 1 = " + std::to_string(a.iterations - 1) +
                         "] so that an iteration is kept, got " + std::to_string(*a.burn_in));
    if (a.thin < 1 || a.thin > a.iterations - *a.burn_in)
        throw InputError("--thin must lie in [1, --iterations - --burn-in = " +
                         std::to_string(a.iterations - *a.burn_in) + "] so that an iteration is kept, got " +
                         std::to_string(a.thin));
    if (a.max_parents < 0) throw InputError("--max-parents must be >= 0, got " + std::to_string(a.max_parents));
    if (!(a.edge_penalty > 0.0) || !std::isfinite(a.edge_penalty))
        throw InputError("--edge-penalty must be a positive number, got " + exact_number(a.edge_penalty));
    const bool space_pc = a.space == "pc";
    bool space_all = a.space == "all";
    auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
    if (!space_pc && (given(a.alpha_option) || given(a.hard_limit_option)))
        throw InputError("--alpha and --hard-limit apply to --space pc only");
    if (space_pc && !(a.alpha > 0.0 && a.alpha < 1.0))
        throw InputError("--alpha must lie in (0, 1), got " + exact_number(a.alpha));
    if (space_pc && a.hard_limit < 1)
        throw InputError("--hard-limit must be at least 1, got " + std::to_string(a.hard_limit));
    if (a.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    if (a.resume && a.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
    if (!a.checkpoint_every.empty() && a.checkpoint.empty())
        throw InputError("--checkpoint-every needs --checkpoint FILE");
    parse_checkpoint_every(a.checkpoint_every, run);
    const BackendKind backend = parse_backend(a.backend);
    a.threads = checked_threads(a.threads, a.quiet || env.rank() != 0);
    opts.chains = a.chains;
    opts.iterations = a.iterations;
    opts.burn_in = *a.burn_in;
    opts.thin = a.thin;
    opts.seed = a.seed;
    opts.threads = a.threads;
    if (env.mpi() && opts.threads == 0) opts.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));

    std::vector<io::NamedPath> inputs{{"--data", a.data}};
    if (!a.prior.empty()) inputs.push_back({"--prior", a.prior});
    if (!space_pc && !space_all) inputs.push_back({"--space", a.space});
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.checkpoint}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs(inputs, a.knowledge), out_paths);
    if (a.data == "-" && comm->size() > 1)
        throw InputError("--data - (standard input) needs a single process: give a file name");

    // GPUs: one per rank (node-local rank mod the visible devices).
    const bool gpu = picks_gpu(backend);
    const int device = gpu && env.mpi() ? mpi::bind_device(env.local_rank(), visible_gpus()) : 0;
    const bool root = comm->rank() == 0;
    io::OutputSet outputs;
    const std::string tmp_h5 = claim_outputs(*comm, outputs, a.out, formats, {a.checkpoint, a.resume, a.overwrite_checkpoint});
    pc::Progress progress(a.quiet || !root ? pc::Progress::Mode::Quiet
                                           : (a.verbose ? pc::Progress::Mode::Always : pc::Progress::Mode::Auto),
                          "cudag mcmc");

    // Checkpoints: every rank writes its chains' states (parallel HDF5 on several ranks),
    // else rank 0 gathers and writes them. The result is combined on rank 0 either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] { io_plan = io::plan_hdf5_io(comm->size()); });
    progress.note("HDF5 I/O: " + io_plan.describe() +
                  (io_plan.collective ? " for the checkpoints; the result is written by rank 0" : ""));

    // Data, prior, space, table: on every rank (each runs its chains over the whole table).
    ScoreInputs in;
    const DataReader reader = with_na_values(hooks.read, a.data, a.dataset, a.na_values);
    mpi::run_agreed(*comm, [&] { in = read_score_inputs(a.data, a.dataset, kind, a.score, reader); });
    const auto n = static_cast<std::int64_t>(in.names.size());
    progress.note("read " + a.data + ": " + std::to_string(in.n_samples) + " samples x " + std::to_string(n) +
                  (bge ? " continuous" : " discrete") + " variables");
    // The chains' memory before the table's (minutes of work) is spent.
    mpi::run_agreed(*comm, [&] {
        const auto [c0, c1] = bn::chain_block(opts.chains, comm->rank(), comm->size());
        bn::require_chain_memory(opts, n, c1 - c0, comm->rank() == 0);
    });
    mpi::run_agreed(*comm, [&] {
        const bool draws = std::any_of(formats.begin(), formats.end(),
                                       [](const std::string& f) { return f == "png" || f == "svg"; });
        if (draws && n > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(n) +
                             " variables takes Graphviz minutes; add --force to draw anyway, or write --format dot");
    });
    bn::StructurePrior prior;
    prior.edge_penalty = a.edge_penalty;
    mpi::run_agreed(*comm, [&] {
        if (!a.prior.empty()) prior.belief = read_prior(a.prior, in.names);
    });
    const bn::PriorScorer scorer(*in.scorer, prior);
    Space space;
    if (space_pc) {
        space = pc_space(a, bge, in.names, *comm, progress, reader);
    } else if (!space_all) {
        mpi::run_agreed(*comm, [&] { space = read_space(a.space, in.names); });
    }
    if (a.knowledge.any()) {
        mpi::run_agreed(*comm, [&] {
            const Knowledge knowledge = read_knowledge(a.knowledge, in.names);
            if (!knowledge.empty()) {
                space = restrict_space(std::move(space), space_all, knowledge, n);
                space_all = false;
            }
        });
        if (!space_all) progress.note("search space: " + space.description);
    }
    const auto t_table = clock::now();
    // The entries on the GPU (the same bits).
    bn::ScoreTable::Filler filler;
    if (gpu) {
        if (const auto* d = dynamic_cast<const bn::DiscreteScorer*>(in.scorer.get()))
            filler = bn::cuda_table_filler(*d, scorer, device);
        else if (const auto* b = dynamic_cast<const bn::BgeScorer*>(in.scorer.get()))
            filler = bn::cuda_table_filler(*b, scorer, device);
    }
    std::string engines = filler ? "table cuda" : "table cpu";
    // Laid out alike on every rank; each rank computes the entries of its block of nodes
    // (balanced by entries). Sum mode makes the table whole everywhere (an allgatherv); max
    // mode shares only the sorted lists below, unless they do not fit. The ranks on a node
    // share its threads (opts.threads).
    bn::ScoreTable table = [&] {
        std::optional<bn::ScoreTable> t;
        mpi::run_agreed(*comm, [&] {
            t = space_all ? bn::ScoreTable::layout(n, a.max_parents)
                          : bn::ScoreTable::layout(n, space.candidates, a.max_parents, space.extras);
        });
        return std::move(*t);
    }();
    const bool max_mode = opts.mode == bn::OrderScoreMode::Max;
    const bn::TableShare share = bn::fill_table_split(table, scorer, opts.threads, filler, *comm,
                                                      max_mode ? bn::TableGather::OwnBlock : bn::TableGather::Whole);
    const double seconds_table = seconds_since(t_table);
    progress.note("local-score table: " + std::to_string(table.total_entries()) + " entries (" +
                  std::to_string(n) + " nodes, parent sets of size <= " + std::to_string(a.max_parents) + ") in " +
                  fixed(seconds_table, 3) + " s");
    if (share.ranks > 1)
        progress.note("local-score table split over " + std::to_string(share.ranks) + " ranks by node: this rank scored " +
                      std::to_string(share.entries) + " of " + std::to_string(table.total_entries()) +
                      " entries (nodes " + std::to_string(share.nodes.begin) + " to " +
                      std::to_string(share.nodes.end - 1) + ") in " + fixed(share.seconds_own, 3) +
                      " s, the most any rank scored " + std::to_string(share.heaviest) +
                      (table.holds_all() ? "; whole on every rank after " + fixed(share.seconds_total, 3) + " s"
                                         : std::string("; each rank keeps its block")));
    const auto t_sort = clock::now();
    // Each node's undominated sets sorted by score (the same answers, found early), when
    // they fit in half of the free memory (the least of any rank): max mode's chains walk
    // them, and both modes take each chain's best DAG from them. Each rank sorts its block.
    {
        const bool built = bn::build_sorted_split(
            table, opts.threads, 0.5 * static_cast<double>(available_host_bytes()),
            gpu && a.max_parents <= 12 ? bn::cuda_table_sorter(device) : bn::ScoreTable::Filler{}, *comm);
        if (built)
            progress.note("score-sorted parent sets: " + std::to_string(table.sorted_entries()) + " of " +
                          std::to_string(table.total_entries()) + " kept (the others have a subset scoring as high) in " +
                          fixed(seconds_since(t_sort), 3) + " s");
        else progress.note("score-sorted parent sets do not fit: each node's sets are enumerated");
        // Without the lists, max mode's chains enumerate every node's sets: the whole table.
        if (!built && !table.holds_all())
            progress.note("local-score table made whole on every rank in " + fixed(bn::gather_table_split(table, *comm), 3) +
                          " s");
    }
    const double seconds_sort = seconds_since(t_sort);
    // The chains on the GPU (max mode walks the sorted lists; without them, the CPU's).
    if (gpu && a.max_parents <= 12 && (opts.mode == bn::OrderScoreMode::Sum || table.has_sorted())) {
        mpi::run_agreed(*comm, [&] { run.advance = bn::cuda_chain_advancer(table, opts, device); });
        engines += ", chains cuda";
    } else {
        if (gpu) progress.note("the chains run on the CPU threads");
        engines += ", chains cpu";
    }
    progress.note("engines: " + engines);

    // What a checkpoint must have been written for: the data as scored and every option
    // that changes a chain.
    // Each node's candidate parents and extras (the search space).
    const auto add_space = [&](Digest& d) {
        for (std::int32_t v = 0; v < n; ++v) {
            const auto c = table.candidates(v), x = table.extras(v);
            d.add_value(static_cast<std::uint64_t>(c.size())).add_bytes(c.data(), c.size() * sizeof(std::int32_t));
            d.add_value(static_cast<std::uint64_t>(x.size())).add_bytes(x.data(), x.size() * sizeof(std::int32_t));
        }
    };
    Digest digest;
    digest.add_value(in.data_digest).add_string(a.score.score).add_value(a.score.iss).add_value(a.score.am);
    digest.add_value(given(a.score.aw_option) ? a.score.aw : -1.0).add_value(a.max_parents);
    digest.add_value(a.edge_penalty).add_value(static_cast<std::uint64_t>(prior.belief.size()));
    if (!prior.belief.empty()) digest.add_bytes(prior.belief.data(), prior.belief.size() * sizeof(double));
    add_space(digest);
    digest.add_value(static_cast<int>(opts.mode)).add_value(static_cast<int>(opts.moves)).add_value(opts.chains);
    digest.add_value(opts.iterations);
    digest.add_value(opts.burn_in).add_value(opts.thin).add_value(opts.seed);
    run.config_hash = digest.hex();
    // The same values by name, so that a refused --resume says which differs.
    {
        Digest data, prior_digest, space_digest;
        data.add_value(in.data_digest);
        if (!prior.belief.empty()) prior_digest.add_bytes(prior.belief.data(), prior.belief.size() * sizeof(double));
        add_space(space_digest);
        run.settings = {{"the data (--data)", data.hex()},
                        {"--score", a.score.score},
                        {"--iss", exact_number(a.score.iss)},
                        {"--am", exact_number(a.score.am)},
                        {"--aw", given(a.score.aw_option) ? exact_number(a.score.aw) : "default"},
                        {"--max-parents", std::to_string(a.max_parents)},
                        {"--edge-penalty", exact_number(a.edge_penalty)},
                        {"the prior (--prior)", prior_digest.hex()},
                        {"the search space (--space, --knowledge)", space_digest.hex()},
                        {"--order-score", a.order_score},
                        {"--moves", a.moves},
                        {"--chains", std::to_string(opts.chains)},
                        {"--iterations", std::to_string(opts.iterations)},
                        {"--burn-in", std::to_string(opts.burn_in)},
                        {"--thin", std::to_string(opts.thin)},
                        {"--seed", std::to_string(opts.seed)}};
    }
    run.checkpoint = a.checkpoint;
    run.resume = a.resume;
    run.stop_after = a.stop_after;
    run.collective_checkpoints = io_plan.collective;
    auto last_line = clock::now();
    const auto t_chains = clock::now();
    std::int64_t first_done = -1;
    run.on_progress = [&](const bn::McmcProgress& p) {
        if (first_done < 0) first_done = 0;
        if (hooks.progress) hooks.progress(p);
        const bool last = p.done == p.total;
        if (!progress.enabled() || (!last && seconds_since(last_line) < 2.0)) return;
        last_line = clock::now();
        const double t = seconds_since(t_chains);
        const double rate = t > 0.0 ? static_cast<double>(p.done - first_done) / t : 0.0;
        const double eta = rate > 0.0 ? static_cast<double>(p.total - p.done) / rate : 0.0;
        progress.note("iteration " + std::to_string(p.done) + " of " + std::to_string(p.total) + " (" +
                      std::to_string(p.chains) + " chains), acceptance " +
                      fixed(p.done > 0 ? static_cast<double>(p.accepted) / static_cast<double>(p.done * p.chains) : 0.0, 3) +
                      ", best order score " + fixed(p.best_score, 3) + ", " + fixed(rate, 1) + " it/s, " +
                      fixed(eta, 0) + " s left");
    };
    run.on_checkpoint = [&](std::int64_t done) {
        interrupt::set_note("the last checkpoint is iteration " + std::to_string(done) + " in '" + a.checkpoint +
                            "' (continue with --resume)");
    };
    run.on_resume = [&](std::int64_t done) {
        first_done = done;
        if (root && !a.quiet)
            std::cerr << "cudag mcmc: resuming from checkpoint '" << a.checkpoint << "' at iteration " << done << '\n';
    };
    bn::OrderMcmcResult result;
    try {
        result = bn::run_mcmc(table, run, *comm);
    } catch (const bn::StoppedAtIteration& e) {
        if (root && !a.quiet) std::cerr << "cudag mcmc: " << e.what() << "; continue with --resume\n";
        return 3;
    }
    const double seconds_chains = seconds_since(t_chains);

    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        io::McmcOutput o;
        o.names = in.names;
        o.n_samples = in.n_samples;
        o.best_chain = best_chain_of(result);
        const auto& best = result.chains[static_cast<std::size_t>(o.best_chain)];
        Graph skeleton(n);
        for (std::int32_t v = 0; v < n; ++v)
            for (const std::int32_t p : best.best_parents[v]) skeleton.add(p, v);
        o.best_dag = Pdag(skeleton);
        // The best DAG's local scores, as finish_chains found its parents (from the sorted
        // lists where they exist: a split table holds only this rank's entries).
        const std::vector<double> local = bn::order_score_max(table, best.best_order).node_score;
        for (std::int32_t v = 0; v < n; ++v)
            for (const std::int32_t p : best.best_parents[v]) o.best_dag.orient(p, v);
        o.best_dag_score = best.best_dag_score;
        o.cpdag = pc::dag_to_cpdag(o.best_dag);
        o.diagnostics = diagnose(result, n);
        o.burn_in = opts.burn_in;
        o.thin = opts.thin;
        o.config = {{"learner", "order-mcmc"},
                    {"score", a.score.score},
                    {"iss", exact_number(a.score.iss)},
                    {"max_parents", std::to_string(a.max_parents)},
                    {"space", space_all ? "all" : space.description},
                    {"order_score", a.order_score},
                    {"moves", a.moves},
                    {"chains", std::to_string(opts.chains)},
                    {"iterations", std::to_string(opts.iterations)},
                    {"burn_in", std::to_string(opts.burn_in)},
                    {"thin", std::to_string(opts.thin)},
                    {"seed", std::to_string(opts.seed)},
                    {"edge_penalty", exact_number(a.edge_penalty)},
                    {"prior", a.prior},
                    {"input", a.data},
                    {"input_dataset", a.dataset},
                    {"command_line", command_line},
                    {"cudag_version", CUDAG_VERSION},
                    {"host", mpi::host_name()},
                    {"ranks", std::to_string(comm->size())},
                    {"backend", engines}};
        o.seconds_table = seconds_table;
        o.seconds_sort = seconds_sort;
        o.seconds_chains = seconds_chains;
        o.seconds_total = seconds_since(t0);
        o.result = std::move(result);
        if (hooks.result) hooks.result(o);
        if (a.out.empty() && !hooks.result) {
            std::cout << "source\ttarget\tmark\n";
            for (const io::CpdagEdge& e : io::cpdag_edges(o.best_dag))
                std::cout << io::tsv_escape(in.names[e.a]) << '\t' << io::tsv_escape(in.names[e.b]) << "\t-->\n";
        } else if (!a.out.empty()) {
            io::write_mcmc_result_hdf5(o, local, tmp_h5);
            pc::PcResult view;  // the graph formats draw the best DAG
            view.names = o.names;
            view.cpdag = o.best_dag;
            std::vector<std::string> graph_formats;
            for (const std::string& f : formats) {
                if (f == "edgeprob")
                    io::write_edgeprob_tsv(o, outputs.temp_for(io::format_path(a.out, f)));
                else if (f == "traces")
                    io::write_traces_tsv(o, outputs.temp_for(io::format_path(a.out, f)));
                else if (f == "trace-png") {
                    const std::string final_path = io::format_path(a.out, f);
                    const std::string temp = outputs.temp_for(final_path);
                    std::string message;
                    if (!io::write_traces_png(o, temp, message)) {  // gnuplot is optional: warn
                        outputs.discard(final_path);
                        const std::size_t at = message.rfind(temp);
                        if (at != std::string::npos) message.replace(at, temp.size(), final_path);
                        std::cerr << "warning: " << message << '\n';
                    }
                } else if (f == "cpdag") {
                    pc::PcResult cls;
                    cls.names = o.names;
                    cls.cpdag = o.cpdag;
                    io::write_edges(cls, outputs.temp_for(io::format_path(a.out, f)));
                }
                else
                    graph_formats.push_back(f);
            }
            io::write_formats(view, a.out, graph_formats, outputs, std::cerr);
            outputs.commit();
        }
        if (!a.quiet) {
            const auto& d = o.diagnostics;
            double acceptance = 0.0;
            for (const auto& c : o.result.chains) acceptance += c.acceptance_rate;
            acceptance /= static_cast<double>(o.result.chains.size());
            std::ostringstream os;
            os << "cudag mcmc: " << n << " variables, " << in.n_samples << " samples, " << a.score.score << ", "
               << opts.chains << " chains x " << opts.iterations << " iterations (" << a.order_score
               << "): best DAG score " << fixed(o.best_dag_score, 4) << " with " << io::cpdag_edges(o.best_dag).size()
               << " edges, acceptance " << fixed(acceptance, 3);
            if (opts.chains > 1)
                os << ", score PSRF " << fixed(d.score_psrf, 3) << ", edges with PSRF > 1.1: "
                   << fixed(100.0 * d.edges.fraction_above, 1) << "% of " << d.edges.edges_counted;
            os << "; table " << fixed(seconds_table, 3) << " s";
            if (share.ranks > 1)
                os << " (split over " << share.ranks << " ranks, rank 0's share " << fixed(share.seconds_own, 3)
                   << " s)";
            os << ", sort " << fixed(seconds_sort, 3) << " s, chains " << fixed(seconds_chains, 3) << " s";
            if (!a.out.empty()) {
                os << "; wrote";
                for (const auto& f : outputs.final_paths()) os << ' ' << f;
            }
            std::cerr << os.str() << '\n';
        }
    });
    if (root && !a.checkpoint.empty() && !a.keep_checkpoint) {
        bn::remove_checkpoint(a.checkpoint);
        interrupt::set_note("");
    }
    return 0;
}

}  // namespace cudag::cli
