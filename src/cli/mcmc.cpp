// SPDX-License-Identifier: Apache-2.0
#include "cli/mcmc.hpp"

#include <iostream>

#include "cli/common.hpp"
#include "core/error.hpp"
#include "io/writers.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"

namespace cudag::cli {

CLI::App* add_mcmc_command(CLI::App& app, McmcArgs& args) {
    run::McmcJob& a = args.job;
    auto* cmd = app.add_subcommand(
        "mcmc", "order MCMC: a Bayesian network (best DAG, edge posteriors) from data, BDeu/K2/BGe/CG-BIC scores");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input; integer codes or labels (bdeu, k2), numbers (bge), both (cg-bic)")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    add_score_options(*cmd, a.score, args.score_options);
    cmd->add_option("--max-parents", a.max_parents, "largest parent set (the paper's s)")->capture_default_str();
    CLI::Option* space_option = cmd->add_option(
        "--space", args.space,
        "parent sets: auto (all when its table holds at most 100,000 parent sets, else pc; pc when --alpha "
        "or --hard-limit is given; --resume: the checkpoint's), all (every set of --max-parents others), pc "
        "(each node's PC-skeleton neighbours plus one other node, BiDAG's plus1), iterative (pc's space grown "
        "by rounds of max-mode chains until their MAP DAG adds no edge, BiDAG's iterativeMCMC) or a graph FILE "
        "(a --> b lets a be a parent of b, a --- b either way)");
    space_option->capture_default_str();
    args.space_option = space_option;
    args.alpha_option =
        cmd->add_option("--alpha", a.alpha, "significance level of the PC skeleton of --space pc/iterative")
            ->capture_default_str();
    args.hard_limit_option = cmd->add_option("--hard-limit", a.hard_limit,
                                             "--space pc/iterative: most skeleton neighbours kept per node "
                                             "(the strongest, by pMax) and most candidates the iterative "
                                             "search gives a node, as BiDAG's hardlimit")
                                 ->capture_default_str();
    cmd->add_option("--order-score", args.order_score,
                    "max (an order scores its best DAG, as the paper and BiDAG's MAP) or sum (all its "
                    "DAGs, Friedman-Koller: exact edge posteriors)")
        ->capture_default_str();
    cmd->add_option("--moves", args.moves,
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
        ->check(not_negative_seed, "SEED");
    cmd->add_option("--prior", a.prior,
                    "pairwise prior: a table with a header of the variable names and one row per "
                    "variable in that order; row a, column b in [0, 1] is the belief in a --> b "
                    "(0.5: none), adding 100 (belief - 0.5)^3 per parent");
    cmd->add_option("--edge-penalty", a.edge_penalty, "BiDAG's edgepf: each parent adds -log(P) (1: none)")
        ->capture_default_str();
    add_knowledge_options(cmd, a.knowledge.files);
    cmd->add_option(
           "--checkpoint", a.checkpoint,
           "HDF5 checkpoint of every chain (with --bootstrap: of the replicates' counts), rewritten as it runs")
        ->check(not_empty_file_name, "FILE");
    cmd->add_option("--checkpoint-every", args.checkpoint_every,
                    "checkpoint interval: N iterations, or Ns / Nm / Nh (default 5m)");
    cmd->add_flag("--resume", a.resume, "continue from --checkpoint (same data and options required)");
    cmd->add_flag("--keep-checkpoint", a.keep_checkpoint,
                  "keep --checkpoint after a successful run, holding the finished chains");
    cmd->add_flag("--overwrite-checkpoint", a.overwrite_checkpoint,
                  "start afresh over an existing --checkpoint (without it or --resume, one is refused)");
    cmd->add_option("--backend", args.backend,
                    "auto (GPU when available), cpu or cuda: the BDeu/K2 table and max-mode chains run on the GPU")
        ->capture_default_str();
    cmd->add_option("--tune", a.tunes,
                    "table tuning, key=value: table-prune=on|off (max mode's pruned table), sum-prune=DELTA (sum mode: "
                    "sets more than DELTA below a subset weigh 0), sum-rows=GiB (sum mode's subset rows, 0: none)")
        ->group("");  // hidden: for measurements
    cmd->add_option("--threads", a.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
    cmd->add_option("--out", a.out, "result HDF5 file (default: the best DAG's edge list on stdout)");
    cmd->add_option(
        "--format", a.formats,
        "extra outputs beside --out, comma-separated: edgeprob,traces,trace-png (gnuplot), cpdag (the "
        "best DAG's class), "
        "and edges,dot,json,amat,cl,png,svg (the best DAG; with --bootstrap the consensus graph, and freq)");
    cmd->add_flag("--force", a.force, "draw png/svg even for more than 500 variables");
    args.bootstrap = add_bootstrap_options(*cmd, a, args.resample, "order MCMC");
    cmd->add_option("--stop-after", a.stop_after,
                    "testing: end the run after the checkpoint at this iteration, as a kill would")
        ->group("");
    auto* quiet_flag = cmd->add_flag("-q,--quiet", a.quiet, "no progress or summary on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet_flag);
    return cmd;
}

int run_mcmc_command(const McmcArgs& args, const std::string& command_line, const mpi::Environment& env,
                     std::unique_ptr<mpi::Communicator>& comm) {
    run::McmcJob job = args.job;
    const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
    job.alpha_given = given(args.alpha_option);
    job.hard_limit_given = given(args.hard_limit_option);
    job.space_given = given(args.space_option);
    job.space = run::parse_space(args.space);
    job.checkpoint_every = run::parse_unless_empty(args.checkpoint_every, run::parse_checkpoint_every);
    args.score_options.apply(job.score);
    job.order_score = bn::parse_order_score(args.order_score);
    job.moves = bn::parse_moves(args.moves);
    job.backend = parse_backend(args.backend);
    check_bootstrap_use(args.bootstrap, job.bootstrap);
    job.resample = bootstrap::parse_resample(args.resample);
    const run::McmcRun done = run::run_mcmc(job, command_line, env, comm);
    const bool root = comm->rank() == 0;
    if (done.bootstrap) {
        // No output file: the frequencies go to stdout, with the consensus marks.
        if (job.out.empty() || job.out == "-")
            bootstrap::write_frequencies_tsv(done.bootstrap->table, done.bootstrap->consensus, done.bootstrap->names,
                                             "-");
        if (!job.quiet) std::cerr << done.summary << '\n';
        return 0;
    }
    if (!done.stopped.empty()) {
        if (root && !job.quiet) std::cerr << "cudag mcmc: " << done.stopped << "; continue with --resume\n";
        return 3;
    }
    if (!done.output) return 0;  // a rank other than 0
    if (job.out.empty() || job.out == "-") {
        const bn::McmcOutput& o = *done.output;
        std::cout << "source\ttarget\tmark\n";
        for (const io::CpdagEdge& e : io::cpdag_edges(o.best_dag))
            std::cout << io::tsv_escape(o.names[e.a]) << '\t' << io::tsv_escape(o.names[e.b]) << "\t-->\n";
    }
    if (!job.quiet) std::cerr << done.summary << '\n';
    return 0;
}

}  // namespace cudag::cli
