// SPDX-License-Identifier: Apache-2.0
#include "cli/pc.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <optional>
#include <thread>

#include "ci/cmi_knn.hpp"
#include "cli/common.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/dataset_io.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_plan.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/mpi_communicator.hpp"
#include "pc/cpu/cmi_knn_engine.hpp"
#include "pc/progress.hpp"
#include "pc/result_file.hpp"

namespace cudag::cli {

CLI::App* add_pc_command(CLI::App& app, PcArgs& a) {
    auto* cmd = app.add_subcommand("pc", "PC-stable: learn a CPDAG and separating sets from data");
    cmd->add_option("--data", a.data,
                    "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                    "text from standard input")
        ->required();
    cmd->add_option("--dataset", a.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    add_na_values_option(*cmd, a.na_values);
    cmd->add_option("--test", a.test,
                    "CI test: fisher-z or cmiknn (continuous), chi-square or g-square (discrete); "
                    "default: chi-square for discrete data, else fisher-z");
    cmd->add_flag("--discrete", a.discrete,
                  "read the data as discrete (integer codes or labels); implied by a discrete "
                  "--test or a column of labels");
    cmd->add_option("--dof", a.dof,
                    "degrees of freedom of chi-square/g-square: gpupc, pcalg or causal-learn "
                    "(default: pcalg; causal-learn with --compat causal-learn)");
    cmd->add_option("--alpha", a.cfg.alpha, "significance level, in (0, 1)")->capture_default_str();
    cmd->add_option("--max-level", a.cfg.max_level, "largest conditioning-set size (-1: no cap)")
        ->capture_default_str();
    cmd->add_option("--threads", a.cfg.backend.threads,
                    "CPU threads (0: all hardware threads; more than those are clamped)")
        ->capture_default_str();
    cmd->add_option("--out", a.out, "result HDF5 file (default or '-': print the edge list to stdout)");
    cmd->add_option("--format", a.formats,
                    "extra outputs beside --out, comma-separated: edges,dot,json,amat,cl,png,svg");
    cmd->add_flag("--force", a.force, "draw png/svg even for more than 500 variables (Graphviz takes minutes)");
    cmd->add_option("--compat", a.compat,
                    "semantics: pcalg (default) or causal-learn (its sepsets, p > alpha, orientation)")
        ->capture_default_str();
    cmd->add_option("--uc-rule", a.uc_rule,
                    "causal-learn uc_rule: 0 sepset, 1 maxP, 2 definiteMaxP (default: pcalg's "
                    "orientation; 0 with --compat causal-learn)");
    cmd->add_option("--uc-priority", a.uc_priority,
                    "causal-learn uc_priority: -1 rule default, 0 overwrite, 1 bi-directed, 2 existing, "
                    "3 stronger, 4 stronger* (default 2)");
    add_knowledge_options(cmd, a.knowledge);
    cmd->add_option("--backend", a.backend, "auto (GPU when available), cpu or cuda")->capture_default_str();
    cmd->add_option("--tune", a.tunes,
                    "GPU kernel tuning, key=value (repeatable or comma-separated): variant=s|e, "
                    "beta, gamma, theta, delta, scan-levels, scan-round-levels, corr-limit "
                    "(GiB); see docs/performance.md")
        ->group("");  // hidden: the automatic choice is the product's
    cmd->add_option("--checkpoint", a.cfg.checkpoint, "HDF5 checkpoint rewritten after every level (for --resume)")
        ->check(not_empty_file_name, "FILE");
    cmd->add_flag("--resume", a.cfg.resume, "continue from --checkpoint (same data and test options required)");
    cmd->add_flag("--keep-checkpoint", a.keep_checkpoint,
                  "keep --checkpoint after a successful run (default: removed)");
    cmd->add_flag("--overwrite-checkpoint", a.overwrite_checkpoint,
                  "start afresh over an existing --checkpoint (without it or --resume, one is refused)");
    cmd->add_option("--comm", a.comm,
                    "communicator under MPI: auto (NCCL for GPU runs when built with it), mpi or nccl")
        ->capture_default_str();
    cmd->add_option("--comm-timeout", a.comm_timeout, "seconds an NCCL collective may wait before the job is ended")
        ->capture_default_str();
    add_cmi_knn_options(*cmd, a.cmi, true);
    // Testing only: simulate a kill after a level (its checkpoint written).
    cmd->add_option("--stop-after-level", a.cfg.stop_after_level)->group("");
    auto* quiet_flag = cmd->add_flag("-q,--quiet", a.quiet, "no progress or summary on stderr");
    cmd->add_flag("-v,--verbose", a.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet_flag);
    return cmd;
}

namespace {

/// " 1.234 s", for the verbose phase timings.
std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.3f s", s);
    return buf;
}
/// CMIknn, whose every test draws its permutations (a level of a thousand tests can take an
/// hour where Fisher-z takes a second): before level 0, how many tests it may run and,
/// from the first few timed on one thread, about how long on `workers` threads.
void announce_cmi_level0(const Dataset& data, const ci::CmiKnnSpec& spec, int workers, pc::Progress& progress) {
    const std::int64_t n = data.n_vars;
    const double tests = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
    if (n < 2) return;
    const ci::CmiKnn cmi(data, spec, 0);
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    std::vector<ci::CmiKnnWorkspace> ws(1);
    std::int64_t timed = 0;
    // Every permutation drawn (no early stop): the estimate is an upper bound.
    for (std::int32_t j = 1; j < n && timed < 4 && (timed == 0 || elapsed() < 2.0); ++j, ++timed) {
        std::int32_t x = 0, y = j;
        const std::uint64_t id = pc::cmi_pc_test_id(x, y, {});
        cmi.test(x, y, {}, id, std::span<ci::CmiKnnWorkspace>(ws), std::nullopt);
    }
    const double each = elapsed() / static_cast<double>(timed);
    char line[160];
    std::snprintf(line, sizeof line, "; the first %lld took %.3g s each on one thread", static_cast<long long>(timed),
                  each);
    progress.note("level 0: up to " + pc::Progress::count(tests) + " CMIknn tests (" +
                  std::to_string(spec.permutations) + " permutations each)" + line + ": up to about " +
                  pc::Progress::duration(tests * each / std::max(1, workers)) + " on " + std::to_string(workers) +
                  " threads; Ctrl-C stops the run at once");
}

/// The seconds since t, as seconds_text.
std::string seconds_text(std::chrono::steady_clock::time_point t) {
    return seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

/// The communicator for `cudag pc`: MPI (or serial), or NCCL over it for GPU runs
/// (`--comm auto` picks it when nccl_by_default: the engine keeps its level results on the
/// GPU). NCCL needs a GPU per rank; ranks sharing a GPU stay on MPI.
std::unique_ptr<mpi::Communicator> pc_communicator(const PcArgs& a, const pc::PcConfig& cfg,
                                                   std::unique_ptr<mpi::Communicator> world,
                                                   const mpi::Environment& env, int gpus, bool gpu,
                                                   bool nccl_by_default) {
    const bool own_gpu = world->size() > 1 && mpi::gpu_per_rank(*world, env, gpus);
    // The same checks on every rank: agree, so that one line is printed.
    mpi::run_agreed(*world, [&] {
        if (a.comm != "auto" && a.comm != "mpi" && a.comm != "nccl")
            throw InputError("unknown --comm '" + a.comm + "' (available: auto, mpi, nccl)");
        if (a.comm == "nccl" && !gpu) throw InputError("--comm nccl needs the CUDA backend and a visible GPU");
        if (a.comm == "nccl" && !mpi::nccl_compiled()) throw NotCompiled("NCCL");
        if (a.comm == "nccl" && world->size() > 1 && !own_gpu)
            throw InputError("--comm nccl needs one GPU per rank (" + std::to_string(env.local_size()) +
                             " ranks on this node share " + std::to_string(gpus) + " GPUs)");
    });
    const bool nccl =
        a.comm == "nccl" || (a.comm == "auto" && gpu && nccl_by_default && own_gpu && mpi::nccl_compiled());
    if (!nccl) return world;
    return mpi::strict_if_asked(mpi::make_nccl_communicator(std::move(world), cfg.backend.device, a.comm_timeout));
}

/// The run's provenance entries, added to r.config (rank 0).
void add_provenance(const PcArgs& a, const std::string& command_line, pc::PcResult& r) {
    r.config.emplace_back("input", a.data);
    r.config.emplace_back("input_dataset", a.dataset);
    struct stat st {};
    if (::stat(a.data.c_str(), &st) == 0) {
        r.config.emplace_back("input_bytes", std::to_string(st.st_size));
        r.config.emplace_back("input_mtime", std::to_string(st.st_mtime));
    }
    r.config.emplace_back("command_line", command_line);
    r.config.emplace_back("cudag_version", CUDAG_VERSION);
    r.config.emplace_back("host", mpi::host_name());
    r.config.emplace_back("created", utc_now());
}

/// `what` with the hidden temporary `tmp_h5` replaced by the file the user asked for.
std::string name_out(std::string what, const std::string& tmp_h5, const std::string& out) {
    const std::size_t at = what.find(tmp_h5);
    if (!tmp_h5.empty() && at != std::string::npos) what.replace(at, tmp_h5.size(), out);
    return what;
}

/// Provenance, then the result file and --format files (rank 0).
void write_pc_outputs(const PcArgs& a, const std::vector<std::string>& formats, const std::string& command_line,
                      pc::PcResult& r, io::OutputSet& outputs, const std::string& tmp_h5) {
    add_provenance(a, command_line, r);
    if (a.out.empty()) {
        // No output file: the CPDAG goes to stdout as the edge list.
        std::cout << "source\ttarget\tmark\n";
        for (const io::CpdagEdge& e : io::cpdag_edges(r.cpdag))
            std::cout << io::tsv_escape(r.names[e.a]) << '\t' << io::tsv_escape(r.names[e.b]) << '\t'
                      << io::edge_mark(e.kind) << '\n';
    } else {
        try {
            pc::write_result_hdf5(r, tmp_h5);
        } catch (const InputError& e) {
            // Name the file the user asked for, not its hidden temporary.
            throw InputError(name_out(e.what(), tmp_h5, a.out));
        }
        io::write_formats(r, a.out, formats, outputs, std::cerr);
        outputs.commit();
    }
}

// Discrete or continuous? --discrete or a discrete --test reads labels, --test fisher-z
// numbers. With neither, each column must be numbers throughout or labels throughout
// (io::TableMode::Auto): a label column makes the data discrete (chi-square); a column
// mixing both is an error at its stray cell (a typo in continuous data); integer codes
// with few levels run fisher-z with a note. README "Discrete data" documents the rule.
Dataset read_pc_data(const PcArgs& a, std::optional<pc::TestKind> test, pc::Progress& progress,
                     const mpi::Communicator& comm, const DataReader& reader) {
    if (a.discrete && test == pc::TestKind::FisherZ) throw InputError("--discrete contradicts --test fisher-z");
    if (a.discrete || (test && pc::is_discrete(*test)))
        return read_data(reader, a.data, a.dataset, io::TableMode::Labels);
    if (test) return read_data(reader, a.data, a.dataset, io::TableMode::Numeric);
    Dataset d;
    try {
        d = read_data(reader, a.data, a.dataset, io::TableMode::Auto);
    } catch (const io::MixedColumn& e) {
        throw InputError(std::string(e.what()) + "; --discrete reads every cell as a label");
    }
    if (d.discrete()) {
        std::string label_column;
        for (std::int64_t v = 0; v < d.n_vars && label_column.empty(); ++v)
            if (std::none_of(d.levels[v].begin(), d.levels[v].end(), io::is_numeric_cell)) label_column = d.names[v];
        progress.note("column '" + label_column + "' holds labels: reading " + d.source +
                      " as discrete data (--test chi-square)");
    } else if (comm.rank() == 0 && !a.quiet) {
        if (const std::int64_t levels = io::integer_coded_levels(d); levels > 0)
            std::cerr << "cudag pc: note: every column of " << d.source << " holds integer codes "
                      << "(at most " << levels << " distinct values): the data look discrete; "
                      << "running fisher-z anyway: give --discrete for chi-square, or "
                      << "--test fisher-z to silence this note\n";
    }
    return d;
}

/// The checked options of `cudag pc` (`a` normalised: --out "-"), every output checked
/// against every input before any work; the config and the formats.
pc::PcConfig plan_pc(PcArgs& a, const mpi::Environment& env, std::vector<std::string>& formats) {
    if (a.out == "-") a.out.clear();  // the edge list on standard output, as without --out
    formats = unique_items(split_commas(a.formats));
    io::validate_formats(formats);
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    if (a.cfg.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    // Every output against every input and against each other, before any work.
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.cfg.checkpoint}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs({{"--data", a.data}}, a.knowledge), out_paths);
    pc::PcConfig cfg = a.cfg;
    BackendContext& backend = cfg.backend;  // the run's backend context, built here once
    backend.threads = checked_threads(backend.threads, a.quiet || env.rank() != 0);
    if (a.compat == "causal-learn")
        cfg.compat = pc::Compat::CausalLearn;
    else if (a.compat != "pcalg")
        throw InputError("unknown --compat '" + a.compat + "' (available: pcalg, causal-learn)");
    backend.kind = parse_backend(a.backend);
    cfg.test.cmi = cli::cmi_knn_spec(a.cmi, a.test);
    cfg.test.cmi_early_stop = !a.cmi.no_early_stop;
    if (!a.test.empty()) cfg.test.kind = pc::parse_test(a.test);
    if (!a.dof.empty()) cfg.test.dof = pc::parse_dof(a.dof);
    const bool cmiknn = cfg.test.kind == pc::TestKind::CmiKnn;
    if (cmiknn) picks_gpu(backend.kind);  // --backend cuda without a GPU: say so before reading
    apply_tunes(a.tunes, backend.tunables);
    if (a.uc_rule != -2) cfg.uc_rule = a.uc_rule;
    if (a.uc_priority != -2) cfg.uc_priority = a.uc_priority;
    return cfg;
}

/// A rank's place: its GPU (node-local rank mod the visible devices) and threads, and
/// what the start-up table prints of it.
struct RankPlace {
    int gpus = -1;     ///< visible GPUs under MPI (-1: one process, not asked)
    bool gpu = false;  ///< a GPU engine may run
    mpi::RankInfo me;
};

/// Binds this rank to its GPU and sets its threads (in `backend`). Under MPI the binding
/// needs the device count now; one process does not ask: CUDA's start-up (driver and
/// context, a few hundred ms) then runs on the warm-up thread while the data are read.
RankPlace place_rank(pc::PcConfig& cfg, const mpi::Environment& env) {
    BackendContext& backend = cfg.backend;
    RankPlace place;
    const int gpus = place.gpus = env.mpi() ? visible_gpus() : -1;
    const bool gpu = place.gpu = backend.kind != BackendKind::Cpu && cfg.compat != pc::Compat::CausalLearn &&
                                 (gpus > 0 || (gpus < 0 && cuda_compiled()));
    mpi::RankInfo& me = place.me;
    me.local_rank = env.local_rank();
    if (env.mpi()) {
        if (gpus > 0) backend.device = mpi::bind_device(env.local_rank(), gpus);
        if (backend.threads == 0) backend.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));
    }
    me.threads = resolve_threads(backend.threads);
    if (gpu && env.mpi()) {
        backend.device_info = gpu_device(backend.device);  // this rank's GPU only: no context on the others
        me.device = backend.device;
        me.device_name = backend.device_info ? backend.device_info->name : "?";
        me.memory_gib = backend.device_info ? backend.device_info->total_bytes / 1073741824.0 : 0.0;
    } else {
        me.device_name = "cpu";
        me.memory_gib = mpi::host_memory_gib();
    }
    return place;
}

/// The data, read once: handed over in memory, read collectively (HDF5 through MPI-IO), or
/// read by rank 0 and broadcast.
Dataset read_pc_input(const PcArgs& a, const pc::PcConfig& cfg, pc::Progress& progress, mpi::Communicator& comm,
                      const io::Hdf5IoPlan& io_plan, const PcHooks& hooks) {
    const auto t_read = std::chrono::steady_clock::now();
    Dataset data;
    const bool hdf5_in = !hooks.read && a.data != "-" && io::h5::has_hdf5_signature(a.data);
    if (hooks.read) {
        // Data handed over in memory (an in-process caller): every rank takes them.
        mpi::run_agreed(comm, [&] { data = read_pc_data(a, cfg.test.kind, progress, comm, hooks.read); });
    } else if (io_plan.collective && hdf5_in) {
        if (!a.na_values.empty())
            throw InputError("--na-values applies to text tables; '" + a.data + "' is HDF5 (its values are numbers)");
        // Every rank reads its columns through MPI-IO; one allgather shares them.
        mpi::run_agreed(comm, [&] {
            data = read_pc_data(a, cfg.test.kind, progress, comm, [&](io::TableMode m) {
                return io::read_dataset_collective(a.data, a.dataset, m, comm);
            });
        });
    } else {
        // Rank 0 reads (text, or HDF5 without MPI-IO); one broadcast shares the data.
        data = io::share_dataset(comm, [&] {
            return read_pc_data(a, cfg.test.kind, progress, comm, with_na_values({}, a.data, a.dataset, a.na_values));
        });
    }
    progress.note("input read (" + std::string(io_plan.collective && hdf5_in ? "collective" : "rank 0 and broadcast") +
                  "):" + seconds_text(t_read));
    return data;
}

/// Refusals that depend on the data: drawing too many nodes, a run that cannot fit in the
/// host's memory (agreed over the ranks).
void check_pc_fits(const PcArgs& a, const pc::PcConfig& cfg, const Dataset& data,
                   const std::vector<std::string>& formats, const RankPlace& place, const mpi::Environment& env,
                   mpi::Communicator& comm) {
    const bool gpu = place.gpu;
    const int gpus = place.gpus;
    mpi::run_agreed(comm, [&] {
        const bool draws =
            std::any_of(formats.begin(), formats.end(), [](const std::string& f) { return f == "png" || f == "svg"; });
        if (draws && data.n_vars > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(data.n_vars) +
                             " variables takes Graphviz minutes (about 2 min at 3,000); add --force "
                             "to draw anyway, or write --format dot and draw a part of it");
        const bool gpu_engine = gpu && (gpus > 0 || !env.mpi());
        const bool corr = !gpu_engine && pc::resolve_test(cfg, data).kind == pc::TestKind::FisherZ;
        pc::PcConfig probe = cfg;
        probe.backend.kind = gpu_engine ? probe.backend.kind : BackendKind::Cpu;
        require_host_memory(pc::estimate_host_bytes(data, probe, gpu_engine),
                            "cudag pc on " + std::to_string(data.n_vars) + " variables",
                            corr ? "the CPU engine's " + std::to_string(data.n_vars) + " x " +
                                       std::to_string(data.n_vars) + " correlation matrix"
                                 : "",
                            corr ? "run it on a GPU (--backend cuda) or on fewer variables" : "");
    });
}

/// The result HDF5 (collectively, or by rank 0) and the formats beside it.
void write_pc_result(const PcArgs& a, const std::vector<std::string>& formats, const std::string& command_line,
                     pc::PcResult& r, io::OutputSet& outputs, const std::string& tmp_h5, const io::Hdf5IoPlan& io_plan,
                     pc::Progress& progress, mpi::Communicator& comm, const PcHooks& hooks) {
    const bool root = comm.rank() == 0;
    const auto t_write = std::chrono::steady_clock::now();
    if (io_plan.collective && !a.out.empty()) {
        mpi::run_agreed(comm, [&] {
            if (root) add_provenance(a, command_line, r);
        });
        std::vector<std::byte> name(reinterpret_cast<const std::byte*>(tmp_h5.data()),
                                    reinterpret_cast<const std::byte*>(tmp_h5.data() + tmp_h5.size()));
        comm.bcast_blob(name, 0);
        const std::string tmp(reinterpret_cast<const char*>(name.data()), name.size());
        try {
            pc::write_result_hdf5(r, tmp, comm);
        } catch (const mpi::AgreedFailure& e) {
            throw mpi::AgreedFailure(name_out(e.what(), tmp, a.out));
        } catch (const InputError& e) {
            throw InputError(name_out(e.what(), tmp, a.out));
        }
        // Every rank has written its part: rank 0 adds the --format files and renames.
        mpi::run_agreed(comm, [&] {
            if (!root) return;
            io::write_formats(r, a.out, formats, outputs, std::cerr);
            outputs.commit();
        });
    } else {
        // Rank 0 writes everything; the others wait to hear whether it succeeded.
        mpi::run_agreed(comm, [&] {
            if (root && (!hooks.result || !a.out.empty()))
                write_pc_outputs(a, formats, command_line, r, outputs, tmp_h5);
        });
    }
    if (!a.out.empty())
        progress.note(std::string("results written (") + (io_plan.collective ? "collective" : "rank 0") +
                      "):" + seconds_text(t_write));
}

/// The summary line on stderr.
std::string pc_summary(const PcArgs& a, const pc::PcConfig& cfg, const Dataset& data, const pc::PcResult& r,
                       const io::OutputSet& outputs) {
    std::int64_t directed = 0;
    const auto edges = io::cpdag_edges(r.cpdag);
    for (const auto& e : edges) directed += e.kind == io::EdgeKind::Directed;
    std::ostringstream os;
    os << "cudag pc: " << data.n_vars << (data.discrete() ? " discrete" : "") << " variables, " << data.n_samples
       << " samples, " << pc::resolve_test(cfg, data).name() << ": " << edges.size() << " edges (" << directed
       << " directed), " << r.levels.size() << " levels, " << r.seconds_total << " s";
    if (!a.out.empty()) {
        os << "; wrote";
        for (const auto& f : outputs.final_paths()) os << ' ' << f;
    }
    return os.str();
}

}  // namespace

