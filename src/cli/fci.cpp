// SPDX-License-Identifier: Apache-2.0
#include "cli/fci.hpp"

#include <iostream>

#include "cli/common.hpp"
#include "cli/pc.hpp"
#include "core/error.hpp"
#include "io/writers.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"

namespace cudag::cli {

CLI::App* add_fci_command(CLI::App& app, FciArgs& args) {
    run::FciJob& j = args.job;
    auto* cmd = app.add_subcommand(
        "fci", "FCI / RFCI: learn a PAG (edges with tail, arrowhead and circle marks) allowing hidden common causes");
    cmd->add_option("--variant", args.variant, "fci (default; pcalg's fci) or rfci (pcalg's rfci)")
        ->capture_default_str();
    add_skeleton_options(cmd, j.pc, args.text, args.cmi_options,
                         "extra outputs beside --out, comma-separated: edges (mark strings o->, <->, -->, ...), "
                         "dot, json, amat (pcalg's amat.pag, written as .pag.amat.csv), cl (causal-learn's "
                         "matrix), png, svg, and freq (--bootstrap's edge-kind frequencies)");
    cmd->add_option("--compat", args.text.compat,
                    "semantics: pcalg (default: pcalg's fci / rfci) or causal-learn (causal-learn 0.1.4.8's fci)")
        ->capture_default_str();
    cmd->add_option("--max-path-length", j.fci.max_path_length,
                    "--compat causal-learn: causal-learn's max_path_length (-1: none; caps R4's discriminating "
                    "paths)")
        ->capture_default_str();
    cmd->add_option("--python-hash-seed", j.fci.python_hash_seed,
                    "--compat causal-learn: walk causal-learn's two Python sets in CPython 3.11's order under "
                    "PYTHONHASHSEED=N (-1: node order)")
        ->capture_default_str();
    cmd->add_option("--pdsep-max", j.fci.pdsep_max,
                    "fci: skip Possible-D-SEP tests of an edge whose Possible-D-SEP set has more nodes "
                    "(pcalg's pdsep.max; -1: no cap)")
        ->capture_default_str();
    cmd->add_flag(
        "--no-pdsep", [&j](std::int64_t) { j.fci.pdsep = false; },
        "fci: skip the Possible-D-SEP stage (pcalg's doPdsep = FALSE)");
    cmd->add_flag("--conservative", j.fci.conservative,
                  "decide unshielded triples conservatively over all separating subsets (pcalg's conservative)");
    cmd->add_flag("--majority-rule", j.fci.majority,
                  "decide unshielded triples by majority over all separating subsets (pcalg's maj.rule)");
    cmd->add_flag("--no-selection-bias", j.no_selection_bias, "skip rules R5-R7 (pcalg's selectionBias = FALSE)");
    cmd->add_option("--type", args.type,
                    "fci: normal, anytime (needs --max-level, which then caps Possible-D-SEP too) or adaptive "
                    "(Possible-D-SEP capped by the skeleton's last level); pcalg's type")
        ->capture_default_str();
    add_resampling_options(cmd, j.pc, args, "FCI", "fci");
    return cmd;
}

int run_fci_command(const FciArgs& args, const std::string& command_line, const mpi::Environment& env,
                    std::unique_ptr<mpi::Communicator>& comm) {
    run::FciJob job = args.job;
    if (job.pc.data.empty() && job.pc.oracle.empty())
        throw InputError("--data is required (or --oracle DAG for the d-separation oracle)");
    parse_skeleton_text(args.text, job.pc);
    apply_cmi_options(args.cmi_options, job.pc.cmi);
    job.fci.variant = fci::parse_variant(args.variant);
    job.fci.type = fci::parse_fci_type(args.type);
    check_resampling_use(args, job.pc);
    job.pc.resample = bootstrap::parse_resample(args.resample);
    const run::PcRun done = run::run_fci(job, command_line, env, comm);
    if (!done.result) {
        if (!job.pc.quiet && !done.summary.empty()) std::cerr << done.summary << '\n';
        return 0;
    }
    const pc::PcResult& r = *done.result;
    if ((job.pc.out.empty() || job.pc.out == "-") && r.bootstrap) {
        // No output file: the frequencies go to stdout, with the consensus PAG's edges.
        std::cout.flush();
        bootstrap::write_pag_frequencies_tsv(*r.bootstrap, *r.pag, r.names, "-");
    } else if ((job.pc.out.empty() || job.pc.out == "-") && r.pag) {
        std::cout << "source\ttarget\tmark\n";
        for (std::int32_t a = 0; a < r.pag->n(); ++a)
            for (const std::int32_t b : r.pag->neighbours(a))
                if (a < b)
                    std::cout << io::tsv_escape(r.names[static_cast<std::size_t>(a)]) << '\t'
                              << io::tsv_escape(r.names[static_cast<std::size_t>(b)]) << '\t'
                              << edge_string(*r.pag, a, b) << '\n';
    }
    std::cout.flush();
    if (!job.pc.quiet) std::cerr << done.summary << '\n';
    return 0;
}

}  // namespace cudag::cli
