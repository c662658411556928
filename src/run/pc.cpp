// SPDX-License-Identifier: Apache-2.0
#include "run/pc.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>

#include "ci/cmi_knn.hpp"
#include "core/backend.hpp"
#include "core/dsep.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "core/trace.hpp"
#include "cudag/config.hpp"
#include "fci/tester.hpp"
#include "fci/triples.hpp"
#include "io/dataset_io.hpp"
#include "io/graph_reader.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_plan.hpp"
#include "io/output_set.hpp"
#include "io/pag_writers.hpp"
#include "io/writers.hpp"
#include "mpi/mpi_communicator.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"
#include "pc/bootstrap.hpp"
#include "pc/result_file.hpp"
#include "run/context.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/progress.hpp"

namespace cudag::run {

namespace {

/// CMIknn, whose every test draws its permutations (a level of a thousand tests can take an
/// hour where Fisher-z takes a second): before level 0, how many tests it may run and,
/// from the first few timed on one thread, about how long on `workers` threads.
void announce_cmi_level0(const Dataset& data, const ci::CmiKnnSpec& spec, int workers, skeleton::Progress& progress) {
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
        const std::uint64_t id = skeleton::cmi_pc_test_id(x, y, {});
        cmi.test(x, y, {}, id, std::span<ci::CmiKnnWorkspace>(ws), std::nullopt);
    }
    const double each = elapsed() / static_cast<double>(timed);
    char line[160];
    std::snprintf(line, sizeof line, "; the first %lld took %.3g s each on one thread", static_cast<long long>(timed),
                  each);
    progress.note("level 0: up to " + skeleton::Progress::count(tests) + " CMIknn tests (" +
                  std::to_string(spec.permutations) + " permutations each)" + line + ": up to about " +
                  skeleton::Progress::duration(tests * each / std::max(1, workers)) + " on " + std::to_string(workers) +
                  " threads; Ctrl-C stops the run at once");
}

/// The seconds since t, as run::seconds_text.
std::string seconds_text(std::chrono::steady_clock::time_point t) {
    return run::seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
}

/// The run's provenance entries, added to r.config (rank 0).
void add_provenance(const PcJob& a, const std::string& command_line, pc::PcResult& r) {
    const std::string& input = a.oracle.empty() ? a.data : a.oracle;  // --oracle: the DAG
    r.config.emplace_back("input", input);
    r.config.emplace_back("input_dataset", a.dataset);
    struct stat st {};
    if (::stat(input.c_str(), &st) == 0) {
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

/// Provenance, then the result file and --format files (rank 0, with --out).
/// The text formats of the result's graph: its PAG's (cudag fci) or its CPDAG's.
void write_graph_formats(const pc::PcResult& r, const std::string& out, const std::vector<std::string>& formats,
                         io::OutputSet& outputs) {
    if (r.pag)
        io::write_pag_formats({r.names, *r.pag}, out, formats, outputs, std::cerr);
    else
        io::write_formats(r, out, formats, outputs, std::cerr);
}

void write_pc_outputs(const PcJob& a, const std::vector<std::string>& formats, const std::string& command_line,
                      pc::PcResult& r, io::OutputSet& outputs, const std::string& tmp_h5) {
    StepTrace trace;  // CUDAG_TRACE: the steps' host times
    trace.start();
    add_provenance(a, command_line, r);
    trace.mark("provenance");
    try {
        pc::write_result_hdf5(r, tmp_h5);
    } catch (const InputError& e) {
        // Name the file the user asked for, not its hidden temporary.
        throw InputError(name_out(e.what(), tmp_h5, a.out));
    }
    trace.mark("result file closed");
    write_graph_formats(r, a.out, formats, outputs);
    trace.mark("formats");
    outputs.commit();
    trace.mark("renamed");
    trace.print("outputs");
}

// Discrete, continuous or mixed? --discrete or a discrete --test reads labels, --test
// fisher-z or cmiknn numbers. Otherwise each column must be numbers throughout or labels
// throughout (io::TableMode::Auto): label columns are discrete, numeric ones continuous, so a
// file with both is mixed data (cg-lrt by default); a column mixing both is an error at its
// stray cell (a typo in continuous data); integer codes with few levels run as continuous
// with a note. --discrete-columns and --continuous-columns then set the named columns'
// types; --missing keeps missing cells (testwise) or removes their rows (listwise). Decimal
// commas are refused by the reader in every mode, numbers with a fraction by the discrete
// tests (skeleton::validate_test). README "Discrete data" and "Mixed data and missing
// values" document the rules.
Dataset read_pc_data(const PcJob& a, std::optional<skeleton::TestKind> test, skeleton::Progress& progress,
                     const mpi::Communicator& comm, const DataReader& reader,
                     const std::function<void(const std::string&)>& warn) {
    if (a.discrete && test && ci::traits(*test).data != ci::TestData::Discrete)
        throw InputError("--discrete contradicts --test " + skeleton::to_string(*test) + ": " +
                         skeleton::to_string(*test) + " needs continuous data");
    const DataOptions options = data_options(a.missing, a.discrete_columns, a.continuous_columns);
    const auto note = [&](const std::string& text) {
        if (comm.rank() != 0 || (!warn && a.quiet)) return;
        if (warn)
            warn(text);
        else
            std::cerr << command_name(a.learner) << ": note: " << text << '\n';
    };
    io::TableMode mode = io::TableMode::Auto;
    if (a.discrete || (test && skeleton::is_discrete(*test)))
        mode = io::TableMode::Labels;
    else if (test && ci::traits(*test).data == ci::TestData::Continuous)
        mode = io::TableMode::Numeric;
    Dataset d;
    try {
        d = read_data(reader, a.data, a.dataset, read_options(mode, options));
    } catch (const io::MixedColumn& e) {
        throw InputError(std::string(e.what()) + "; --discrete reads every cell as a label");
    }
    prepare_data(d, options, note);
    if (mode != io::TableMode::Auto || test) return d;
    if (d.discrete()) {
        std::string label_column;
        for (std::int64_t v = 0; v < d.n_vars && label_column.empty(); ++v)
            if (std::none_of(d.levels[v].begin(), d.levels[v].end(), io::is_numeric_cell)) label_column = d.names[v];
        if (!label_column.empty())
            progress.note("column '" + label_column + "' holds labels: reading " + d.source +
                          " as discrete data (--test chi-square)");
    } else if (d.mixed()) {
        std::int64_t discrete = 0;
        for (std::int64_t v = 0; v < d.n_vars; ++v) discrete += d.is_discrete(v) ? 1 : 0;
        progress.note(d.source + " holds mixed data: " + std::to_string(discrete) + " discrete and " +
                      std::to_string(d.n_vars - discrete) + " continuous columns (--test cg-lrt)");
    } else if (const std::int64_t levels = io::integer_coded_levels(d); levels > 0) {
        note("every column of " + d.source + " holds integer codes (at most " + std::to_string(levels) +
             " distinct values): the data look discrete; running fisher-z anyway: give --discrete for chi-square, or "
             "--test fisher-z to silence this note");
    }
    if (a.verbose && comm.rank() == 0 && !d.levels.empty()) {
        std::string types;
        for (std::int64_t v = 0; v < d.n_vars; ++v)
            types +=
                (v ? ", " : "") + d.names[v] +
                (d.is_discrete(v) ? " discrete (" + std::to_string(d.levels[v].size()) + " levels)" : " continuous");
        progress.note("column types: " + types);
    }
    return d;
}

/// The --format list without "freq" (the bootstrap's frequency table, written by the run,
/// not by io::write_formats).
std::vector<std::string> without_freq(std::vector<std::string> formats) { return without_item(formats, "freq"); }

/// The bootstrap's options from the job (parsed and checked but for the data's size).
bootstrap::Options bootstrap_options(const PcJob& a) {
    bootstrap::Options b;
    b.replicates = a.bootstrap;
    b.resample = a.resample;
    b.consensus = a.consensus;
    b.seed = a.cmi.spec.seed;
    return b;
}

/// --bootstrap, --write-resample and what goes with them, checked before any work; --seed
/// then keys the resamples whatever the test.
void check_resampling(PcJob& a, const std::vector<std::string>& formats) {
    const bool boot = a.bootstrap != 0;
    if (boot || !a.write_resample.empty()) {
        a.cmi.given.erase(std::remove(a.cmi.given.begin(), a.cmi.given.end(), "--seed"), a.cmi.given.end());
        bootstrap::Options b = bootstrap_options(a);
        if (!boot) b.replicates = 1;
        bootstrap::validate(b, std::numeric_limits<std::int64_t>::max());
    }
    if (std::find(formats.begin(), formats.end(), "freq") != formats.end() && !boot)
        throw InputError("--format freq (the edge frequencies) needs --bootstrap B");
    if (a.write_resample.empty()) {
        if (a.replicate != 0) throw InputError("--replicate needs --write-resample FILE");
        if (a.overwrite)
            throw InputError("--overwrite applies to --write-resample FILE (--out is replaced as README says)");
        return;
    }
    if (a.write_resample == "-") throw InputError("--write-resample needs a file name, not '-'");
    io::check_new_files({{"--write-resample", a.write_resample}}, a.overwrite);
    if (!a.out.empty() || !formats.empty())
        throw InputError("--write-resample writes the resample and runs nothing: drop --out and --format");
    if (a.replicate < 0) throw InputError("--replicate must be >= 0, got " + std::to_string(a.replicate));
    if (boot && a.replicate >= a.bootstrap)
        throw InputError("--replicate " + std::to_string(a.replicate) + " is not below --bootstrap " +
                         std::to_string(a.bootstrap));
}

/// --oracle and --latent against the options that need data, each refused in one line.
void check_oracle(const PcJob& a) {
    if (a.oracle.empty()) {
        if (!a.latent.empty()) throw InputError("--latent names hidden nodes of --oracle DAG: give --oracle");
        return;
    }
    const auto refuse = [](const std::string& option) {
        throw InputError("--oracle answers the tests from the DAG, without data: drop " + option);
    };
    if (!a.data.empty()) refuse("--data");
    if (!a.dataset.empty()) refuse("--dataset");
    if (!a.na_values.empty()) refuse("--na-values");
    if (a.discrete) refuse("--discrete");
    if (a.dof) refuse("--dof");
    if (a.bootstrap != 0) refuse("--bootstrap (resampling needs data)");
    if (!a.write_resample.empty()) refuse("--write-resample (resampling needs data)");
    if (a.test) {
        std::string option = "--test ";
        option += skeleton::to_string(*a.test);
        refuse(option + " (the oracle's test is d-separation)");
    }
    if (a.oracle == "-") throw InputError("--oracle needs a file name, not '-'");
    if (a.backend == BackendKind::Cuda) throw InputError("--oracle runs on the CPU only (use --backend cpu or auto)");
}

/// The checked options of `cudag pc` (`a` normalised: --out "-"), every output checked
/// against every input before any work; the config and the formats.
pc::PcConfig plan_pc(PcJob& a, const mpi::Environment& env, std::vector<std::string>& formats) {
    if (a.out == "-") a.out.clear();  // the edge list on standard output, as without --out
    check_oracle(a);
    formats = unique_items(split_commas(a.formats));
    check_resampling(a, formats);
    io::validate_formats(without_freq(formats));
    if (a.learner == Learner::Fci)
        for (std::string& f : formats) f = io::pag_format(f);
    if (!formats.empty() && a.out.empty())
        throw InputError("--format needs --out FILE.h5 (the files are written beside it)");
    io::check_force(a.force, formats);
    if (a.cfg.checkpoint == "-") throw InputError("--checkpoint needs a file name, not '-'");
    // Every output against every input and against each other, before any work.
    std::vector<io::NamedPath> out_paths{
        {"--out", a.out}, {"--checkpoint", a.cfg.checkpoint}, {"--write-resample", a.write_resample}};
    for (const std::string& f : formats)
        if (!a.out.empty()) out_paths.push_back({"--format " + f, io::format_path(a.out, f)});
    io::check_distinct(with_knowledge_inputs({{"--data", a.data}, {"--oracle", a.oracle}}, a.knowledge.files),
                       with_checkpoint_side_files(out_paths, a.cfg.checkpoint, false));
    pc::PcConfig cfg = a.cfg;
    cfg.keep_checkpoint = a.keep_checkpoint;
    BackendContext& backend = cfg.backend;  // the run's backend context, built here once
    backend.threads = checked_threads(backend.threads, a.quiet || env.rank() != 0);
    cfg.compat = a.compat;
    backend.kind = a.oracle.empty() ? a.backend : BackendKind::Cpu;  // the oracle: CPU only
    cfg.test.cmi = cmi_knn_spec(a.cmi, a.test);
    cfg.test.cmi_early_stop = !a.cmi.no_early_stop;
    if (a.test) cfg.test.kind = a.test;
    if (a.dof) cfg.test.dof = a.dof;
    if (!a.oracle.empty()) cfg.test.kind = skeleton::TestKind::DSep;
    const bool cmiknn = cfg.test.kind == skeleton::TestKind::CmiKnn;
    if (cmiknn) picks_gpu(backend.kind);  // --backend cuda without a GPU: say so before reading
    apply_tunes(a.tunes, backend.tunables);
    if (a.uc_rule) cfg.uc_rule = *a.uc_rule;
    if (a.uc_priority) cfg.uc_priority = *a.uc_priority;
    return cfg;
}

/// The data, read once: handed over in memory, read collectively (HDF5 through MPI-IO), or
/// read by rank 0 and broadcast.
Dataset read_pc_input(const PcJob& a, const pc::PcConfig& cfg, skeleton::Progress& progress, mpi::Communicator& comm,
                      const io::Hdf5IoPlan& io_plan, const PcHooks& hooks) {
    const auto t_read = std::chrono::steady_clock::now();
    Dataset data;
    const bool hdf5_in = !hooks.read && a.data != "-" && io::h5::has_hdf5_signature(a.data);
    if (hooks.read) {
        // Data handed over in memory (an in-process caller): every rank takes them.
        mpi::run_agreed(comm, [&] { data = read_pc_data(a, cfg.test.kind, progress, comm, hooks.read, hooks.warn); });
    } else if (io_plan.collective && hdf5_in) {
        if (!a.na_values.empty())
            throw InputError("--na-values applies to text tables; '" + a.data + "' is HDF5 (its values are numbers)");
        // Every rank reads its columns through MPI-IO; one allgather shares them.
        mpi::run_agreed(comm, [&] {
            data = read_pc_data(
                a, cfg.test.kind, progress, comm,
                [&](const io::ReadOptions& o) { return io::read_dataset_collective(a.data, a.dataset, o, comm); },
                hooks.warn);
        });
    } else {
        // Rank 0 reads (text, or HDF5 without MPI-IO); one broadcast shares the data.
        data = io::share_dataset(comm, [&] {
            return read_pc_data(a, cfg.test.kind, progress, comm, with_na_values({}, a.data, a.dataset, a.na_values),
                                hooks.warn);
        });
    }
    progress.note("input read (" + std::string(io_plan.collective && hdf5_in ? "collective" : "rank 0 and broadcast") +
                  "):" + seconds_text(t_read));
    return data;
}

/// Whether this rank's engine runs on a GPU: a GPU placed for it, and under MPI one GPU
/// per rank (the memory plan and the checks count C on the device then). One process is
/// placed on a GPU wherever CUDA is compiled in (before any device is asked for); --backend
/// auto then picks the CPU engine where none is visible, and so does the plan.
bool gpu_engine(const RankPlace& place, const mpi::Environment& env) {
    return place.gpu && (env.mpi() ? place.gpus > 0 : visible_gpus() > 0);
}

/// This rank's host memory plan for the run (the engine it runs, auto resolved): the
/// engine's standardised data and, on the CPU, its n x n correlation matrix, the graphs and
/// the pMax table; for --bootstrap, those of one replicate, with its resample.
MemoryPlan pc_memory_plan(const PcJob& a, const pc::PcConfig& cfg, const Dataset& data, bool on_gpu) {
    pc::PcConfig probe = cfg;
    probe.backend.kind = on_gpu ? probe.backend.kind : BackendKind::Cpu;
    const pc::HostMemoryPlan p = pc::host_memory_plan(data, probe, on_gpu);
    const std::string n = std::to_string(data.n_vars);
    MemoryPlan plan;
    // A bootstrap runs one replicate at a time at least (more where they fit): its resample
    // besides the data, then the engine's parts for it.
    if (a.bootstrap > 0)
        plan.add("a replicate's resample of the data",
                 8.0 * static_cast<double>(data.n_vars) * static_cast<double>(data.n_samples),
                 "run on fewer variables or samples");
    plan.add(p.correlation > 0.0 ? "the standardised data and the packed rows computing C"
                                 : "the engine's standardised data",
             p.data, "run on fewer variables or samples");
    plan.add("the CPU engine's " + n + " x " + n + " correlation matrix", p.correlation,
             "run it on a GPU (--backend cuda) or on fewer variables");
    plan.add("the graphs", p.graphs);
    plan.add("the pMax table", p.pmax);
    return plan;
}

/// Refusals that depend on the data: drawing too many nodes, a run that cannot fit in the
/// host's memory (agreed over the ranks).
void check_pc_fits(const PcJob& a, const pc::PcConfig& cfg, const Dataset& data,
                   const std::vector<std::string>& formats, const RankPlace& place, const mpi::Environment& env,
                   mpi::Communicator& comm) {
    mpi::run_agreed(comm, [&] {
        io::check_formats_scale(formats, data.n_vars);
        if (io::draws(formats) && data.n_vars > kMaxDrawnNodes && !a.force)
            throw InputError("--format png/svg: drawing " + std::to_string(data.n_vars) +
                             " variables takes Graphviz minutes (about 2 min at 3,000); add --force "
                             "to draw anyway, or write --format dot and draw a part of it");
        const MemoryPlan plan = pc_memory_plan(a, cfg, data, gpu_engine(place, env));
        // One probe of /proc and the cgroups (~0.06 ms) for the check and the note.
        const auto available = static_cast<double>(available_host_bytes());
        plan.require("cudag pc" + std::string(a.bootstrap > 0 ? " --bootstrap" : "") + " on " +
                         std::to_string(data.n_vars) + " variables",
                     available);
        set_memory_plan(plan, available);
    });
}

/// The result HDF5 (collectively, or by rank 0) and the formats beside it.
void write_pc_result(const PcJob& a, const std::vector<std::string>& formats, const std::string& command_line,
                     pc::PcResult& r, io::OutputSet& outputs, const std::string& tmp_h5, const io::Hdf5IoPlan& io_plan,
                     skeleton::Progress& progress, mpi::Communicator& comm) {
    const bool root = comm.rank() == 0;
    const auto t_write = std::chrono::steady_clock::now();
    if (io_plan.collective && a.learner == Learner::Pc && !a.out.empty()) {
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
            write_graph_formats(r, a.out, formats, outputs);
            outputs.commit();
        });
    } else {
        // Rank 0 writes everything; the others wait to hear whether it succeeded.
        mpi::run_agreed(comm, [&] {
            if (root && !a.out.empty()) write_pc_outputs(a, formats, command_line, r, outputs, tmp_h5);
        });
    }
    if (!a.out.empty())
        progress.note(std::string("results written (") + (io_plan.collective ? "collective" : "rank 0") +
                      "):" + seconds_text(t_write));
}

/// The summary line on stderr.
std::string pc_summary(const PcJob& a, const pc::PcConfig& cfg, const Dataset& data, const pc::PcResult& r,
                       const io::OutputSet& outputs) {
    std::ostringstream os;
    os << command_name(a.learner) << ": " << data.n_vars
       << (data.discrete() ? " discrete"
           : data.mixed()  ? " mixed"
                           : "")
       << " variables, ";
    if (a.oracle.empty())
        os << data.n_samples << " samples, ";
    else
        os << "no data (--oracle " << a.oracle << "), ";
    os << pc::resolve_test(cfg, data).name() << ": ";
    if (r.pag) {
        std::int64_t arrows = 0;  // edges with at least one arrowhead
        for (std::int32_t x = 0; x < r.pag->n(); ++x)
            for (const std::int32_t y : r.pag->neighbours(x))
                arrows += x < y && ((*r.pag)(x, y) == marks::kArrow || (*r.pag)(y, x) == marks::kArrow);
        os << r.pag->n_edges() << " edges in the PAG (" << arrows << " with an arrowhead), ";
    } else {
        std::int64_t directed = 0;
        const auto edges = io::cpdag_edges(r.cpdag);
        for (const auto& e : edges) directed += e.kind == io::EdgeKind::Directed;
        os << edges.size() << " edges (" << directed << " directed), ";
    }
    os << r.levels.size() << " levels, " << r.seconds_total << " s";
    if (!a.out.empty()) {
        os << "; wrote";
        for (const auto& f : outputs.final_paths()) os << ' ' << f;
    }
    return os.str();
}

/// --oracle: the DAG read (every rank; or the caller's, hooks.oracle_dag), the oracle set in
/// cfg.test, and its observed nodes as the data (names, no samples).
Dataset read_oracle_input(const PcJob& a, pc::PcConfig& cfg, skeleton::Progress& progress, mpi::Communicator& comm,
                          const PcHooks& hooks) {
    Dataset data;
    mpi::run_agreed(comm, [&] {
        std::vector<std::string> names;
        Dag dag;
        if (hooks.oracle_dag) {
            names = hooks.oracle_dag->names;
            dag = hooks.oracle_dag->dag;
        } else {
            dag = io::read_dag(a.oracle, names);
        }
        auto oracle =
            std::make_shared<const DsepOracle>(std::move(dag), std::move(names), split_commas(a.latent), a.oracle);
        data.names = oracle->var_names();
        data.n_vars = oracle->n_vars();
        data.source = a.oracle;
        cfg.test.oracle = std::move(oracle);
    });
    const std::vector<std::string> latent = cfg.test.oracle->latent_names();
    progress.note("read the DAG " + a.oracle + ": " + std::to_string(cfg.test.oracle->dag().n()) + " nodes, " +
                  std::to_string(latent.size()) + " latent; the d-separation oracle answers on the other " +
                  std::to_string(data.n_vars));
    return data;
}

/// The data read and made ready (knowledge read against their names, extreme columns
/// rescaled, the run's fit checked), with the notes on the way; `warm_up` joined.
Dataset prepare_pc_data(const PcJob& a, pc::PcConfig& cfg, const std::vector<std::string>& formats,
                        const RankPlace& place, const mpi::Environment& env, skeleton::Progress& progress,
                        mpi::Communicator& comm, const io::Hdf5IoPlan& io_plan, const PcHooks& hooks,
                        GpuWarmUp& warm_up) {
    StepTrace trace;  // CUDAG_TRACE
    trace.start();
    const bool oracle = !a.oracle.empty();
    Dataset data = oracle ? read_oracle_input(a, cfg, progress, comm, hooks)
                          : read_pc_input(a, cfg, progress, comm, io_plan, hooks);
    trace.mark("read");
    mpi::run_agreed(comm, [&] {
        if (a.knowledge.any()) cfg.knowledge = a.knowledge.read(data.names);
    });
    trace.mark("knowledge");
    warm_up.join();
    trace.mark("warm-up joined");
    if (warm_up.kernels_loaded() > 0) {
        std::string note = "GPU warm-up: the context (";
        note += run::seconds_text(warm_up.context_seconds()).substr(1);
        note += ") and ";
        note += std::to_string(warm_up.kernels_loaded());
        note += " kernels (";
        note += run::seconds_text(warm_up.seconds() - warm_up.context_seconds()).substr(1);
        note += ") loaded while the data were read, done";
        note += run::seconds_text(warm_up.seconds());
        note += " after the start (CUDAG_WARM_UP_KERNELS=0: loaded at their first launch)";
        progress.note(note);
    }
    if (!oracle)
        progress.note(
            "read " + data.source + ": " + std::to_string(data.n_samples) + " samples x " +
            std::to_string(data.n_vars) +
            (data.discrete() ? " discrete"
             : data.mixed()  ? " mixed"
                             : "") +
            " variables" +
            (comm.size() > 1 ? " on " + std::to_string(comm.size()) + " ranks (" + comm.name() + ")" : std::string()));
    // Values of huge or tiny magnitude (1e±150 and beyond) scaled exactly (powers of two)
    // for the scale-invariant tests; every rank alike.
    std::int64_t rescaled = 0;
    trace.mark("notes");
    mpi::run_agreed(comm, [&] { rescaled = pc::rescale_extreme_columns(data, cfg); });
    trace.mark("rescaled");
    if (rescaled > 0)
        progress.note(std::to_string(rescaled) + " column" + (rescaled == 1 ? "" : "s") +
                      " of magnitude beyond 1e+-150 scaled by powers of two (exact; the test is scale-invariant)");
    check_pc_fits(a, cfg, data, formats, place, env, comm);
    trace.mark("fits");
    trace.print("prepare_pc_data");
    if (a.verbose) {
        progress.note(
            "host memory plan per rank: " + pc::host_memory_plan(data, cfg, gpu_engine(place, env)).describe() +
            " (checked with a margin: about " +
            format_bytes(pc_memory_plan(a, cfg, data, gpu_engine(place, env)).needed()) + "); " +
            format_bytes(static_cast<double>(available_host_bytes())) + " available");
    }
    return data;
}

/// The run's callbacks: progress lines, the caller's level hook, the verbose peak per
/// level (in `levels_peak`), the checkpoint note and the resume line.
void set_pc_callbacks(const PcJob& a, pc::PcConfig& cfg, skeleton::Progress& progress, const PcHooks& hooks,
                      std::int64_t& levels_peak) {
    // Verbose: the peak so far is kept and a new one started after every level, so that the
    // end reports the whole run's peak and the peak after the levels (the records' collection,
    // orientation and output) apart.
    cfg.on_level = [&progress, &hooks, &levels_peak, verbose = a.verbose](const skeleton::LevelStats& s) {
        progress.level(s);
        if (hooks.level) hooks.level(s);
        if (verbose) levels_peak = std::max(levels_peak, restart_peak_resident());
    };
    cfg.on_note = [&progress](const std::string& line) { progress.note(line); };
    cfg.on_level_start = [&progress](const skeleton::LevelPlan& plan) { progress.level_start(plan); };
    const std::string checkpoint = cfg.checkpoint;
    cfg.on_checkpoint = [checkpoint](int level) {
        interrupt::set_note("the last checkpoint is level " + std::to_string(level) + " in '" + checkpoint +
                            "' (continue with --resume)");
    };
    cfg.on_resume = [checkpoint, quiet = a.quiet](int level) {
        if (!quiet) std::cerr << "cudag pc: resuming from checkpoint '" << checkpoint << "' at level " << level << '\n';
    };
}

/// `x` as %g writes it (6 significant digits), for messages.
std::string short_number(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

/// Above the dense forms, host memory grows with the pairs level 0 keeps (the plan's bytes
/// per kept pair): after level 0 the ranks agree on the least memory any of them has and
/// refuse in one line, naming the option that keeps fewer pairs, when it cannot hold them.
void guard_level0_memory(pc::PcConfig& cfg, const pc::HostMemoryPlan& plan, mpi::Communicator& comm) {
    if (plan.per_kept_pair <= 0.0) return;
    cfg.on_level = [inner = cfg.on_level, per = plan.per_kept_pair, alpha = cfg.alpha,
                    &comm](const skeleton::LevelStats& s) {
        if (inner) inner(s);
        if (s.level != 0) return;
        const double need = per * static_cast<double>(s.edges_after);
        const double avail = comm.allreduce(static_cast<double>(available_host_bytes()), mpi::ReduceOp::Min);
        // Every rank fails alike; agreed, so that rank 0 reports one line and none waits.
        mpi::run_agreed(comm, [&] {
            if (need <= avail) return;
            throw OutOfMemory("level 0 kept " + std::to_string(s.edges_after) + " pairs at --alpha " +
                              short_number(alpha) + ": the later levels need about " + format_bytes(need) +
                              " more host memory per rank, and a rank has " + format_bytes(avail) +
                              " available; a smaller --alpha keeps fewer pairs (or --max-level 0 stops at level 0)");
        });
    };
}

/// CMIknn: every level announced, and level 0's cost estimated first (rank 0, a valid
/// fresh run with progress on).
void announce_cmi(const pc::PcConfig& cfg, const Dataset& data, const RankPlace& place, int ranks, bool root,
                  skeleton::Progress& progress) {
    // Permutation tests (CMIknn) take long enough a level to say each, and their first
    // level's cost is estimated.
    if (!cfg.test.kind || ci::traits(*cfg.test.kind).cost != ci::TestCost::Permutation) return;
    progress.announce_every_level();
    bool valid = true;  // else run_pc refuses the run (on every rank), not timed first
    try {
        pc::validate(cfg, data);
    } catch (const InputError&) {
        valid = false;
    }
    if (root && progress.enabled() && !cfg.resume && valid)
        announce_cmi_level0(data, pc::resolve_test(cfg, data).cmi, place.me.threads * ranks, progress);
}

/// --write-resample: replicate --replicate's rows of the data, written (rank 0) as the
/// data set a direct run on them reads; no run.
PcRun write_resample(const PcJob& a, const pc::PcConfig& cfg, skeleton::Progress& progress, mpi::Communicator& comm,
                     const io::Hdf5IoPlan& io_plan, const PcHooks& hooks) {
    const Dataset data = read_pc_input(a, cfg, progress, comm, io_plan, hooks);
    bootstrap::Options b = bootstrap_options(a);
    b.replicates = std::max<std::int64_t>(b.replicates, 1);
    PcRun done;
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        bootstrap::validate(b, data.n_samples);
        std::vector<std::int32_t> kept;
        const Dataset d = pc::replicate_data(data, cfg, b, a.replicate, kept);
        std::string dropped;  // the columns constant in the resample, left out
        for (std::size_t v = 0, k = 0; v < data.names.size(); ++v) {
            if (k < kept.size() && kept[k] == static_cast<std::int32_t>(v))
                ++k;
            else
                dropped += (dropped.empty() ? "" : ", ") + data.names[v];
        }
        io::OutputSet outputs;
        io::write_dataset(d, a.write_resample, outputs);
        outputs.commit();
        done.summary =
            command_name(a.learner) + ": wrote replicate " + std::to_string(a.replicate) + " (--resample " +
            bootstrap::to_string(b.resample) + ", --seed " + std::to_string(b.seed) + ") of " + data.source + ": " +
            std::to_string(d.n_samples) + " samples x " + std::to_string(d.n_vars) + " variables to " +
            a.write_resample +
            (dropped.empty() ? "" : " (left out, constant in the resample as in the replicate's run: " + dropped + ")");
    });
    return done;
}

