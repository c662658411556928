// SPDX-License-Identifier: Apache-2.0
#include "cli/mcmc.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "bn/mcmc_run.hpp"
#include "bn/pipeline.hpp"
#include "cli/common.hpp"
#include "cli/mcmc_parts.hpp"
#include "core/backend.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/hdf5_plan.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "pc/progress.hpp"

namespace cudag::cli {

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
    a.alpha_option = cmd->add_option("--alpha", a.alpha, "significance level of the PC skeleton of --space pc")
                         ->capture_default_str();
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
    cmd->add_option("--burn-in", a.burn_in,
                    "first iterations not kept, in [0, --iterations - 1] (default: a fifth of --iterations)");
    cmd->add_option("--thin", a.thin, "keep every T-th iteration after the burn-in, in [1, --iterations - --burn-in]")
        ->capture_default_str();
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
    cmd->add_option("--backend", a.backend,
                    "auto (GPU when available), cpu or cuda: the BDeu/K2 table and max-mode chains run on the GPU")
        ->capture_default_str();
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

}  // namespace

int run_mcmc_command(const McmcArgs& args, const std::string& command_line, const mpi::Environment& env,
                     std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    McmcArgs a = args;
    const bn::ScoreKind kind = check_score_options(a.score);
    const bool bge = kind == bn::ScoreKind::BGe;
    McmcPlan plan = plan_mcmc(a, env);
    bn::McmcConfig& cfg = plan.cfg;
    const std::vector<std::string>& formats = plan.formats;

    std::vector<io::NamedPath> inputs{{"--data", a.data}};
    if (!a.prior.empty()) inputs.push_back({"--prior", a.prior});
    if (!plan.space_pc && !plan.space_all) inputs.push_back({"--space", a.space});
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.checkpoint}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs(inputs, a.knowledge), out_paths);
    if (a.data == "-" && comm->size() > 1)
        throw InputError("--data - (standard input) needs a single process: give a file name");

    // GPUs: one per rank (node-local rank mod the visible devices).
    cfg.gpu = picks_gpu(plan.backend);
    cfg.device = cfg.gpu && env.mpi() ? mpi::bind_device(env.local_rank(), visible_gpus()) : 0;
    const bool root = comm->rank() == 0;
    io::OutputSet outputs;
    const std::string tmp_h5 =
        claim_outputs(*comm, outputs, a.out, formats, {a.checkpoint, a.resume, a.overwrite_checkpoint});
    pc::Progress progress(a.quiet || !root ? pc::Progress::Mode::Quiet
                                           : (a.verbose ? pc::Progress::Mode::Always : pc::Progress::Mode::Auto),
                          "cudag mcmc");

    // Checkpoints: every rank writes its chains' states (parallel HDF5 on several ranks),
    // else rank 0 gathers and writes them. The result is combined on rank 0 either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] { io_plan = io::plan_hdf5_io(comm->size()); });
    cfg.collective_checkpoints = io_plan.collective;
    progress.note("HDF5 I/O: " + io_plan.describe() +
                  (io_plan.collective ? " for the checkpoints; the result is written by rank 0" : ""));

    // Data, prior, space: on every rank (each computes its share of the table).
    ScoreInputs in;
    const DataReader reader = with_na_values(hooks.read, a.data, a.dataset, a.na_values);
    mpi::run_agreed(*comm, [&] { in = read_score_inputs(a.data, a.dataset, kind, a.score, reader); });
    const auto n = static_cast<std::int64_t>(in.names.size());
    progress.note("read " + a.data + ": " + std::to_string(in.n_samples) + " samples x " + std::to_string(n) +
                  (bge ? " continuous" : " discrete") + " variables");
    // The chains' memory before the table's (minutes of work) is spent.
    mpi::run_agreed(*comm, [&] {
        const auto [c0, c1] = bn::chain_block(cfg.opts.chains, comm->rank(), comm->size());
        bn::require_chain_memory(cfg.opts, n, c1 - c0, comm->rank() == 0);
    });
    mpi::run_agreed(*comm, [&] {
        const bool draws =
            std::any_of(formats.begin(), formats.end(), [](const std::string& f) { return f == "png" || f == "svg"; });
        if (draws && n > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(n) +
                             " variables takes Graphviz minutes; add --force to draw anyway, or write --format dot");
    });
    bn::StructurePrior prior;
    prior.edge_penalty = a.edge_penalty;
    mpi::run_agreed(*comm, [&] {
        if (!a.prior.empty()) prior.belief = read_prior(a.prior, in.names);
    });
    if (plan.space_pc) {
        cfg.space = pc_space(a, bge, in.names, *comm, progress, reader);
    } else if (!plan.space_all) {
        mpi::run_agreed(*comm, [&] { cfg.space = read_space_file(a.space, in.names); });
    }
    if (a.knowledge.any()) {
        mpi::run_agreed(*comm, [&] {
            const Knowledge knowledge = read_knowledge(a.knowledge, in.names);
            if (!knowledge.empty()) cfg.space = bn::restrict_space(std::move(cfg.space), knowledge, n);
        });
        if (!cfg.space.all) progress.note("search space: " + cfg.space.description);
    }

    set_scored(cfg, a, in);
    const bn::McmcObserver observer = mcmc_observer(a, progress, hooks, root);
    bn::McmcOutcome run;
    try {
        run = bn::run_order_mcmc(*in.scorer, prior, cfg, *comm, observer);
    } catch (const bn::StoppedAtIteration& e) {
        if (root && !a.quiet) std::cerr << "cudag mcmc: " << e.what() << "; continue with --resume\n";
        return 3;
    }

    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        bn::McmcOutput o = mcmc_output(a, command_line, in, cfg, run, comm->size());
        o.seconds_total = seconds_since(t0);
        if (hooks.result) hooks.result(o);
        if (a.out.empty() && !hooks.result) {
            std::cout << "source\ttarget\tmark\n";
            for (const io::CpdagEdge& e : io::cpdag_edges(o.best_dag))
                std::cout << io::tsv_escape(in.names[e.a]) << '\t' << io::tsv_escape(in.names[e.b]) << "\t-->\n";
        } else if (!a.out.empty()) {
            write_mcmc_outputs(a, formats, o, run.best_local, outputs, tmp_h5);
        }
        if (!a.quiet) std::cerr << mcmc_summary(a, cfg, o, run, in.n_samples, outputs) << '\n';
    });
    if (root && !a.checkpoint.empty() && !a.keep_checkpoint) {
        bn::remove_checkpoint(a.checkpoint);
        interrupt::set_note("");
    }
    return 0;
}

}  // namespace cudag::cli
