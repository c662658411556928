// SPDX-License-Identifier: Apache-2.0
#include "cli/pcmci.hpp"

namespace cudag::cli {

CLI::App* add_pcmci_command(CLI::App& app, PcmciArgs& args) {
    run::PcmciJob& a = args.job;
    pcmci::Settings& s = a.settings;
    auto* cmd = app.add_subcommand(
        "pcmci",
        "PCMCI or PCMCI+ on time series (tigramite's run_pcmci, run_pcmciplus): lagged and contemporaneous links, "
        "ParCorr or CMIknn");
    cmd->add_option("--data", a.data,
                    "time series: CSV/TSV/whitespace text with a header row, one column a series, rows in time "
                    "order; or HDF5; '-' reads text from standard input")
        ->required();
    cmd->add_option("--dataset", a.dataset,
                    "HDF5 dataset path (default: the only 2-D dataset); a group: each of its datasets one "
                    "independent series (tigramite's multiple datasets), in the order of their names");
    cmd->add_option("--missing-flag", a.missing_flag,
                    "missing values as tigramite's missing_flag: cells equal to this number (or, with nan, the "
                    "empty, NA and NaN cells) are missing, and each test leaves out the time steps where one of "
                    "its lagged variables is missing");
    cmd->add_option("--series-column", a.series_column,
                    "column naming each row's series: the rows of each value are one independent series "
                    "(tigramite's multiple datasets), in the order the values first appear; not a variable");
    cmd->add_option("--time-column", a.time_column,
                    "column of each row's time: the rows (of each series) must be in increasing time order; "
                    "not a variable");
    cmd->add_option("--method", args.method, "pcmci (tigramite's run_pcmci) or pcmciplus (run_pcmciplus)")
        ->capture_default_str();
    cmd->add_option("--test", args.test, "parcorr (tigramite's ParCorr, analytic) or cmiknn")->capture_default_str();
    cmd->add_option("--tau-min", s.tau_min, "smallest lag of the links tested (0: contemporaneous links too)")
        ->capture_default_str();
    cmd->add_option("--tau-max", s.tau_max, "largest lag; below T/2 (the tests use time steps 2*tau_max..T-1)")
        ->capture_default_str();
    args.pc_alpha = cmd->add_option(
        "--pc-alpha", args.pc_alpha_text,
        "significance level of the condition selection (PC1) and, for pcmciplus, of every test, in [0, 1] "
        "(default: 0.2 for pcmci, 0.01 for pcmciplus); several, comma-separated, or auto (tigramite's "
        "pc_alpha list or None; parcorr only): pcmci keeps per series the value whose parents score best "
        "(ParCorr's AIC), pcmciplus runs per value and keeps the best-scoring result; auto: 0.05,0.1,0.2,0.3,"
        "0.4,0.5 for pcmci, 0.001,0.005,0.01,0.025,0.05 for pcmciplus");
    cmd->add_option("--alpha-level", s.alpha_level, "significance level of the MCI tests for the graph, in [0, 1]")
        ->capture_default_str();
    cmd->add_option("--max-conds-dim", s.max_conds_dim,
                    "largest conditioning set of the condition selection (-1: no cap, tigramite's None)")
        ->capture_default_str();
    cmd->add_option("--max-combinations", s.max_combinations,
                    "subsets of each size tested per parent in the condition selection")
        ->capture_default_str();
    cmd->add_option("--max-conds-py", s.max_conds_py, "parents of Y in an MCI test's conditions (-1: all)")
        ->capture_default_str();
    cmd->add_option("--max-conds-px", s.max_conds_px, "parents of X in an MCI test's conditions (-1: all)")
        ->capture_default_str();
    cmd->add_option("--max-conds-px-lagged", s.max_conds_px_lagged,
                    "pcmciplus: parents of X in a test's conditions when X is lagged (-1: as --max-conds-px)")
        ->capture_default_str();
    cmd->add_option("--contemp-collider-rule", args.collider_rule,
                    "pcmciplus: majority, conservative (both test every subset of the neighbours) or none (the "
                    "separating set of the skeleton)")
        ->capture_default_str();
    cmd->add_flag("--no-conflict-resolution{false}", s.conflict_resolution,
                  "pcmciplus: orient in order, the first orientation of a link winning, instead of marking "
                  "conflicting orientations x-x");
    cmd->add_flag("--reset-lagged-links", s.reset_lagged_links,
                  "pcmciplus: the skeleton phase tests every lagged link again, not only the condition "
                  "selection's parents");
    cmd->add_option("--fdr", args.fdr, "none or fdr_bh (Benjamini-Hochberg q-values of the lagged links)")
        ->capture_default_str();
    cmd->add_option("--links", a.links,
                    "link assumptions (tigramite's link_assumptions): lines cause<TAB>effect<TAB>lag<TAB>type, "
                    "types o-o, o?o, -->, -?>, <--, <?-; links not listed are absent");
    add_cmi_knn_options(*cmd, a.cmi, args.cmi_options, false);
    cmd->add_option("--backend", args.backend, "auto (a GPU when one is visible), cpu or cuda")->capture_default_str();
    cmd->add_option("--threads", a.threads, "CPU threads (0: all hardware threads)")->capture_default_str();
    cmd->add_option("--out", a.out,
                    "result HDF5 file (val_matrix, p_matrix, graph, parents, settings); default or '-': the links "
                    "table on stdout");
    cmd->add_option("--format", a.formats,
                    "extra outputs beside --out, comma-separated: links (.links.tsv), json (.json), and the process "
                    "graph and time-series graph as dot (.dot, .ts.dot), png or svg (.png/.ts.png; Graphviz's dot)");
    cmd->add_flag("--force", a.force, "draw png/svg even for more than 500 nodes (Graphviz takes minutes)");
    cmd->add_option("--checkpoint", a.checkpoint,
                    "HDF5 checkpoint of the answered tests (rewritten at most every --checkpoint-every seconds); "
                    "with --resume a killed run continues without asking them again, to the same result");
    cmd->add_option("--checkpoint-every", a.checkpoint_every,
                    "least seconds between two checkpoint writes (0: after every batch of tests)")
        ->capture_default_str();
    cmd->add_flag("--resume", a.resume, "continue from --checkpoint (same data and options required)");
    cmd->add_flag("--keep-checkpoint", a.keep_checkpoint,
                  "keep --checkpoint after a successful run (default: removed)");
    cmd->add_flag("--overwrite-checkpoint", a.overwrite_checkpoint,
                  "start afresh over an existing --checkpoint (without it or --resume, one is refused)");
    // Testing only: simulate a kill after this many tests (their checkpoint written).
    cmd->add_option("--stop-after-tests", a.stop_after_tests,
                    "testing: end the run after this many tests as a kill would, its checkpoint written")
        ->group("");
    auto* quiet = cmd->add_flag("-q,--quiet", a.quiet, "no progress or summary on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet);
    return cmd;
}

int run_pcmci_command(const PcmciArgs& args, const std::string& command_line, mpi::Communicator& comm, int local_rank) {
    run::PcmciJob a = args.job;
    a.method = run::parse_pcmci_method(args.method);
    a.test = run::parse_pcmci_test(args.test);
    a.settings.contemp_collider_rule = pcmci::parse_collider_rule(args.collider_rule);
    a.fdr = run::parse_fdr(args.fdr);
    a.backend = parse_backend(args.backend);
    apply_cmi_options(args.cmi_options, a.cmi);
    if (args.pc_alpha && args.pc_alpha->count() > 0) run::set_pc_alpha(a, args.pc_alpha_text);
    run::run_pcmci(a, command_line, {}, &comm, local_rank);
    return 0;
}

}  // namespace cudag::cli
