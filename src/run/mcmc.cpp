// SPDX-License-Identifier: Apache-2.0
#include "run/mcmc.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>

#include "bn/mcmc_run.hpp"
#include "bn/pipeline.hpp"
#include "core/backend.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "io/dataset_io.hpp"
#include "io/hdf5_plan.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/result.hpp"
#include "bootstrap/scheduler.hpp"
#include "bootstrap/table.hpp"
#include "pc/bootstrap.hpp"
#include "pc/result_file.hpp"
#include "run/context.hpp"
#include "run/mcmc_parts.hpp"
#include "skeleton/progress.hpp"

namespace cudag::run {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// --resume without --space: the space the checkpoint was written for (recorded_space), so
/// that a checkpoint of an earlier default continues as it began.
void resume_space(McmcJob& a) {
    if (!a.resume || a.space_given || a.checkpoint.empty()) return;
    if (const std::optional<std::string> recorded = recorded_space(a.checkpoint)) a.space = parse_space(*recorded);
}

/// Every input against every output and each other, before any work.
void check_mcmc_paths(const McmcJob& a, const McmcPlan& plan, const mpi::Communicator& comm) {
    std::vector<io::NamedPath> inputs{{"--data", a.data}};
    if (!a.prior.empty()) inputs.push_back({"--prior", a.prior});
    if (a.space.kind == SpaceKind::File) inputs.push_back({"--space", a.space.file});
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.checkpoint}};
    for (const std::string& f : plan.formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs(inputs, a.knowledge.files),
                       with_checkpoint_side_files(out_paths, a.checkpoint, true));
    if (a.data == "-" && comm.size() > 1)
        throw InputError("--data - (standard input) needs a single process: give a file name");
}

