// SPDX-License-Identifier: Apache-2.0
#include "run/mcmc.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "bn/mcmc_run.hpp"
#include "bn/pipeline.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/hdf5_plan.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "pc/progress.hpp"
#include "run/context.hpp"
#include "run/mcmc_parts.hpp"

namespace cudag::run {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Every input against every output and each other, before any work.
void check_mcmc_paths(const McmcJob& a, const McmcPlan& plan, const mpi::Communicator& comm) {
    std::vector<io::NamedPath> inputs{{"--data", a.data}};
    if (!a.prior.empty()) inputs.push_back({"--prior", a.prior});
    if (!plan.space_pc && !plan.space_all) inputs.push_back({"--space", a.space});
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.checkpoint}};
    for (const std::string& f : plan.formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs(inputs, a.knowledge.files), out_paths);
    if (a.data == "-" && comm.size() > 1)
        throw InputError("--data - (standard input) needs a single process: give a file name");
}

/// Data, prior, space and knowledge, on every rank (each computes its share of the table);
/// the chains' memory and the drawing size checked before the table's minutes are spent.
ScoreInputs read_mcmc_inputs(const McmcJob& a, McmcPlan& plan, bn::StructurePrior& prior, bn::ScoreKind kind,
                             mpi::Communicator& comm, pc::Progress& progress, const DataReader& reader) {
    bn::McmcConfig& cfg = plan.cfg;
    const bool bge = kind == bn::ScoreKind::BGe;
    ScoreInputs in;
    mpi::run_agreed(comm, [&] { in = read_score_inputs(a.data, a.dataset, kind, a.score, reader); });
    const auto n = static_cast<std::int64_t>(in.names.size());
    progress.note("read " + a.data + ": " + std::to_string(in.n_samples) + " samples x " + std::to_string(n) +
                  (bge ? " continuous" : " discrete") + " variables");
    mpi::run_agreed(comm, [&] {
        const auto [c0, c1] = bn::chain_block(cfg.opts.chains, comm.rank(), comm.size());
        bn::require_chain_memory(cfg.opts, n, c1 - c0, comm.rank() == 0);
    });
    mpi::run_agreed(comm, [&] {
        const std::vector<std::string>& formats = plan.formats;
        const bool draws =
            std::any_of(formats.begin(), formats.end(), [](const std::string& f) { return f == "png" || f == "svg"; });
        if (draws && n > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(n) +
                             " variables takes Graphviz minutes; add --force to draw anyway, or write --format dot");
    });
    prior.edge_penalty = a.edge_penalty;
    mpi::run_agreed(comm, [&] {
        if (!a.prior.empty()) prior.belief = read_prior(a.prior, in.names);
    });
    if (plan.space_pc) {
        cfg.space = pc_space(a, bge, in.names, comm, progress, reader);
    } else if (!plan.space_all) {
        mpi::run_agreed(comm, [&] { cfg.space = read_space_file(a.space, in.names); });
    }
    if (a.knowledge.any()) {
        mpi::run_agreed(comm, [&] {
            const Knowledge knowledge = a.knowledge.read(in.names);
            if (!knowledge.empty()) cfg.space = bn::restrict_space(std::move(cfg.space), knowledge, n, in.names);
            for (std::size_t v = 0; v < cfg.space.required.size(); ++v)
                if (static_cast<int>(cfg.space.required[v].size()) > cfg.max_parents)
                    throw InputError("--require gives '" + in.names[v] + "' " +
                                     std::to_string(cfg.space.required[v].size()) +
                                     " required parents, more than --max-parents " + std::to_string(cfg.max_parents));
        });
        if (!cfg.space.all) progress.note("search space: " + cfg.space.description);
    }
    return in;
}

}  // namespace

McmcRun run_mcmc(const McmcJob& job, const std::string& command_line, const mpi::Environment& env,
                 std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks) {
    const auto t0 = std::chrono::steady_clock::now();
    McmcJob a = job;
    const bn::ScoreKind kind = check_score_options(a.score);
    McmcPlan plan = plan_mcmc(a, env);
    bn::McmcConfig& cfg = plan.cfg;
    check_mcmc_paths(a, plan, *comm);

    // GPUs: one per rank (node-local rank mod the visible devices).
    cfg.gpu = picks_gpu(plan.backend);
    cfg.device = cfg.gpu && env.mpi() ? mpi::bind_device(env.local_rank(), visible_gpus()) : 0;
    const bool root = comm->rank() == 0;
    io::OutputSet outputs;
    const std::string tmp_h5 =
        claim_outputs(*comm, outputs, a.out, plan.formats, {a.checkpoint, a.resume, a.overwrite_checkpoint});
    pc::Progress progress(progress_mode(a.quiet, a.verbose, root), "cudag mcmc");

    // Checkpoints: every rank writes its chains' states (parallel HDF5 on several ranks),
    // else rank 0 gathers and writes them. The result is combined on rank 0 either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] { io_plan = io::plan_hdf5_io(comm->size()); });
    cfg.collective_checkpoints = io_plan.collective;
    progress.note("HDF5 I/O: " + io_plan.describe() +
                  (io_plan.collective ? " for the checkpoints; the result is written by rank 0" : ""));

    bn::StructurePrior prior;
    const DataReader reader = with_na_values(hooks.read, a.data, a.dataset, a.na_values);
    const ScoreInputs in = read_mcmc_inputs(a, plan, prior, kind, *comm, progress, reader);
    set_scored(cfg, a, in);
    const bn::McmcObserver observer = mcmc_observer(a, progress, hooks, root);
    McmcRun done;
    bn::McmcOutcome run;
    try {
        run = bn::run_order_mcmc(*in.scorer, prior, cfg, *comm, observer);
    } catch (const bn::StoppedAtIteration& e) {
        done.stopped = e.what();
        return done;
    }

    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        bn::McmcOutput o = mcmc_output(a, command_line, in, cfg, run, comm->size());
        o.seconds_total = seconds_since(t0);
        if (!a.out.empty()) write_mcmc_outputs(a, plan.formats, o, run.best_local, outputs, tmp_h5);
        done.summary = mcmc_summary(a, cfg, o, run, in.n_samples, outputs);
        done.output = std::move(o);
    });
    if (root && !a.checkpoint.empty() && !a.keep_checkpoint) {
        bn::remove_checkpoint(a.checkpoint);
        interrupt::set_note("");
    }
    return done;
}

}  // namespace cudag::run