/// --bootstrap: the replicates over the ranks, the consensus graph and the frequencies
/// written (rank 0) as the result, with --format freq's table beside it.
PcRun run_bootstrap_job(const PcJob& a, const pc::PcConfig& cfg, const Dataset& data,
                        const std::vector<std::string>& formats, const std::string& command_line,
                        io::OutputSet& outputs, const std::string& tmp_h5, const io::Hdf5IoPlan& io_plan,
                        skeleton::Progress& progress, mpi::Communicator& comm, const PcHooks& hooks) {
    const bootstrap::Options b = bootstrap_options(a);
    const bool pag = static_cast<bool>(hooks.replicate);
    pc::PcConfig run = cfg;
    const std::string checkpoint = cfg.checkpoint;
    run.on_checkpoint = [checkpoint](int done) {
        interrupt::set_note("the last checkpoint holds " + std::to_string(done) + " replicates in '" + checkpoint +
                            "' (continue with --resume)");
    };
    run.on_resume = [checkpoint, learner = command_name(a.learner), quiet = a.quiet,
                     root = comm.rank() == 0](int done) {
        if (!quiet && root)
            std::cerr << learner << ": resuming from checkpoint '" << checkpoint << "' after " << done
                      << " replicates\n";
    };
    const auto t0 = std::chrono::steady_clock::now();
    progress.note("bootstrap: " + std::to_string(b.replicates) + " replicates (--resample " +
                  bootstrap::to_string(b.resample) + ")" +
                  replicates_placement(comm.size(), cfg.backend.replicate_devices));
    set_memory_phase(command_name(a.learner) + " --bootstrap, the replicates");
    const bootstrap::RoundCallback on_round = [&](std::int64_t done, std::int64_t total) {
        progress.replicates(done, total, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
    pc::PcResult r = pag ? pc::bootstrap_pag(data, run, b, comm, hooks.replicate, on_round)
                         : pc::bootstrap_pc(data, run, b, comm, on_round);
    const bool root = comm.rank() == 0;
    mpi::run_agreed(comm, [&] {
        if (!root || a.out.empty() || std::find(formats.begin(), formats.end(), "freq") == formats.end()) return;
        const std::string path = outputs.temp_for(io::format_path(a.out, "freq"));
        if (pag)
            bootstrap::write_pag_frequencies_tsv(*r.bootstrap, *r.pag, r.names, path);
        else
            bootstrap::write_frequencies_tsv(*r.bootstrap, r.cpdag, r.names, path);
    });
    io::Hdf5IoPlan gathered = io_plan;  // one table on rank 0: nothing to write collectively
    gathered.collective = false;
    write_pc_result(a, without_freq(formats), command_line, r, outputs, tmp_h5, gathered, progress, comm);
    PcRun done;
    if (!root) return done;
    if (!checkpoint.empty() && !a.keep_checkpoint) remove_served_checkpoint(checkpoint);
    std::int64_t directed = 0, n_edges = 0;
    if (pag) {
        n_edges = r.pag->n_edges();  // "directed": --> or <--, both marks decided
        for (std::int32_t i = 0; i < r.pag->n(); ++i)
            for (const std::int32_t j : r.pag->neighbours(i))
                directed += i < j && (bootstrap::pag_kind(*r.pag, i, j) == 4 || bootstrap::pag_kind(*r.pag, i, j) == 5);
    } else {
        const auto edges = io::cpdag_edges(r.cpdag);
        n_edges = static_cast<std::int64_t>(edges.size());
        for (const auto& e : edges) directed += e.kind == io::EdgeKind::Directed;
    }
    std::ostringstream os;
    os << command_name(a.learner) << ": " << data.n_vars
       << (data.discrete() ? " discrete"
           : data.mixed()  ? " mixed"
                           : "")
       << " variables, " << data.n_samples << " samples, " << pc::resolve_test(cfg, data).name() << ": " << b.replicates
       << " replicates (--resample " << bootstrap::to_string(b.resample) << "), " << r.bootstrap->size()
       << " pairs adjacent in some; consensus at " << b.consensus << ": " << n_edges << " edges (" << directed
       << " directed), " << r.seconds_total << " s";
    if (!a.out.empty()) {
        os << "; wrote";
        for (const auto& f : outputs.final_paths()) os << ' ' << f;
    }
    done.summary = os.str();
    done.result = std::move(r);
    return done;
}

}  // namespace

namespace {

/// The skeleton engine's own single tests as a ci::CiTest (the conservative and majority
/// rules' triple checks: the skeleton's arithmetic).
class EngineTest final : public ci::CiTest {
public:
    explicit EngineTest(skeleton::SkeletonEngine& engine) : engine_(engine) {}
    std::string name() const override { return engine_.name(); }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        std::vector<std::int32_t> set(s.begin(), s.end());
        std::sort(set.begin(), set.end());
        ci::CiOutcome out;
        out.p = engine_.p_value(std::min(x, y), std::max(x, y), set);
        return out;
    }
    std::vector<std::string> digest() const override { return {engine_.name()}; }

private:
    skeleton::SkeletonEngine& engine_;
};

}  // namespace