/// Data, prior, space and knowledge, on every rank (each computes its share of the table);
/// the chains' memory and the drawing size checked before the table's minutes are spent.
ScoreInputs read_mcmc_inputs(McmcJob& a, McmcPlan& plan, bn::StructurePrior& prior, bn::ScoreKind kind,
                             mpi::Communicator& comm, skeleton::Progress& progress, const DataReader& reader,
                             const McmcHooks& hooks) {
    bn::McmcConfig& cfg = plan.cfg;
    ScoreInputs in;
    mpi::run_agreed(comm, [&] { in = read_score_inputs(a.data, a.dataset, kind, a.score, reader); });
    const auto n = static_cast<std::int64_t>(in.names.size());
    progress.note("read " + a.data + ": " + std::to_string(in.n_samples) + " samples x " + std::to_string(n) +
                  (kind == bn::ScoreKind::BGe     ? " continuous"
                   : kind == bn::ScoreKind::CgBic ? " (cg-bic: discrete and continuous)"
                                                  : " discrete") +
                  " variables");
    if (a.space.kind == SpaceKind::Auto) {
        resolve_space(a, plan, n);
        std::string note = "--space auto: ";
        note += to_string(a.space);
        progress.note(note + " (the whole space's table holds " +
                      skeleton::Progress::count(full_table_entries(n, a.max_parents)) + " parent sets, " +
                      (a.space.kind == SpaceKind::All ? "at most " : "more than ") +
                      skeleton::Progress::count(kAutoAllEntries) + ")");
    }
    cfg.space_name = to_string(a.space);
    // The run's memory plan, before any work: --space pc's skeleton search, then the table
    // (as far as it is known yet) and this rank's chains (agreed: the first failing rank's
    // line).
    const std::string run_name = "cudag mcmc on " + std::to_string(n) + " variables";
    mpi::run_agreed(comm, [&] {
        if (plan.space_pc)
            skeleton_memory_plan(a, kind, n, in.n_samples)
                .require(run_name + ": --space " + to_string(a.space) + "'s skeleton");
        const MemoryPlan m = sampling_memory_plan(a, plan, n, nullptr, comm.rank(), comm.size());
        m.require(run_name);
        set_memory_plan(m);
    });
    mpi::run_agreed(comm, [&] {
        if (io::draws(plan.formats) && n > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(n) +
                             " variables takes Graphviz minutes; add --force to draw anyway, or write --format dot");
    });
    prior.edge_penalty = a.edge_penalty;
    mpi::run_agreed(comm, [&] {
        if (hooks.prior) {
            prior.belief = *hooks.prior;
        } else if (!a.prior.empty()) {
            prior.belief = read_prior(a.prior, in.names);
        }
    });
    if (plan.space_pc) {
        std::string phase = "cudag mcmc, --space ";
        phase += to_string(a.space);
        set_memory_phase(phase + "'s skeleton search");
        set_memory_plan(skeleton_memory_plan(a, kind, n, in.n_samples));
        cfg.space = pc_space(a, kind, in.names, comm, progress, reader, hooks.table_progress);
    } else if (!plan.space_all) {
        mpi::run_agreed(comm, [&] {
            cfg.space = hooks.space ? bn::space_from_graph(*hooks.space, "file " + a.space.file)
                                    : read_space_file(a.space.file, in.names);
        });
    }
    if (a.knowledge.any() || hooks.knowledge) {
        mpi::run_agreed(comm, [&] {
            const Knowledge knowledge = hooks.knowledge ? *hooks.knowledge : a.knowledge.read(in.names);
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

/// --bootstrap --checkpoint: what decides the counts (the data, every option a replicate's
/// best DAG depends on, B, the resampling and its seed; not --consensus, --threads or the
/// backend, which change no graph), named for a refused resume, and the notes.
bootstrap::Checkpoint bootstrap_checkpoint(const McmcJob& a, const bootstrap::Options& b, std::uint64_t data_digest,
                                           std::int64_t n_vars, const McmcHooks& inputs, bool root) {
    bootstrap::Checkpoint c;
    c.path = a.checkpoint;
    c.resume = a.resume;
    c.keep = a.keep_checkpoint;
    c.n_vars = n_vars;
    c.stop_after = a.stop_after;
    std::vector<std::string> tunes = a.tunes;
    std::sort(tunes.begin(), tunes.end());
    std::string tune_list;
    for (const std::string& t : tunes) tune_list += (tune_list.empty() ? "" : ",") + t;
    // The data's and the score's settings as a run's checkpoint names them (set_scored).
    bn::McmcConfig scored;
    ScoreInputs in;
    in.data_digest = data_digest;
    set_scored(scored, a, in);
    c.settings = {{io::kCheckpointCommand, "cudag mcmc --bootstrap"}};
    c.settings.insert(c.settings.end(), scored.scored_settings.begin(), scored.scored_settings.end());
    c.settings.insert(c.settings.end(), {{"--max-parents", std::to_string(a.max_parents)},
                                         {"--edge-penalty", exact_number(a.edge_penalty)},
                                         {"--space", to_string(a.space)},
                                         {"--alpha", exact_number(a.alpha)},
                                         {"--hard-limit", std::to_string(a.hard_limit)},
                                         {"--order-score", bn::to_string(a.order_score)},
                                         {"--moves", bn::to_string(a.moves)},
                                         {"--chains", std::to_string(a.chains)},
                                         {"--iterations", std::to_string(a.iterations)},
                                         {"--burn-in", a.burn_in ? std::to_string(*a.burn_in) : "default"},
                                         {"--thin", std::to_string(a.thin)},
                                         {"--tune", tune_list},
                                         {"--bootstrap", std::to_string(b.replicates)},
                                         {"--resample", bootstrap::to_string(b.resample)},
                                         {"--seed", std::to_string(b.seed)}});
    // What --prior, --space FILE and the knowledge hold (not their file names).
    const auto n = static_cast<std::int32_t>(n_vars);
    if (inputs.prior) {
        Digest d;
        for (const double v : *inputs.prior) d.add_value(v);
        c.settings.push_back({"--prior (its beliefs)", d.hex()});
    }
    if (inputs.space) {
        Digest d;
        for (std::int32_t x = 0; x < n; ++x)
            for (const std::int32_t y : inputs.space->neighbours(x))
                d.add_value(x).add_value(y).add_value(static_cast<int>(inputs.space->end(x, y)));
        c.settings.push_back({"--space (its graph)", d.hex()});
    }
    if (inputs.knowledge) {
        Digest d;
        const Knowledge& k = *inputs.knowledge;
        for (std::int32_t x = 0; x < n; ++x) {
            d.add_value(k.tier(x));
            for (std::int32_t y = 0; y < n; ++y)
                if (x != y)
                    d.add_value(static_cast<int>(k.forbidden(x, y)) + 2 * static_cast<int>(k.required(x, y)) +
                                4 * static_cast<int>(k.adjacency_required(x, y)));
        }
        c.settings.push_back({"--forbid/--require/--tiers (what they hold)", d.hex()});
    }
    Digest h;
    h.add_string("cudag-mcmc-bootstrap-1");
    for (const io::CheckpointSetting& s : c.settings) h.add_string(s.name).add_string(s.value);
    c.hash = h.hex();
    // This run's provenance, kept in every checkpoint (a resumed run's too).
    c.provenance = [] {
        return bootstrap::Provenance{{"algorithm", "order MCMC bootstrap (the best DAG of each replicate)"}};
    };
    const std::string path = a.checkpoint;
    c.on_checkpoint = [path](int done) {
        interrupt::set_note("the last checkpoint holds " + std::to_string(done) + " replicates in '" + path +
                            "' (continue with --resume)");
    };
    c.on_resume = [path, quiet = a.quiet, root](int done, const bootstrap::Provenance&) {
        if (root && !quiet)
            std::cerr << "cudag mcmc: resuming from checkpoint '" << path << "' after " << done << " replicates\n";
    };
    return c;
}

/// The bootstrap's inputs besides the data (`all`, over the n data variables) on the
/// columns a replicate keeps, renumbered in their order.
McmcHooks restricted_inputs(const McmcHooks& all, const std::vector<std::int32_t>& kept, std::int64_t n) {
    McmcHooks h;
    const auto k = static_cast<std::int32_t>(kept.size());
    if (k == n) {
        h.prior = all.prior;
        h.space = all.space;
        h.knowledge = all.knowledge;
        return h;
    }
    if (all.prior) {
        std::vector<double> belief(static_cast<std::size_t>(k) * static_cast<std::size_t>(k));
        for (std::int32_t p = 0; p < k; ++p)
            for (std::int32_t v = 0; v < k; ++v)
                belief[static_cast<std::size_t>(p) * k + v] =
                    (*all.prior)[static_cast<std::size_t>(kept[p]) * static_cast<std::size_t>(n) + kept[v]];
        h.prior = std::move(belief);
    }
    if (all.space) {
        Pdag g{Graph(k)};
        for (std::int32_t a = 0; a < k; ++a)
            for (std::int32_t b = a + 1; b < k; ++b)
                if (all.space->adjacent(kept[a], kept[b]))
                    g.set(a, b, all.space->end(kept[a], kept[b]), all.space->end(kept[b], kept[a]));
        h.space = std::move(g);
    }
    if (all.knowledge) h.knowledge = bootstrap::knowledge_on(*all.knowledge, kept);
    return h;
}

/// --bootstrap: the best DAG of each replicate (a whole run on one process), counted over
/// the ranks (the bootstrap layer's scheduler); the consensus graph and the frequencies
/// written as a PC bootstrap's result file.
McmcRun run_mcmc_bootstrap(const McmcJob& job, const std::string& command_line, const mpi::Environment& env,
                           std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks) {
    const auto t0 = std::chrono::steady_clock::now();
    McmcJob a = job;
    resume_space(a);
    if (a.out == "-") a.out.clear();
    bootstrap::Options b;
    b.replicates = a.bootstrap;
    b.resample = a.resample;
    b.consensus = a.consensus;
    b.seed = a.seed;
    bootstrap::validate(b, std::numeric_limits<std::int64_t>::max());
    if (a.resume && a.checkpoint.empty()) throw InputError("--resume needs --checkpoint FILE");
    if (a.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    if (a.checkpoint_every)
        throw InputError("--checkpoint-every does not apply to mcmc --bootstrap: it checkpoints between replicates");
    const std::vector<std::string> formats = unique_items(split_commas(a.formats));
    for (const char* chains_only : {"edgeprob", "traces", "trace-png"})
        if (std::find(formats.begin(), formats.end(), chains_only) != formats.end())
            throw InputError(std::string("--format ") + chains_only +
                             " describes one run's chains; with --bootstrap give freq and the graph formats "
                             "(edges, dot, json, amat, cl, png, svg)");
    io::validate_formats(without_item(formats, "freq"));
    io::check_force(a.force, formats);
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    std::vector<io::NamedPath> out_paths{{"--out", a.out}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    out_paths.push_back({"--checkpoint", a.checkpoint});
    std::vector<io::NamedPath> in_paths{{"--data", a.data}};
    if (!a.prior.empty()) in_paths.push_back({"--prior", a.prior});
    const bool space_is_file = a.space.kind == SpaceKind::File;
    if (space_is_file) in_paths.push_back({"--space", a.space.file});
    io::check_distinct(with_knowledge_inputs(in_paths, a.knowledge.files),
                       with_checkpoint_side_files(out_paths, a.checkpoint, false));
    const bn::ScoreKind kind = check_score_options(a.score);
    const bool root = comm->rank() == 0;
    io::CheckpointLock lock;  // held for the run's life
    io::OutputSet outputs;
    const std::string tmp_h5 = claim_outputs(*comm, outputs, a.out, formats,
                                             {a.checkpoint, a.resume, a.overwrite_checkpoint, false, &lock, a.quiet});
    skeleton::Progress progress(progress_mode(a.quiet, a.verbose, root), "cudag mcmc");
    const DataReader reader = with_na_values(hooks.read, a.data, a.dataset, a.na_values);
    const io::TableMode mode = score_table_mode(kind, a.score.discrete);
    const Dataset data =
        io::share_dataset(*comm, [&] { return read_scored_data(reader, a.data, a.dataset, mode, a.score); });
    // The whole data's errors (a single level, labels under BGe) as a run gives them.
    std::uint64_t data_digest = 0;
    mpi::run_agreed(*comm, [&] {
        data_digest = read_score_inputs(a.data, a.dataset, kind, a.score, [&](const io::ReadOptions&) {
                          return data;
                      }).data_digest;
    });
    // --prior, --space FILE and the knowledge read once against the whole data's names (their
    // errors as a run gives them); each replicate takes them over the columns it keeps.
    McmcHooks inputs;
    mpi::run_agreed(*comm, [&] {
        if (!a.prior.empty()) inputs.prior = read_prior(a.prior, data.names);
        if (space_is_file) inputs.space = read_space_graph(a.space.file, data.names);
        if (a.knowledge.any()) inputs.knowledge = a.knowledge.read(data.names);
    });
    // A rank's replicates run on every GPU of its share of the node (one process: every
    // visible GPU; as cudag pc --bootstrap), one at a time on each; one at a time on the CPU.
    std::vector<int> devices;
    mpi::run_agreed(*comm, [&] {
        if (a.backend == BackendKind::Cpu) return;
        const int visible = visible_gpus();
        if (visible <= 0) return;
        const int bound = env.mpi() ? mpi::bind_device(env.local_rank(), visible) : 0;
        end_early_gpu_context(env.mpi() ? bound : -1);
        devices = replicate_gpus(visible, env.mpi() ? env.local_rank() : 0, env.mpi() ? env.local_size() : 1, bound);
    });
    progress.note("bootstrap: " + std::to_string(b.replicates) + " replicates (--resample " +
                  bootstrap::to_string(b.resample) + ")" + replicates_placement(comm->size(), devices));
    McmcJob one = a;  // a replicate: one quiet run without files (the checkpoint is the bootstrap's)
    one.bootstrap = 0;
    one.out.clear();
    one.formats.clear();
    one.checkpoint.clear();
    one.resume = one.keep_checkpoint = one.overwrite_checkpoint = false;
    one.stop_after.reset();
    one.quiet = true;
    one.verbose = false;
    // The run's memory plan before the first replicate: the replicates this rank runs at
    // once (one a GPU, one on the CPU), each its resample, its --space pc skeleton and its
    // table and chains, as one run plans them (agreed: the first failing rank's line).
    mpi::run_agreed(*comm, [&] {
        McmcJob j = one;
        McmcPlan p = plan_mcmc(j, env);
        const std::int64_t n = data.n_vars, m = data.n_samples;
        resolve_space(j, p, n);  // a replicate's own (its constant columns left out) is no larger
        const auto at_once = static_cast<double>(std::max<std::size_t>(1, devices.size()));
        const std::string each = at_once > 1 ? " (" + std::to_string(static_cast<int>(at_once)) + " at once)" : "";
        MemoryPlan plan;
        plan.add("a replicate's resample of the data" + each,
                 at_once * (data.discrete() ? 1.0 : 8.0) * static_cast<double>(n) * static_cast<double>(m),
                 "run on fewer variables or samples");
        MemoryPlan parts = sampling_memory_plan(j, p, n, nullptr, 0, 1);
        if (p.space_pc) {
            const MemoryPlan skeleton = skeleton_memory_plan(j, kind, n, m);
            // The skeleton's memory is released before the table is built: the larger counts.
            if (skeleton.total() > parts.total()) parts = skeleton;
        }
        for (const MemoryPlan::Part& q : parts.parts()) plan.add(q.what + each, at_once * q.bytes, q.lower);
        plan.require("cudag mcmc --bootstrap on " + std::to_string(n) + " variables");
        set_memory_plan(plan);
    });
    const bootstrap::ReplicateFn replicate = [&](std::int64_t r, int threads, int worker) {
        const std::string name = a.data + " (bootstrap replicate " + std::to_string(r) + ")";
        std::vector<std::int32_t> kept;
        // A column constant in the resample is left out (isolated), as cudag pc does; under
        // declared levels (the R face) each factor keeps every level, as a data frame's resample.
        Dataset resampled;
        bootstrap::resample_into(data, bootstrap::resample_rows(data.n_samples, b, r), name, resampled, 1,
                                 one.score.declared_levels);
        const Dataset d = bootstrap::drop_constant_columns(std::move(resampled), kept);
        if (d.n_vars < 2) return bootstrap::ReplicateEdges{};
        McmcJob j = one;
        j.threads = threads;
        McmcHooks h = restricted_inputs(inputs, kept, data.n_vars);
        h.read = [&d](const io::ReadOptions&) { return d; };
        h.table_progress = hooks.table_progress;
        if (!devices.empty()) h.device = devices[static_cast<std::size_t>(worker) % devices.size()];
        std::unique_ptr<mpi::Communicator> serial = std::make_unique<mpi::SerialCommunicator>();
        McmcRun out;
        try {
            out = run_mcmc(j, "", env, serial, h);
        } catch (const InputError& e) {
            throw InputError(name + ": " + e.what());
        }
        Pdag full{Graph(data.n_vars)};
        for (const io::CpdagEdge& e : io::cpdag_edges(out.output->best_dag))
            full.set(kept[static_cast<std::size_t>(e.a)], kept[static_cast<std::size_t>(e.b)], Mark::Tail, Mark::Arrow);
        return bootstrap::edges_of(full);
    };
    bootstrap::Checkpoint ckpt;
    if (!a.checkpoint.empty()) ckpt = bootstrap_checkpoint(a, b, data_digest, data.n_vars, inputs, root);
    McmcRun done;
    bootstrap::Table t;
    try {
        // One replicate a GPU at once (one on the CPU), in rounds of as many.
        const int at_once = static_cast<int>(std::max<std::size_t>(1, devices.size()));
        t = bootstrap::count_replicates(
            b, bootstrap::TableKind::Cpdag, *comm, replicate,
            bootstrap::agree_schedule(*comm, at_once, at_once, resolve_threads(a.threads)),
            [&](std::int64_t done, std::int64_t total) { progress.replicates(done, total, seconds_since(t0)); }, &ckpt);
    } catch (const skeleton::StoppedAfterLevel& e) {
        done.stopped = "stopped after " + std::to_string(e.level()) + " replicates as asked (--stop-after)";
        return done;
    }
    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        bootstrap::Result r;
        r.names = data.names;
        r.level_labels = data.levels;
        r.n_samples = data.n_samples;
        r.consensus = bootstrap::consensus_graph(t, data.n_vars);
        r.config = {{"algorithm", "order MCMC bootstrap (the best DAG of each replicate)"},
                    {"score", bn::score_name(a.score.score)},
                    {"command_line", command_line},
                    {"bootstrap_replicates", std::to_string(b.replicates)},
                    {"bootstrap_resample", bootstrap::to_string(b.resample)},
                    {"bootstrap_seed", std::to_string(b.seed)},
                    {"ranks", std::to_string(comm->size())}};
        r.table = t;
        r.seconds_total = seconds_since(t0);
        if (!a.out.empty()) {
            if (std::find(formats.begin(), formats.end(), "freq") != formats.end())
                bootstrap::write_frequencies_tsv(t, r.consensus, r.names,
                                                 outputs.temp_for(io::format_path(a.out, "freq")));
            // The file in a PC bootstrap's layout (cudag.load and cudag compare read it as one).
            pc::write_result_hdf5(pc::as_pc_result(r), tmp_h5);
            io::write_formats(r, a.out, without_item(formats, "freq"), outputs, std::cerr);
            outputs.commit();
        }
        done.summary = "cudag mcmc: " + std::to_string(b.replicates) + " replicates (--resample " +
                       bootstrap::to_string(b.resample) + "), " + std::to_string(t.size()) +
                       " pairs adjacent in some; " + std::to_string(r.consensus.n_edges()) +
                       " edges in the consensus graph";
        done.bootstrap = std::move(r);
    });
    if (root && !a.checkpoint.empty() && !a.keep_checkpoint) remove_served_checkpoint(a.checkpoint);
    return done;
}

}  // namespace

McmcRun run_mcmc(const McmcJob& job, const std::string& command_line, const mpi::Environment& env,
                 std::unique_ptr<mpi::Communicator>& comm, const McmcHooks& hooks) {
    if (job.bootstrap != 0) return run_mcmc_bootstrap(job, command_line, env, comm, hooks);
    const auto t0 = std::chrono::steady_clock::now();
    McmcJob a = job;
    resume_space(a);
    const bn::ScoreKind kind = check_score_options(a.score);
    McmcPlan plan = plan_mcmc(a, env);
    bn::McmcConfig& cfg = plan.cfg;
    check_mcmc_paths(a, plan, *comm);

    // GPUs: one per rank (node-local rank mod the visible devices).
    cfg.gpu = picks_gpu(plan.backend);
    if (hooks.device) {
        cfg.device = *hooks.device;  // a bootstrap replicate's GPU (its early context settled)
    } else {
        cfg.device = cfg.gpu && env.mpi() ? mpi::bind_device(env.local_rank(), visible_gpus()) : 0;
        end_early_gpu_context(cfg.gpu && env.mpi() ? cfg.device : -1);
    }
    const bool root = comm->rank() == 0;
    io::CheckpointLock lock;  // held for the run's life
    io::OutputSet outputs;
    const std::string tmp_h5 = claim_outputs(*comm, outputs, a.out, plan.formats,
                                             {a.checkpoint, a.resume, a.overwrite_checkpoint, true, &lock, a.quiet});
    skeleton::Progress progress(progress_mode(a.quiet, a.verbose, root), "cudag mcmc");

    // Checkpoints: every rank writes its chains' states (parallel HDF5 on several ranks),
    // else rank 0 gathers and writes them. The result is combined on rank 0 either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] { io_plan = io::plan_hdf5_io(comm->size()); });
    cfg.collective_checkpoints = io_plan.collective;
    progress.note("HDF5 I/O: " + io_plan.describe() +
                  (io_plan.collective ? " for the checkpoints; the result is written by rank 0" : ""));

    bn::StructurePrior prior;
    const DataReader reader = with_na_values(hooks.read, a.data, a.dataset, a.na_values);
    const ScoreInputs in = read_mcmc_inputs(a, plan, prior, kind, *comm, progress, reader, hooks);
    set_scored(cfg, a, in);
    // The space known: the table and the chains checked again, exactly, before the table.
    mpi::run_agreed(*comm, [&] {
        const MemoryPlan m = sampling_memory_plan(a, plan, static_cast<std::int64_t>(in.names.size()), &cfg.space,
                                                  comm->rank(), comm->size());
        m.require("cudag mcmc on " + std::to_string(in.names.size()) + " variables");
        set_memory_plan(m);
    });
    const bn::McmcObserver observer = mcmc_observer(a, progress, hooks, root);
    McmcRun done;
    bn::McmcOutcome run;
    set_memory_phase("cudag mcmc, the local-score table and the chains");
    try {
        run = bn::run_order_mcmc(*in.scorer, prior, cfg, *comm, observer);
    } catch (const bn::StoppedAtIteration& e) {
        done.stopped = e.what();
        return done;
    }
    set_memory_phase("cudag mcmc, the diagnostics and the result");

    // The result phase reports its steps too (in Python: Ctrl-C between them, before the
    // outputs are committed).
    const auto result_step = [&](std::int64_t done) {
        if (hooks.table_progress) hooks.table_progress("result", done, 2);
    };
    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        result_step(0);
        bn::McmcOutput o = mcmc_output(a, command_line, in, cfg, run, comm->size());
        o.seconds_total = seconds_since(t0);
        result_step(1);
        if (!a.out.empty()) write_mcmc_outputs(a, plan.formats, o, run.best_local, outputs, tmp_h5);
        done.summary = mcmc_summary(a, cfg, o, run, in.n_samples, outputs);
        done.output = std::move(o);
        result_step(2);
    });
    if (root && !a.checkpoint.empty() && !a.keep_checkpoint) {
        bn::remove_checkpoint(a.checkpoint);
        interrupt::set_note("");
    }
    return done;
}

}  // namespace cudag::run
