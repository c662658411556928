// SPDX-License-Identifier: Apache-2.0
// cudag command line: pc, citest, simulate, compare, info. The only place that catches.
#include <CLI/CLI.hpp>
#include <hdf5.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "cli/citest.hpp"
#include "cli/cmi_options.hpp"
#include "cli/common.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"
#include "cudag/config.hpp"
#include "io/dataset_io.hpp"
#include "io/graph_reader.hpp"
#include "io/output_set.hpp"
#include "io/result_file.hpp"
#include "io/writers.hpp"
#include "mpi/environment.hpp"
#include "mpi/mpi_communicator.hpp"
#include "pc/metrics.hpp"
#include "pc/run.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"

namespace {

using namespace cudag;
using cli::checked_threads;
using cli::split_commas;

std::string join_args(int argc, char** argv) {
    std::string s;
    for (int k = 0; k < argc; ++k) {
        if (k) s += ' ';
        s += argv[k];
    }
    return s;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

/// The hidden --tune key=value items applied to `t` (kernel tuning; the automatic choice
/// is the default). Unknown keys and bad values are one-line InputErrors.
void apply_tunes(const std::vector<std::string>& items, GpuTunables& t) {
    static const char* keys =
        "variant, beta, gamma, theta, delta, scan-levels, scan-round-levels, corr-limit";
    for (const std::string& list : items) {
        for (const std::string& item : split_commas(list)) {
            const std::size_t eq = item.find('=');
            const std::string key = item.substr(0, eq);
            const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
            if (eq == std::string::npos || value.empty())
                throw InputError("--tune takes key=value, got '" + item + "' (keys: " + keys + ")");
            auto integer = [&](int lo, int hi) {
                std::size_t used = 0;
                long v = 0;
                try {
                    v = std::stol(value, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used != value.size() || v < lo || v > hi)
                    throw InputError("--tune " + key + " must be an integer in [" +
                                     std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                                     value + "'");
                return static_cast<int>(v);
            };
            if (key == "variant") {
                if (value != "s" && value != "e")
                    throw InputError("--tune variant must be s (cuPC-S) or e (cuPC-E), got '" +
                                     value + "'");
                t.variant = value[0];
                t.auto_tune = false;
            } else if (key == "beta") {
                t.beta = integer(1, 1024);
            } else if (key == "gamma") {
                t.gamma = integer(1, 1024);
            } else if (key == "theta") {
                t.theta = integer(1, 1024);
            } else if (key == "delta") {
                t.delta = integer(1, 1 << 16);
            } else if (key == "scan-levels") {
                t.scan_levels = integer(0, 6);
            } else if (key == "scan-round-levels") {
                t.scan_round_levels = integer(0, 6);
            } else if (key == "corr-limit") {
                char* end = nullptr;
                const double gib = std::strtod(value.c_str(), &end);
                if (end != value.c_str() + value.size() || !(gib >= 0.0) || gib > 1e6)
                    throw InputError("--tune corr-limit must be a number of GiB >= 0, got '" +
                                     value + "'");
                t.corr_limit_bytes = static_cast<std::int64_t>(gib * 1073741824.0);
            } else {
                throw InputError("unknown --tune key '" + key + "' (keys: " + keys + ")");
            }
        }
    }
}

/// Largest graph drawn as PNG/SVG without --force (Graphviz takes minutes beyond).
constexpr std::int64_t kMaxDrawnNodes = 500;

// ---- cudag pc ----------------------------------------------------------------------
struct PcArgs {
    std::string data, dataset, out, formats, compat = "pcalg", backend = "auto", comm = "auto";
    pc::PcConfig cfg;
    cli::CmiKnnOptions cmi;
    int uc_rule = -2, uc_priority = -2;
    bool quiet = false, verbose = false, discrete = false, keep_checkpoint = false, force = false;
    double comm_timeout = 600.0;
    std::vector<std::string> tunes;  ///< --tune key=value items
};

/// CUDAG_TEST_FAIL="RANK:LEVEL[:unguarded]" injects a failure (tests of the fault path).
void parse_test_failure(pc::PcConfig& cfg) {
    const char* spec = std::getenv("CUDAG_TEST_FAIL");
    if (!spec || !*spec) return;
    int rank = -1, level = -1;
    char mode[16] = {};
    if (std::sscanf(spec, "%d:%d:%15s", &rank, &level, mode) < 2)
        throw InputError(std::string("CUDAG_TEST_FAIL must be RANK:LEVEL[:unguarded], got '") + spec + "'");
    cfg.fail_rank = rank;
    cfg.fail_level = level;
    cfg.fail_guarded = std::string(mode) != "unguarded";
}

/// GPU name and memory (GiB) of `device` from gpu_report()'s line
/// "GPU <id>: <name>, <total> GiB, ...".
std::pair<std::string, double> gpu_name_and_memory(int device) {
    std::stringstream ss(gpu_report());
    std::string line;
    const std::string prefix = "GPU " + std::to_string(device) + ": ";
    while (std::getline(ss, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        const std::string rest = line.substr(prefix.size());
        const std::size_t comma = rest.find(", ");
        const std::string name = rest.substr(0, comma);
        double gib = 0.0;
        if (comma != std::string::npos) gib = std::atof(rest.c_str() + comma + 2);
        return {name, gib};
    }
    return {"?", 0.0};
}

/// The communicator for `cudag pc`: MPI (or serial), or NCCL over it for GPU runs.
/// NCCL needs a GPU per rank; ranks sharing a GPU stay on MPI.
std::unique_ptr<mpi::Communicator> pc_communicator(const PcArgs& a, const pc::PcConfig& cfg,
                                                   std::unique_ptr<mpi::Communicator> world,
                                                   const mpi::Environment& env, int gpus, bool gpu) {
    const bool own_gpu = world->size() > 1 && mpi::gpu_per_rank(*world, env, gpus);
    // The same checks on every rank: agree, so that one line is printed.
    mpi::run_agreed(*world, [&] {
        if (a.comm != "auto" && a.comm != "mpi" && a.comm != "nccl")
            throw InputError("unknown --comm '" + a.comm + "' (available: auto, mpi, nccl)");
        if (a.comm == "nccl" && !gpu)
            throw InputError("--comm nccl needs the CUDA backend and a visible GPU");
        if (a.comm == "nccl" && !mpi::nccl_compiled()) throw NotCompiled("NCCL");
        if (a.comm == "nccl" && world->size() > 1 && !own_gpu)
            throw InputError("--comm nccl needs one GPU per rank (" + std::to_string(env.local_size()) +
                             " ranks on this node share " + std::to_string(gpus) + " GPUs)");
    });
    const bool nccl = a.comm == "nccl" || (a.comm == "auto" && gpu && own_gpu &&
                                           mpi::nccl_compiled());
    if (!nccl) return world;
    return mpi::make_nccl_communicator(std::move(world), cfg.device, a.comm_timeout);
}

/// Provenance, then the result file and --format files (rank 0).
void write_pc_outputs(const PcArgs& a, const std::vector<std::string>& formats,
                      const std::string& command_line, pc::PcResult& r, io::OutputSet& outputs,
                      const std::string& tmp_h5) {
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

    if (a.out.empty()) {
        // No output file: the CPDAG goes to stdout as the edge list.
        std::cout << "source\ttarget\tmark\n";
        for (const io::CpdagEdge& e : io::cpdag_edges(r.cpdag))
            std::cout << io::tsv_escape(r.names[e.a]) << '\t' << io::tsv_escape(r.names[e.b])
                      << '\t' << io::edge_mark(e.kind) << '\n';
    } else {
        try {
            io::write_result_hdf5(r, tmp_h5);
        } catch (const InputError& e) {
            // Name the file the user asked for, not its hidden temporary.
            std::string msg = e.what();
            const std::size_t at = msg.find(tmp_h5);
            if (at != std::string::npos) msg.replace(at, tmp_h5.size(), a.out);
            throw InputError(msg);
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
Dataset read_pc_data(const PcArgs& a, Progress& progress, const mpi::Communicator& comm) {
    if (a.data == "-" && comm.size() > 1)
        throw InputError("--data - (standard input) needs a single process: give a file name");
    if (a.discrete && a.cfg.test == "fisher-z")
        throw InputError("--discrete contradicts --test fisher-z");
    if (a.discrete || pc::is_discrete_test(a.cfg.test))
        return io::read_dataset(a.data, a.dataset, io::TableMode::Labels);
    if (!a.cfg.test.empty()) return io::read_dataset(a.data, a.dataset);
    Dataset d;
    try {
        d = io::read_dataset(a.data, a.dataset, io::TableMode::Auto);
    } catch (const io::MixedColumn& e) {
        throw InputError(std::string(e.what()) + "; --discrete reads every cell as a label");
    }
    if (d.discrete()) {
        std::string label_column;
        for (std::int64_t v = 0; v < d.n_vars && label_column.empty(); ++v)
            if (std::none_of(d.levels[v].begin(), d.levels[v].end(), io::is_numeric_cell))
                label_column = d.names[v];
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

int run_pc_command(const PcArgs& args, const std::string& command_line, const mpi::Environment& env,
                   std::unique_ptr<mpi::Communicator>& comm) {
    PcArgs a = args;
    if (a.out == "-") a.out.clear();  // the edge list on standard output, as without --out
    std::vector<std::string> formats = split_commas(a.formats);
    io::validate_formats(formats);
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    if (a.cfg.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    // Every output against every input and against each other, before any work.
    std::vector<io::NamedPath> out_paths{{"--out", a.out}, {"--checkpoint", a.cfg.checkpoint}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct({{"--data", a.data}}, out_paths);
    pc::PcConfig cfg = a.cfg;
    cfg.threads = checked_threads(cfg.threads, a.quiet || env.rank() != 0);
    if (a.compat == "causal-learn")
        cfg.compat = pc::Compat::CausalLearn;
    else if (a.compat != "pcalg")
        throw InputError("unknown --compat '" + a.compat + "' (available: pcalg, causal-learn)");
    cfg.backend = parse_backend(a.backend);
    cfg.cmi = cli::cmi_knn_spec(a.cmi, cfg.test);
    cfg.cmi_early_stop = !a.cmi.no_early_stop;
    const bool cmiknn = cfg.test == "cmiknn";
    if (cmiknn) cmiknn_picks_gpu(cfg.backend);  // --backend cuda: not built yet, say so now
    apply_tunes(a.tunes, cfg.gpu);
    if (a.uc_rule != -2) cfg.uc_rule = a.uc_rule;
    if (a.uc_priority != -2) cfg.uc_priority = a.uc_priority;

    parse_test_failure(cfg);

    // Rank -> GPU binding (node-local rank mod visible devices) and threads per rank.
    // Under MPI the binding needs the device count now. One process does not ask: CUDA's
    // start-up (driver and context, a few hundred ms) then runs on the warm-up thread
    // while the data are read.
    const int gpus = env.mpi() ? visible_gpus() : -1;
    const bool gpu = cfg.backend != BackendKind::Cpu && cfg.compat != pc::Compat::CausalLearn &&
                     !cmiknn && (gpus > 0 || (gpus < 0 && cuda_compiled()));
    mpi::RankInfo me;
    me.local_rank = env.local_rank();
    if (env.mpi()) {
        if (gpus > 0) cfg.device = mpi::bind_device(env.local_rank(), gpus);
        if (cfg.threads == 0) cfg.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));
    }
    me.threads = resolve_threads(cfg.threads);
    if (gpu && env.mpi()) {
        me.device = cfg.device;
        std::tie(me.device_name, me.memory_gib) = gpu_name_and_memory(cfg.device);
    } else {
        me.device_name = "cpu";
        me.memory_gib = mpi::host_memory_gib();
    }
    comm = pc_communicator(a, cfg, std::move(comm), env, gpus, gpu);
    const bool root = comm->rank() == 0;
    if (env.mpi()) {
        const std::string table = mpi::startup_report(*comm, me);
        if (root && !a.quiet) std::cerr << table << std::flush;
    }

    // Check every output location (writable, not a FIFO or device) before reading the data.
    io::OutputSet outputs;
    std::string tmp_h5;
    mpi::run_agreed(*comm, [&] {
        if (!root) return;
        if (!a.out.empty()) {
            tmp_h5 = outputs.temp_for(a.out);
            for (const std::string& f : formats) outputs.temp_for(io::format_path(a.out, f));
        }
        if (!cfg.checkpoint.empty()) {
            io::OutputSet probe;  // the checkpoint writer has its own set
            probe.temp_for(cfg.checkpoint);
        }
    });

    Progress progress(a.quiet || !root ? Progress::Mode::Quiet
                                       : (a.verbose ? Progress::Mode::Always : Progress::Mode::Auto),
                      "cudag pc");
    std::thread gpu_init = warm_up_gpu(
        cfg.compat == pc::Compat::CausalLearn || cmiknn ? BackendKind::Cpu : cfg.backend, cfg.device);
    struct Joiner {
        std::thread& t;
        ~Joiner() {
            if (t.joinable()) t.join();
        }
    } join_gpu_init{gpu_init};
    Dataset data;
    mpi::run_agreed(*comm, [&] { data = read_pc_data(a, progress, *comm); });
    if (gpu_init.joinable()) gpu_init.join();
    progress.note("read " + data.source + ": " + std::to_string(data.n_samples) + " samples x " +
                  std::to_string(data.n_vars) + (data.discrete() ? " discrete" : "") + " variables" +
                  (comm->size() > 1 ? " on " + std::to_string(comm->size()) + " ranks (" + comm->name() + ")"
                                    : std::string()));
    mpi::run_agreed(*comm, [&] {
        const bool draws = std::any_of(formats.begin(), formats.end(),
                                       [](const std::string& f) { return f == "png" || f == "svg"; });
        if (draws && data.n_vars > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(data.n_vars) +
                             " variables takes Graphviz minutes (about 2 min at 3,000); add --force "
                             "to draw anyway, or write --format dot and draw a part of it");
        const bool gpu_engine = gpu && (gpus > 0 || !env.mpi());
        const bool corr = !gpu_engine && pc::resolved_test(cfg, data) == "fisher-z";
        pc::PcConfig probe = cfg;
        probe.backend = gpu_engine ? probe.backend : BackendKind::Cpu;
        require_host_memory(pc::estimate_host_bytes(data, probe, gpu_engine),
                            "cudag pc on " + std::to_string(data.n_vars) + " variables",
                            corr ? "the CPU engine's " + std::to_string(data.n_vars) + " x " +
                                       std::to_string(data.n_vars) + " correlation matrix"
                                 : "",
                            corr ? "run it on a GPU (--backend cuda) or on fewer variables" : "");
    });
    cfg.on_level = [&progress](const pc::LevelStats& s) { progress.level(s); };
    cfg.on_note = [&progress](const std::string& line) { progress.note(line); };
    cfg.on_checkpoint = [&cfg](int level) {
        interrupt::set_note("the last checkpoint is level " + std::to_string(level) + " in '" +
                            cfg.checkpoint + "' (continue with --resume)");
    };
    cfg.on_resume = [&cfg, &a](int level) {
        if (!a.quiet)
            std::cerr << "cudag pc: resuming from checkpoint '" << cfg.checkpoint << "' at level "
                      << level << '\n';
    };
    pc::PcResult r = pc::run_pc(data, cfg, *comm);
    // Rank 0 writes everything; the others wait to hear whether it succeeded.
    mpi::run_agreed(*comm, [&] {
        if (root) write_pc_outputs(a, formats, command_line, r, outputs, tmp_h5);
    });
    if (!root) return 0;
    if (!a.out.empty()) progress.note("results written");
    if (!cfg.checkpoint.empty() && !a.keep_checkpoint) {
        // The run finished: its checkpoint has served (--keep-checkpoint keeps it).
        std::error_code ec;
        std::filesystem::remove(cfg.checkpoint, ec);
        interrupt::set_note("");
    }

    std::cout.flush();
    if (!a.quiet) {
        std::int64_t directed = 0;
        const auto edges = io::cpdag_edges(r.cpdag);
        for (const auto& e : edges) directed += e.kind == io::EdgeKind::Directed;
        std::ostringstream os;
        os << "cudag pc: " << data.n_vars << (data.discrete() ? " discrete" : "") << " variables, "
           << data.n_samples << " samples, " << pc::resolved_test(cfg, data) << ": "
           << edges.size() << " edges (" << directed << " directed), "
           << r.levels.size() << " levels, " << r.seconds_total << " s";
        if (!a.out.empty()) {
            os << "; wrote";
            for (const auto& f : outputs.final_paths()) os << ' ' << f;
        }
        std::cerr << os.str() << '\n';
    }
    return 0;
}

// ---- cudag simulate gaussian ------------------------------------------------------------
struct SimArgs {
    sim::GaussianSimSpec spec{100, 1000, 0.05, 1};
    std::string out, truth;
    int threads = 0;
};

/// The simulate commands' outputs: distinct, at most one on standard output, every
/// location writable (checked before the work); `inputs` are what the command reads.
std::string prepare_sim_outputs(const std::vector<io::NamedPath>& inputs, const std::string& out,
                                const std::string& truth, io::OutputSet& outputs) {
    if (out == "-" && truth == "-")
        throw InputError("--out and --truth cannot both be '-' (standard output)");
    io::check_distinct(inputs, {{"--out", out}, {"--truth", truth}});
    if (out != "-") outputs.temp_for(out);
    return truth.empty() || truth == "-" ? truth : outputs.temp_for(truth);
}

/// simulate gaussian, or nonlinear (the same DAG, nonlinear edge functions).
int run_simulate(const SimArgs& a, bool nonlinear) {
    if (a.out.empty()) throw InputError("--out is required");
    io::OutputSet outputs;
    const std::string truth_tmp = prepare_sim_outputs({}, a.out, a.truth, outputs);
    const int threads = checked_threads(a.threads, false);
    if (a.spec.n_vars >= 1 && a.spec.n_samples >= 1 && a.spec.density >= 0.0) {
        char detail[160];
        std::snprintf(detail, sizeof detail, "%lld x %lld values, %.3g expected edges",
                      static_cast<long long>(a.spec.n_vars), static_cast<long long>(a.spec.n_samples),
                      sim::expected_edges(a.spec));
        require_host_memory(sim::simulation_bytes(a.spec),
                            nonlinear ? "simulate nonlinear" : "simulate gaussian", detail,
                            "lower --vars, --samples or --density");
    }
    Dataset data;
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> edges;
    std::vector<std::string> functions;  // nonlinear: each edge's function
    std::string kinds;                   // nonlinear: how many edges of each function
    if (nonlinear) {
        sim::NonlinearSim s = sim::simulate_nonlinear(a.spec, threads);
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
        sim::GaussianSim s = sim::simulate_gaussian(a.spec, threads);
        edges = std::move(s.dag_edges);
        data = std::move(s.data);
    }
    io::write_dataset(data, a.out, outputs);
    if (!a.truth.empty()) io::write_truth_tsv(data.names, edges, truth_tmp, functions);
    outputs.commit();
    std::cerr << "cudag simulate: " << a.spec.n_vars << " variables x " << a.spec.n_samples
              << " samples, " << edges.size() << " true edges" << kinds << "; wrote " << a.out
              << (a.truth.empty() ? "" : " and " + a.truth) << '\n';
    return 0;
}

// ---- cudag simulate discrete | bif ----------------------------------------------------
struct DiscreteSimArgs {
    sim::DiscreteSimSpec spec{100, 1000, 0.05, 4, 1};
    std::string bif, out, truth;
    int threads = 0;
};

int run_simulate_discrete(const DiscreteSimArgs& a, bool from_bif) {
    io::OutputSet outputs;
    std::vector<io::NamedPath> inputs;
    if (from_bif) inputs.push_back({"--bif", a.bif});
    const std::string truth_tmp = prepare_sim_outputs(inputs, a.out, a.truth, outputs);
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
        require_host_memory(16.0 * static_cast<double>(net.size()) *
                                static_cast<double>(a.spec.n_samples),
                            "simulate", std::to_string(net.size()) + " x " +
                                            std::to_string(a.spec.n_samples) + " values",
                            "lower --samples");
    const Dataset data = sim::forward_sample(net, a.spec.n_samples, a.spec.seed, threads);
    io::write_dataset(data, a.out, outputs);
    if (!a.truth.empty()) io::write_truth_tsv(data.names, net.arcs(), truth_tmp);
    outputs.commit();
    std::cerr << "cudag simulate: " << data.n_vars << " discrete variables x " << data.n_samples
              << " samples, " << net.arcs().size() << " true edges; wrote " << a.out
              << (a.truth.empty() ? "" : " and " + a.truth) << '\n';
    return 0;
}

// ---- cudag compare ----------------------------------------------------------------
// Reads both graphs (any format read_graph_file knows), puts them on one variable list
// (align_graphs refuses different variable sets), converts a DAG truth to its CPDAG and
// prints the metrics. With --json -, stdout holds only the JSON and the table goes to
// stderr, so that `cudag compare ... --json - | jq` works.
int run_compare(const std::string& truth_path, const std::string& est_path, const std::string& json) {
    const io::GraphFile truth_file = io::read_graph_file(truth_path);
    const io::GraphFile est_file = io::read_graph_file(est_path);
    io::AlignedGraphs g = io::align_graphs(truth_file, est_file);
    if (pc::is_dag(g.truth)) g.truth = pc::dag_to_cpdag(g.truth);
    const pc::Comparison c = pc::compare_graphs(g.truth, g.estimate);
    const std::string js = pc::comparison_json(c);
    if (json == "-") {
        std::cerr << pc::comparison_table(c);
        std::cout << js << '\n';
        return 0;
    }
    if (!json.empty()) {
        io::OutputSet outputs;
        const std::string tmp = outputs.temp_for(json);
        io::TextFile f(tmp);
        f.write(js);
        f.write("\n");
        f.close();
        outputs.commit();
    }
    std::cout << pc::comparison_table(c);
    return 0;
}

// ---- cudag info ---------------------------------------------------------------------
int run_info() {
    std::cout << "cudag " << CUDAG_VERSION << '\n'
              << "build: CUDA " << (CUDAG_HAVE_CUDA ? "on" : "off") << ", MPI "
              << (CUDAG_HAVE_MPI ? "on" : "off") << ", NCCL " << (CUDAG_HAVE_NCCL ? "on" : "off")
              << ", parallel HDF5 " << (CUDAG_HAVE_PARALLEL_HDF5 ? "on" : "off") << '\n'
              << "backends: cpu" << (cuda_compiled() ? ", cuda" : "") << '\n'
              << "GPUs: " << gpu_report() << '\n'
              << "threads: " << resolve_threads(0) << " hardware threads\n"
              << "tests: fisher-z, chi-square, g-square, cmiknn\n";
    return 0;
}

/// The one line an error gets on stderr: "cudag: error: [rank r (host): ]message".
void print_error(const std::string& what, int rank, int size) {
    std::string msg = what;
    for (char& ch : msg)
        if (ch == '\n') ch = ' ';
    const std::string who = size > 1 ? "rank " + std::to_string(rank) + " (" + mpi::host_name() + "): " : "";
    std::fprintf(stderr, "cudag: error: %s%s\n", who.c_str(), msg.c_str());
    std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
    // Before any thread starts (MPI, CUDA, workers): they inherit the blocked signals.
    interrupt::install();
    // HDF5's own exit handler closes what is still open; after a failed write (a full
    // disk) it crashes in H5D_close on the half-closed dataset. cudag closes every handle
    // itself (RAII), so the handler has nothing to do: do not register it.
    H5dont_atexit();
    std::unique_ptr<mpi::Environment> env;
    try {
        env = std::make_unique<mpi::Environment>(argc, argv);
    } catch (const std::exception& e) {
        print_error(e.what(), 0, 1);
        return 1;
    }
    const int world_rank = env->rank(), world_size = env->size();

    CLI::App app{"cudag: causal structure learning (PC-stable) from a laptop CPU to GPU clusters"};
    app.require_subcommand(1);
    app.set_version_flag("--version", CUDAG_VERSION);

    PcArgs pa;
    auto* pc_cmd = app.add_subcommand("pc", "PC-stable: learn a CPDAG and separating sets from data");
    pc_cmd->add_option("--data", pa.data,
                       "input data: CSV/TSV/whitespace text with a header row, or HDF5; '-' reads "
                       "text from standard input")
        ->required();
    pc_cmd->add_option("--dataset", pa.dataset, "HDF5 dataset path (default: the only 2-D dataset)");
    pc_cmd->add_option("--test", pa.cfg.test,
                       "CI test: fisher-z or cmiknn (continuous), chi-square or g-square (discrete); "
                       "default: chi-square for discrete data, else fisher-z");
    pc_cmd->add_flag("--discrete", pa.discrete,
                     "read the data as discrete (integer codes or labels); implied by a discrete "
                     "--test or a column of labels");
    pc_cmd->add_option("--dof", pa.cfg.dof,
                       "degrees of freedom of chi-square/g-square: gpupc, pcalg or causal-learn "
                       "(default: pcalg; causal-learn with --compat causal-learn)");
    pc_cmd->add_option("--alpha", pa.cfg.alpha, "significance level, in (0, 1)")->capture_default_str();
    pc_cmd->add_option("--max-level", pa.cfg.max_level, "largest conditioning-set size (-1: no cap)")
        ->capture_default_str();
    pc_cmd->add_option("--threads", pa.cfg.threads,
                       "CPU threads (0: all hardware threads; more than those are clamped)")
        ->capture_default_str();
    pc_cmd->add_option("--out", pa.out,
                       "result HDF5 file (default or '-': print the edge list to stdout)");
    pc_cmd->add_option("--format", pa.formats,
                       "extra outputs beside --out, comma-separated: edges,dot,json,amat,cl,png,svg");
    pc_cmd->add_flag("--force", pa.force,
                     "draw png/svg even for more than 500 variables (Graphviz takes minutes)");
    pc_cmd->add_option("--compat", pa.compat,
                       "semantics: pcalg (default) or causal-learn (its sepsets, p > alpha, orientation)")
        ->capture_default_str();
    pc_cmd->add_option("--uc-rule", pa.uc_rule,
                       "causal-learn uc_rule: 0 sepset, 1 maxP, 2 definiteMaxP (default: pcalg's "
                       "orientation; 0 with --compat causal-learn)");
    pc_cmd->add_option("--uc-priority", pa.uc_priority,
                       "causal-learn uc_priority: -1 rule default, 0 overwrite, 1 bi-directed, 2 existing, "
                       "3 stronger, 4 stronger* (default 2)");
    pc_cmd->add_option("--backend", pa.backend, "auto (GPU when available), cpu or cuda")->capture_default_str();
    pc_cmd->add_option("--tune", pa.tunes,
                       "GPU kernel tuning, key=value (repeatable or comma-separated): variant=s|e, "
                       "beta, gamma, theta, delta, scan-levels, scan-round-levels, corr-limit "
                       "(GiB); see docs/performance.md")
        ->group("");  // hidden: the automatic choice is the product's
    pc_cmd->add_option("--checkpoint", pa.cfg.checkpoint,
                       "HDF5 checkpoint rewritten after every level (for --resume)");
    pc_cmd->add_flag("--resume", pa.cfg.resume,
                     "continue from --checkpoint (same data and test options required)");
    pc_cmd->add_flag("--keep-checkpoint", pa.keep_checkpoint,
                     "keep --checkpoint after a successful run (default: removed)");
    pc_cmd->add_option("--comm", pa.comm,
                       "communicator under MPI: auto (NCCL for GPU runs when built with it), mpi or nccl")
        ->capture_default_str();
    pc_cmd->add_option("--comm-timeout", pa.comm_timeout,
                       "seconds an NCCL collective may wait before the job is ended")
        ->capture_default_str();
    cli::add_cmi_knn_options(*pc_cmd, pa.cmi, true);
    // Testing only: simulate a kill after a level (its checkpoint written).
    pc_cmd->add_option("--stop-after-level", pa.cfg.stop_after_level)->group("");
    auto* quiet_flag = pc_cmd->add_flag("-q,--quiet", pa.quiet, "no progress or summary on stderr");
    pc_cmd->add_flag("-v,--verbose", pa.verbose, "progress lines on stderr even when it is not a terminal")
        ->excludes(quiet_flag);

    SimArgs sa, na;
    auto* sim_cmd = app.add_subcommand("simulate", "simulate data with a known causal graph");
    sim_cmd->require_subcommand(1);
    const auto add_dag_sim = [&sim_cmd](const char* name, const char* about, SimArgs& a,
                                        const char* weight) {
        auto* c = sim_cmd->add_subcommand(name, about);
        c->add_option("--vars", a.spec.n_vars, "number of variables")->required();
        c->add_option("--samples", a.spec.n_samples, "number of samples")->required();
        c->add_option("--density", a.spec.density, "edge probability d of each pair j < i")
            ->capture_default_str();
        c->add_option("--seed", a.spec.seed, "random seed")->capture_default_str();
        c->add_option("--out", a.out,
                      "data file: .h5/.hdf5 (dataset /data), .csv, .tsv/.txt; '-': CSV on stdout")
            ->required();
        c->add_option("--truth", a.truth,
                      std::string("true DAG as a TSV edge list (source target mark weight: ") +
                          weight + ")");
        c->add_option("--threads", a.threads, "CPU threads (0: all)");
        return c;
    };
    auto* gauss = add_dag_sim("gaussian", "linear Gaussian DAG, cuPC's generator", sa, "the coefficient");
    auto* nonlin = add_dag_sim("nonlinear",
                               "nonlinear additive-noise DAG (MANM-CS): each edge linear, quadratic, "
                               "tanh or sine of the standardised parent; the DAG of simulate gaussian",
                               na, "beta, the edge function's factor; a fifth column names the function");

    DiscreteSimArgs da;
    auto* disc = sim_cmd->add_subcommand("discrete", "random discrete Bayesian network, Dirichlet CPTs");
    disc->add_option("--vars", da.spec.n_vars, "number of variables")->required();
    disc->add_option("--samples", da.spec.n_samples, "number of samples")->required();
    disc->add_option("--density", da.spec.density, "probability of each arc j -> i, j < i")
        ->capture_default_str();
    disc->add_option("--states", da.spec.max_states, "each variable gets 2..K states")
        ->capture_default_str();
    disc->add_option("--max-parents", da.spec.max_parents,
                     "keep at most K parents per variable, the nearest ones (0: no bound)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    disc->add_option("--seed", da.spec.seed, "random seed")->capture_default_str();
    disc->add_option("--out", da.out, "data file: .csv, .tsv/.txt (level labels), .h5 (codes)")
        ->required();
    disc->add_option("--truth", da.truth, "true DAG as a TSV edge list");
    disc->add_option("--threads", da.threads, "CPU threads (0: all)");
    DiscreteSimArgs ba;
    auto* bif = sim_cmd->add_subcommand("bif", "forward samples of a BIF network (e.g. bnlearn's)");
    bif->add_option("--bif", ba.bif, "network file in BIF format")->required();
    bif->add_option("--samples", ba.spec.n_samples, "number of samples")->required();
    bif->add_option("--seed", ba.spec.seed, "random seed")->capture_default_str();
    bif->add_option("--out", ba.out, "data file: .csv, .tsv/.txt (state names), .h5 (codes)")
        ->required();
    bif->add_option("--truth", ba.truth, "the network's DAG as a TSV edge list");
    bif->add_option("--threads", ba.threads, "CPU threads (0: all)");

    std::string truth, estimate, json;
    auto* cmp = app.add_subcommand("compare", "skeleton precision/recall/F1 and CPDAG SHD of an estimate");
    cmp->add_option("--truth", truth,
                    "true graph: edge TSV, Tetrad/causal-learn graph text or matrix, pcalg "
                    ".amat.csv, node-link .json, .dot or cudag's .h5 result")
        ->required();
    cmp->add_option("--estimate", estimate, "estimated graph, same formats (any cudag pc output)")
        ->required();
    cmp->add_option("--json", json,
                    "also write the numbers as JSON to this file; '-': only the JSON on stdout "
                    "(the table goes to stderr)");

    cli::CitestArgs ca;
    auto* citest = cli::add_citest_command(app, ca);

    auto* info = app.add_subcommand("info", "version, build options, devices, threads");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (world_rank != 0) return e.get_exit_code() == 0 ? 0 : 2;
        if (e.get_exit_code() == 0) return app.exit(e);
        std::string msg = e.what();
        for (char& ch : msg)
            if (ch == '\n') ch = ' ';
        std::fprintf(stderr, "cudag: error: %s (see --help)\n", msg.c_str());
        return 2;
    }

    std::unique_ptr<mpi::Communicator> comm;
    try {
        comm = env->world();
        if (pc_cmd->parsed()) return run_pc_command(pa, join_args(argc, argv), *env, comm);
        if (world_rank != 0) return 0;  // the other subcommands run on rank 0 only
        if (gauss->parsed()) return run_simulate(sa, false);
        if (nonlin->parsed()) return run_simulate(na, true);
        if (citest->parsed()) return cli::run_citest(ca);
        if (disc->parsed()) return run_simulate_discrete(da, false);
        if (bif->parsed()) return run_simulate_discrete(ba, true);
        if (cmp->parsed()) {
            io::check_distinct({{"--truth", truth}, {"--estimate", estimate}}, {{"--json", json}});
            return run_compare(truth, estimate, json);
        }
        if (info->parsed()) return run_info();
    } catch (const mpi::PeerFailed&) {
        return 1;  // the failing rank reports
    } catch (const mpi::AgreedFailure& e) {
        print_error(e.what(), world_rank, world_size);
        return 1;
    } catch (const pc::StoppedAfterLevel& e) {
        if (world_rank == 0 && !pa.quiet)
            std::fprintf(stderr, "cudag: %s; continue with --resume\n", e.what());
        return 3;
    } catch (const std::exception& e) {
        // Not agreed with the other ranks (they may be waiting in a collective): end the job.
        print_error(e.what(), world_rank, world_size);
        if (comm && comm->size() > 1) comm->abort(1);
        if (world_size > 1) env->abort(1);  // e.g. failed while building the communicator
        return 1;
    }
    return 0;
}