void set_triple_check(pc::PcConfig& cfg) {
    if (!(cfg.conservative || cfg.majority)) return;
    const ci::Decision decision{cfg.alpha, cfg.compat == skeleton::Compat::CausalLearn};
    const bool majority = cfg.majority;
    cfg.triple_check = [decision, majority](const Graph& skel, SepSets& sepsets, skeleton::SkeletonEngine& engine) {
        fci::Tester tester([&engine] { return std::make_unique<EngineTest>(engine); }, 1, decision);
        fci::ConsOptions co;
        co.unseparated_ambiguous = true;  // pcalg's pc(): version.unf = c(2, 1)
        co.majority = majority;
        auto ambiguous = std::make_shared<const fci::TripleSet>(fci::conservative_triples(skel, tester, co, sepsets));
        if (ambiguous->empty()) return pc::TripleFn();
        return pc::TripleFn([ambiguous](std::int32_t a, std::int32_t b, std::int32_t c) {
            return ambiguous->contains_either(a, b, c);
        });
    };
}

std::string command_name(Learner l) { return l == Learner::Fci ? "cudag fci" : "cudag pc"; }

PcRun run_pc(const PcJob& job, const std::string& command_line, const mpi::Environment& env,
             std::unique_ptr<mpi::Communicator>& comm, const PcHooks& hooks) {
    StepTrace trace;  // CUDAG_TRACE: the steps around the run, host time
    trace.start();
    PcJob a = job;
    std::vector<std::string> formats;
    pc::PcConfig cfg = plan_pc(a, env, formats);
    set_triple_check(cfg);
    trace.mark("planned");
    BackendContext& backend = cfg.backend;  // the run's backend context, built here once
    skeleton::TestPolicy policy;
    policy.exhaustive = cfg.compat == skeleton::Compat::CausalLearn;
    policy.student_t = cfg.test.student_t;
    const RankPlace place = place_rank(backend, skeleton::gpu_candidate(backend.kind, policy), env);
    // NCCL where level results stay on the GPUs (Fisher-z, discrete); the CMIknn engine
    // hands its results to the host, where MPI merges them without a staging copy.
    comm = choose_communicator(a.comm, a.comm_timeout, std::move(comm), env, place, backend.device,
                               cfg.test.kind != skeleton::TestKind::CmiKnn && a.bootstrap == 0);
    const bool root = comm->rank() == 0;
    report_startup(*comm, env, place.me, a.quiet);
    trace.mark("rank placed, communicator");

    // Check every output location (writable, not a FIFO or device) before reading the data.
    io::CheckpointLock lock;  // held for the run's life
    io::OutputSet outputs;
    const std::string tmp_h5 = claim_outputs(
        *comm, outputs, a.out, formats, {cfg.checkpoint, cfg.resume, a.overwrite_checkpoint, false, &lock, a.quiet});
    skeleton::Progress progress(progress_mode(a.quiet, a.verbose, root), command_name(a.learner));
    // A bootstrap's replicates run on every GPU of the rank's share of its node (one
    // process: every visible GPU): their contexts made while the data are read.
    const int local_rank = env.mpi() ? env.local_rank() : 0, local_size = env.mpi() ? env.local_size() : 1;
    // The kernels the engine will launch load there too (lazily, the first level would wait).
    GpuWarmUp warm_up(place.gpu ? backend.kind : BackendKind::Cpu, backend.device, local_rank,
                      a.bootstrap > 0 ? local_size : 0, skeleton_kernels(cfg.test.kind, cfg.max_level));
    trace.mark("outputs claimed, warm-up started");
    // HDF5 I/O: collective (MPI-IO) with parallel HDF5 on several ranks, else gathered on
    // rank 0; the input read once either way.
    io::Hdf5IoPlan io_plan;
    mpi::run_agreed(*comm, [&] {
        if (a.data == "-" && comm->size() > 1)
            throw InputError("--data - (standard input) needs a single process: give a file name");
        io_plan = io::plan_hdf5_io(comm->size());
    });
    if (const double age = hooks.in_process ? -1.0 : process_age_seconds(); age >= 0.0)
        progress.note("start-up before the data (process, MPI, GPU binding, communicator" +
                      std::string(comm->device_buffers() ? ", NCCL" : "") + "):" + seconds_text(age) + " on rank 0" +
                      (env.mpi() ? " (MPI's start" + seconds_text(env.init_seconds()) + ", GPU binding" +
                                       seconds_text(place.gpu_seconds) + ")"
                                 : std::string()));
    progress.note("HDF5 I/O: " + io_plan.describe());
    if (!a.write_resample.empty()) return write_resample(a, cfg, progress, *comm, io_plan, hooks);
    set_memory_phase("cudag pc, reading the data");
    Dataset data = prepare_pc_data(a, cfg, formats, place, env, progress, *comm, io_plan, hooks, warm_up);
    trace.mark("data read, warm-up joined");
    if (a.bootstrap > 0) {
        if (gpu_engine(place, env))
            cfg.backend.replicate_devices = replicate_gpus(place.gpus >= 0 ? place.gpus : visible_gpus(), local_rank,
                                                           local_size, cfg.backend.device);
        return run_bootstrap_job(a, cfg, data, formats, command_line, outputs, tmp_h5, io_plan, progress, *comm, hooks);
    }
    std::int64_t levels_peak = 0;
    set_pc_callbacks(a, cfg, progress, hooks, levels_peak);
    if (cfg.max_level != 0) guard_level0_memory(cfg, pc::host_memory_plan(data, cfg, gpu_engine(place, env)), *comm);
    // Collective: the ranks keep their rows' records and write them to the result (and
    // the checkpoints) themselves; not for a caller that takes the whole result on rank 0.
    cfg.distributed_records = io_plan.collective && !hooks.whole_result;
    announce_cmi(cfg, data, place, comm->size(), root, progress);
    set_memory_phase("cudag pc, the skeleton search and orientation");
    trace.mark("memory checked");
    pc::PcResult r = pc::run_pc(data, cfg, *comm);
    trace.mark("pc::run_pc");
    if (hooks.after_skeleton) hooks.after_skeleton(data, cfg, r, *comm);
    set_memory_phase(command_name(a.learner) + ", writing the result");
    write_pc_result(a, formats, command_line, r, outputs, tmp_h5, io_plan, progress, *comm);
    if (a.verbose)
        report_peak_memory(*comm, command_name(a.learner), levels_peak,
                           "peak memory per rank after the levels (records, output)");
    PcRun done;
    if (!root) return done;
    if (!cfg.checkpoint.empty() && !a.keep_checkpoint) remove_served_checkpoint(cfg.checkpoint);
    done.summary = pc_summary(a, cfg, data, r, outputs);
    done.result = std::move(r);
    trace.mark("result written, summary");
    trace.print("run_pc");
    return done;
}

}  // namespace cudag::run
