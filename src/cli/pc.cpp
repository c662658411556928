// SPDX-License-Identifier: Apache-2.0
#include "cli/pc.hpp"

#include <iostream>

#include "cli/common.hpp"
#include "core/error.hpp"
#include "io/writers.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"

namespace cudag::cli {

void parse_skeleton_text(const SkeletonText& text, run::PcJob& job) {
    job.compat = skeleton::parse_compat(text.compat);
    job.missing = parse_missing(text.missing);
    job.comm = run::parse_comm(text.comm);
    job.test = run::parse_unless_empty(text.test, skeleton::parse_test);
    job.dof = run::parse_unless_empty(text.dof, skeleton::parse_dof);
    job.backend = parse_backend(text.backend);
}

void add_skeleton_options(CLI::App* cmd, run::PcJob& a, SkeletonText& text, CmiOptions& cmi_options,
                          const std::string& formats_help) {
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input (required unless --oracle)");
    cmd->add_option("--oracle", a.oracle,
                    "no data: answer each CI test by d-separation in this DAG (pcalg's dsepTest; "
                    "simulate --truth's TSV edge list or any graph compare reads, --> edges only) over "
                    "its nodes not --latent, in the file's order; CPU only. For checking a learner's logic")
        ->check(not_empty_file_name, "DAG");
    cmd->add_option("--latent", a.latent, "with --oracle: comma-separated nodes of the DAG that are hidden");
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    add_table_options(*cmd, text.missing, a.discrete_columns, a.continuous_columns);
    cmd->add_option("--test", text.test,
                    "CI test: fisher-z, cmiknn or mi-g-sh (continuous; mi-g-sh: bnlearn's shrinkage, CPU only), "
                    "chi-square, g-square or mi-sh (discrete; mi-sh: "
                    "bnlearn's shrinkage, CPU only), cg-lrt, regression or mi-cg (mixed; mi-cg: bnlearn's, CPU "
                    "only); default: chi-square for discrete "
                    "data, cg-lrt for mixed, else fisher-z");
    cmd->add_flag("--discrete", a.discrete,
                  "read the data as discrete (integer codes or labels); implied by a discrete "
                  "--test or a column of labels");
    cmd->add_option("--dof", text.dof,
                    "degrees of freedom of chi-square/g-square: gpupc, pcalg, causal-learn, bnlearn-adf or pcalg-adapt "
                    "(default: pcalg; causal-learn with --compat causal-learn)");
    cmd->add_option("--alpha", a.cfg.alpha, "significance level, in (0, 1)")->capture_default_str();
    cmd->add_option("--max-level", a.cfg.max_level, "largest conditioning-set size (-1: no cap)")
        ->capture_default_str();
    cmd->add_option("--threads", a.cfg.backend.threads,
                    "CPU threads (0: all hardware threads; more than those are clamped)")
        ->capture_default_str();
    cmd->add_option("--out", a.out, "result HDF5 file (default or '-': print the edge list to stdout)");
    cmd->add_option("--format", a.formats, formats_help);
    cmd->add_flag("--force", a.force, "draw png/svg even for more than 500 variables (Graphviz takes minutes)");
    add_knowledge_options(cmd, a.knowledge.files);
    cmd->add_option("--backend", text.backend, "auto (GPU when available), cpu or cuda")->capture_default_str();
    cmd->add_option("--tune", a.tunes,
                    "GPU kernel tuning, key=value (repeatable or comma-separated): variant=s|e, "
                    "beta, gamma, theta, delta, scan-levels, scan-round-levels, corr-limit "
                    "(GiB); see docs/performance.md")
        ->group("");  // hidden: the automatic choice is the product's
    cmd->add_option(
           "--checkpoint", a.cfg.checkpoint,
           "HDF5 checkpoint rewritten after every level of the skeleton search, or with --bootstrap at replicate "
           "boundaries every 30 s (for --resume)")
        ->check(not_empty_file_name, "FILE");
    cmd->add_flag("--resume", a.cfg.resume, "continue from --checkpoint (same data and test options required)");
    cmd->add_flag("--keep-checkpoint", a.keep_checkpoint,
                  "keep --checkpoint after a successful run (default: removed)");
    cmd->add_flag("--overwrite-checkpoint", a.overwrite_checkpoint,
                  "start afresh over an existing --checkpoint (without it or --resume, one is refused)");
    cmd->add_option("--comm", text.comm,
                    "communicator under MPI: auto (NCCL for GPU runs when built with it), mpi or nccl")
        ->capture_default_str();
    cmd->add_option("--comm-timeout", a.comm_timeout, "seconds an NCCL collective may wait before the job is ended")
        ->capture_default_str();
    add_cmi_knn_options(*cmd, a.cmi, cmi_options, true);
    // Testing only: simulate a kill after a level (its checkpoint written).
    cmd->add_option("--stop-after-level", a.cfg.stop_after_level,
                    "testing: end the run after this level as a kill would, its checkpoint written")
        ->group("");
    auto* quiet_flag = cmd->add_flag("-q,--quiet", a.quiet, "no progress or summary on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet_flag);
}

void add_resampling_options(CLI::App* cmd, run::PcJob& a, ResamplingOptions& args, const std::string& what,
                            const std::string& command) {
    args.bootstrap = add_bootstrap_options(*cmd, a, args.resample, what);
    const std::string boot = "Edge confidence (--bootstrap)";
    args.write_resample_option =
        cmd->add_option("--write-resample", a.write_resample,
                        "write replicate --replicate's rows (.csv/.tsv/.h5) and run nothing: a direct "
                        "cudag " +
                            command + " on that file gives the replicate's graph")
            ->check(not_empty_file_name, "FILE")
            ->group(boot);
    args.replicate_option =
        cmd->add_option("--replicate", a.replicate, "the replicate --write-resample writes (0..B-1)")
            ->capture_default_str()
            ->group(boot);
    cmd->add_flag("--overwrite", a.overwrite, "replace --write-resample's FILE when it exists (else refused)")
        ->group(boot);
}

void check_resampling_use(const ResamplingOptions& args, const run::PcJob& a) {
    check_bootstrap_use(args.bootstrap, a.bootstrap, args.write_resample_option);
    if (args.replicate_option->count() > 0 && args.write_resample_option->count() == 0)
        throw InputError("--replicate needs --write-resample FILE");
}

CLI::App* add_pc_command(CLI::App& app, PcArgs& args) {
    run::PcJob& a = args.job;
    auto* cmd = app.add_subcommand("pc", "PC-stable: learn a CPDAG and separating sets from data");
    add_skeleton_options(cmd, a, args.text, args.cmi_options,
                         "extra outputs beside --out, comma-separated: edges,dot,json,amat,cl,png,svg, and "
                         "freq (--bootstrap's edge frequencies)");
    cmd->add_option("--compat", args.text.compat,
                    "semantics: pcalg (default) or causal-learn (its sepsets, p > alpha, orientation)")
        ->capture_default_str();
    cmd->add_option("--uc-rule", a.uc_rule,
                    "causal-learn uc_rule: 0 sepset, 1 maxP, 2 definiteMaxP (default: pcalg's "
                    "orientation; 0 with --compat causal-learn)");
    cmd->add_option("--uc-priority", a.uc_priority,
                    "causal-learn uc_priority: -1 rule default, 0 overwrite, 1 bi-directed, 2 existing, "
                    "3 stronger, 4 stronger* (default 2)");
    add_resampling_options(cmd, a, args, "PC", "pc");
    return cmd;
}

int run_pc_command(const PcArgs& args, const std::string& command_line, const mpi::Environment& env,
                   std::unique_ptr<mpi::Communicator>& comm) {
    run::PcJob job = args.job;
    if (job.data.empty() && job.oracle.empty())
        throw InputError("--data is required (or --oracle DAG for the d-separation oracle)");
    parse_skeleton_text(args.text, job);
    apply_cmi_options(args.cmi_options, job.cmi);
    check_resampling_use(args, job);
    job.resample = bootstrap::parse_resample(args.resample);
    const run::PcRun done = run::run_pc(job, command_line, env, comm);
    if (!done.result) {
        // A rank other than 0, or --write-resample (rank 0 says what it wrote).
        if (!job.quiet && !done.summary.empty()) std::cerr << done.summary << '\n';
        return 0;
    }
    const pc::PcResult& r = *done.result;
    if ((job.out.empty() || job.out == "-") && r.bootstrap) {
        // No output file: the frequencies go to stdout, with the consensus marks.
        std::cout.flush();
        bootstrap::write_frequencies_tsv(*r.bootstrap, r.cpdag, r.names, "-");
    } else if (job.out.empty() || job.out == "-") {
        // No output file: the CPDAG goes to stdout as the edge list.
        std::cout << "source\ttarget\tmark\n";
        for (const io::CpdagEdge& e : io::cpdag_edges(r.cpdag))
            std::cout << io::tsv_escape(r.names[e.a]) << '\t' << io::tsv_escape(r.names[e.b]) << '\t'
                      << io::edge_mark(e.kind) << '\n';
    }
    std::cout.flush();
    if (!job.quiet) std::cerr << done.summary << '\n';
    return 0;
}

}  // namespace cudag::cli