int run_pc_command(const PcArgs& args, const std::string& command_line, const mpi::Environment& env,
                   std::unique_ptr<mpi::Communicator>& comm, const PcHooks& hooks) {
    PcArgs a = args;
    std::vector<std::string> formats;
    pc::PcConfig cfg = plan_pc(a, env, formats);
    BackendContext& backend = cfg.backend;  // the run's backend context, built here once
    const bool cmiknn = cfg.test.kind == pc::TestKind::CmiKnn;

    const RankPlace place = place_rank(cfg, env);
    const int gpus = place.gpus;
    const bool gpu = place.gpu;
    const mpi::RankInfo& me = place.me;
    // NCCL where level results stay on the GPUs (Fisher-z, discrete); the CMIknn engine
    // hands its results to the host, where MPI merges them without a staging copy.
    comm = pc_communicator(a, cfg, std::move(comm), env, gpus, gpu, !cmiknn);
    const bool root = comm->rank() == 0;
    if (env.mpi()) {
        const std::string table = mpi::startup_report(*comm, me);
        if (root && !a.quiet) std::cerr << table << std::flush;
    }

    // Check every output location (writable, not a FIFO or device) before reading the data.
    io::OutputSet outputs;
    const std::string tmp_h5 =
        claim_outputs(*comm, outputs, a.out, formats, {cfg.checkpoint, cfg.resume, a.overwrite_checkpoint});

    pc::Progress progress(a.quiet || !root ? pc::Progress::Mode::Quiet
                                           : (a.verbose ? pc::Progress::Mode::Always : pc::Progress::Mode::Auto),
                          "cudag pc");
    std::thread gpu_init = warm_up_gpu(gpu ? backend.kind : BackendKind::Cpu, backend.device);
    struct Joiner {
        std::thread& t;
        ~Joiner() {
            if (t.joinable()) t.join();
        }
    } join_gpu_init{gpu_init};
    // HDF5 I/O: collective (MPI-IO) with parallel HDF5 on several ranks, else gathered on
    // rank 0; the input read once either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] {
        if (a.data == "-" && comm->size() > 1)
            throw InputError("--data - (standard input) needs a single process: give a file name");
        io_plan = io::plan_hdf5_io(comm->size());
    });
    if (const double age = process_age_seconds(); age >= 0.0)
        progress.note("start-up before the data (process, MPI, GPU binding, communicator" +
                      std::string(comm->device_buffers() ? ", NCCL" : "") + "):" + seconds_text(age) + " on rank 0");
    progress.note("HDF5 I/O: " + io_plan.describe());
    Dataset data = read_pc_input(a, cfg, progress, *comm, io_plan, hooks);
    mpi::run_agreed(*comm, [&] {
        if (a.knowledge.any()) cfg.knowledge = read_knowledge(a.knowledge, data.names);
    });
    if (gpu_init.joinable()) gpu_init.join();
    progress.note(
        "read " + data.source + ": " + std::to_string(data.n_samples) + " samples x " + std::to_string(data.n_vars) +
        (data.discrete() ? " discrete" : "") + " variables" +
        (comm->size() > 1 ? " on " + std::to_string(comm->size()) + " ranks (" + comm->name() + ")" : std::string()));
    // Values of huge or tiny magnitude (1e±150 and beyond) scaled exactly (powers of two)
    // for the scale-invariant tests; every rank alike.
    std::int64_t rescaled = 0;
    mpi::run_agreed(*comm, [&] { rescaled = pc::rescale_extreme_columns(data, cfg); });
    if (rescaled > 0)
        progress.note(std::to_string(rescaled) + " column" + (rescaled == 1 ? "" : "s") +
                      " of magnitude beyond 1e+-150 scaled by powers of two (exact; the test is scale-invariant)");
    check_pc_fits(a, cfg, data, formats, place, env, *comm);
    // Verbose: the peak so far is kept and a new one started after every level, so that the
    // end reports the whole run's peak and the peak after the levels (the records' collection,
    // orientation and output) apart.
    std::int64_t levels_peak = 0;
    cfg.on_level = [&progress, &hooks, &levels_peak, verbose = a.verbose](const pc::LevelStats& s) {
        progress.level(s);
        if (hooks.level) hooks.level(s);
        if (verbose) levels_peak = std::max(levels_peak, restart_peak_resident());
    };
    cfg.on_note = [&progress](const std::string& line) { progress.note(line); };
    cfg.on_level_start = [&progress](const pc::LevelPlan& plan) { progress.level_start(plan); };
    cfg.on_checkpoint = [&cfg](int level) {
        interrupt::set_note("the last checkpoint is level " + std::to_string(level) + " in '" + cfg.checkpoint +
                            "' (continue with --resume)");
    };
    cfg.on_resume = [&cfg, &a](int level) {
        if (!a.quiet)
            std::cerr << "cudag pc: resuming from checkpoint '" << cfg.checkpoint << "' at level " << level << '\n';
    };
    // Collective: the ranks keep their rows' records and write them to the result (and
    // the checkpoints) themselves.
    // (Not for an in-process caller that takes the result: it gets every record on rank 0.)
    cfg.distributed_records = io_plan.collective && !hooks.result;
    if (cfg.test.kind == pc::TestKind::CmiKnn) {
        progress.announce_every_level();
        bool valid = true;  // else run_pc refuses the run (on every rank), not timed first
        try {
            pc::validate(cfg, data);
        } catch (const InputError&) {
            valid = false;
        }
        if (root && progress.enabled() && !cfg.resume && valid)
            announce_cmi_level0(data, pc::resolve_test(cfg, data).cmi, me.threads * comm->size(), progress);
    }
    pc::PcResult r = pc::run_pc(data, cfg, *comm);
    write_pc_result(a, formats, command_line, r, outputs, tmp_h5, io_plan, progress, *comm, hooks);
    if (a.verbose)
        report_peak_memory(*comm, "cudag pc", levels_peak, "peak memory per rank after the levels (records, output)");
    if (!root) return 0;
    if (!cfg.checkpoint.empty() && !a.keep_checkpoint) {
        // The run finished: its checkpoint has served (--keep-checkpoint keeps it).
        std::error_code ec;
        std::filesystem::remove(cfg.checkpoint, ec);
        interrupt::set_note("");
    }

    std::cout.flush();
    if (!a.quiet) std::cerr << pc_summary(a, cfg, data, r, outputs) << '\n';
    if (hooks.result) hooks.result(r);
    return 0;
}

}  // namespace cudag::cli
