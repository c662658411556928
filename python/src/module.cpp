// SPDX-License-Identifier: Apache-2.0
// cudag._cudag: the library's jobs `pc`, `fci`, `citest` and `mcmc` (src/run/) run in-process on
// data held in memory. Typed keyword arguments fill the job structs (keywords.hpp), whose
// defaults and checks are the command line's own (it binds its options to the same
// members), so every default and error message is the command line's. The search runs
// with the GIL released; the results come back as numpy arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bn/mcmc_result.hpp"
#include "bn/mcmc_run.hpp"
#include "bn/score.hpp"
#include "cli/option_table.hpp"
#include "ci/parcorr.hpp"
#include "ci/student_t.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/trace.hpp"
#include "core/interrupt.hpp"
#include "core/pag.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/graph_reader.hpp"
#include "io/table_reader.hpp"
#include "io/writers.hpp"
#include "cit_memo.hpp"
#include "keywords.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "bootstrap/resample.hpp"
#include "bootstrap/table.hpp"
#include "pc/bootstrap.hpp"
#include "pc/graph_compare.hpp"
#include "pc/metrics.hpp"
#include "pcmci/pcmci.hpp"
#include "skeleton/progress.hpp"
#include "run/fci.hpp"
#include "run/pc.hpp"
#include "run/load.hpp"
#include "run/score_inputs.hpp"

namespace nb = nanobind;

namespace cudag::python {
namespace {

/// The process's MPI environment (a single process unless Python was started by an MPI
/// launcher), made on first use and kept until exit, as main() keeps it.
mpi::Environment& environment() {
    static std::unique_ptr<mpi::Environment> env = [] {
        H5dont_atexit();  // as cli::run: cudag closes every HDF5 handle itself
        int argc = 0;
        char* none[] = {nullptr};
        char** argv = none;
        return std::make_unique<mpi::Environment>(argc, argv);
    }();
    return *env;
}

/// The data a command reads: numbers (samples x variables, row-major float64) with their
/// names, or a text table (CSV) for columns of labels.
struct DataInput {
    const double* values = nullptr;  ///< row-major, n_samples x n_vars; null: text
    std::int64_t n_samples = 0, n_vars = 0;
    std::vector<std::string> names;
    std::string text;    ///< CSV text with a header row when values is null
    std::string source;  ///< the name messages give ("<array>", "<DataFrame>")
};

/// The data set for `mode`, as the command line's reader would give it for such a file:
/// numbers checked (finite, distinct names), discretised by value for a discrete test
/// (as HDF5 input is); text parsed by the table reader itself. `threads` as the command's
/// --threads (0: every hardware thread).
Dataset read_input(const DataInput& in, const io::ReadOptions& options, int threads) {
    if (!in.values) return io::parse_table(in.text, in.source, options);
    if (in.n_samples == 0) throw InputError(in.source + ": the data have no rows (samples)");
    if (in.n_vars == 0) throw InputError(in.source + ": the data have no columns (variables)");
    Dataset d;
    d.n_samples = in.n_samples;
    d.n_vars = in.n_vars;
    d.names = in.names;
    d.source = in.source;
    std::unordered_map<std::string, std::int64_t> seen;
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const auto [it, fresh] = seen.emplace(d.names[v], v);
        if (!fresh)
            throw InputError(in.source + ": duplicate column name '" + d.names[v] + "' (columns " +
                             std::to_string(it->second + 1) + " and " + std::to_string(v + 1) + ")");
    }
    d.values.resize(static_cast<std::size_t>(d.n_samples * d.n_vars));
    // Transposed on threads, a block of columns each (every row's stretch of the block is
    // one read; the block's output columns fill in step); a non-finite value is then
    // looked for again in file order, to name the first.
    constexpr std::int64_t kColumns = 32;
    // Threads by the table's size: a small one is copied before a team would wake.
    constexpr std::int64_t kValuesPerThread = std::int64_t{1} << 18;
    const int team = threads_for(d.n_samples * d.n_vars, kValuesPerThread, threads);
    std::atomic<bool> finite{true};
    parallel_for(0, (d.n_vars + kColumns - 1) / kColumns, team, 1, [&](std::int64_t b, int) {
        const std::int64_t v0 = b * kColumns, v1 = std::min(d.n_vars, v0 + kColumns);
        bool ok = true;
        for (std::int64_t r = 0; r < d.n_samples; ++r) {
            const double* row = in.values + r * d.n_vars;
            for (std::int64_t v = v0; v < v1; ++v) {
                const double x = row[v];
                ok &= std::isfinite(x);
                d.values[static_cast<std::size_t>(v * d.n_samples + r)] = x;
            }
        }
        if (!ok) finite.store(false, std::memory_order_relaxed);
    });
    for (std::int64_t k = 0; !finite.load() && k < d.n_samples * d.n_vars; ++k) {
        const double x = in.values[k];
        if (std::isfinite(x)) continue;
        if (options.keep_missing && std::isnan(x)) {  // a missing value, kept
            ++d.missing;
            continue;
        }
        const std::int64_t r = k / d.n_vars, v = k % d.n_vars;
        throw InputError(
            in.source + ": " +
            (std::isnan(x) ? "missing value (NaN)" : std::string("non-finite value ") + (x > 0 ? "inf" : "-inf")) +
            " at row " + std::to_string(r + 1) + ", column " + std::to_string(v + 1) + " '" + d.names[v] +
            "' (counted from 1)");
    }
    if (options.mode == io::TableMode::Labels) io::discretize(d, in.source);
    return d;
}

DataInput make_input(nb::object values, std::vector<std::string> names, std::string text, std::string source) {
    DataInput in;
    in.names = std::move(names);
    in.text = std::move(text);
    in.source = std::move(source);
    if (!values.is_none()) {
        const auto a = nb::cast<nb::ndarray<const double, nb::ndim<2>, nb::c_contig>>(values);
        in.values = a.data();
        in.n_samples = static_cast<std::int64_t>(a.shape(0));
        in.n_vars = static_cast<std::int64_t>(a.shape(1));
        if (static_cast<std::int64_t>(in.names.size()) != in.n_vars)
            throw InputError(in.source + ": " + std::to_string(in.names.size()) + " names for " +
                             std::to_string(in.n_vars) + " columns");
    }
    return in;
}

/// The job's data reader: `in` as read_input gives it, on the job's threads.
run::DataReader reader(const DataInput& in, int threads) {
    return [&in, threads](const io::ReadOptions& options) { return read_input(in, options, threads); };
}

/// A numpy array owning `v` (no copy), of type `dt` (bytes as bool, say).
template <class T>
nb::object to_numpy(std::vector<T>&& v, std::vector<std::size_t> shape, nb::dlpack::dtype dt = nb::dtype<T>()) {
    auto* heap = new std::vector<T>(std::move(v));
    nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::cast(nb::ndarray<nb::numpy>(heap->data(), shape.size(), shape.data(), owner, nullptr, dt));
}

/// The rows of `rows` (width values each) as an int32 numpy array E x width.
nb::object edge_array(std::vector<std::int32_t>&& rows, std::size_t width) {
    const std::size_t e = rows.size() / width;
    return to_numpy(std::move(rows), {e, width});
}

/// A CPDAG as its edge list, the HDF5 result's /cpdag/edges: rows (a, b, kind), kind 0
/// a --- b (a < b), 1 a --> b, 2 a <-> b (a < b), sorted by (a, b). Python builds the
/// dense encodings from it on demand (never at genome scale).
nb::object cpdag_array(const Pdag& g) {
    std::vector<std::int32_t> rows;
    for (const io::CpdagEdge& e : io::cpdag_edges(g))
        rows.insert(rows.end(), {e.a, e.b, static_cast<std::int32_t>(e.kind)});
    return edge_array(std::move(rows), 3);
}

/// A PAG as its edge list, the HDF5 result's /pag/edges: rows (a, b, mark at a, mark at b),
/// a < b, sorted, marks pcalg's amat.pag codes (1 circle, 2 arrowhead, 3 tail).
nb::object pag_array(const Pag& g) {
    std::vector<std::int32_t> rows;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (a < b) rows.insert(rows.end(), {a, b, g(b, a), g(a, b)});
    return edge_array(std::move(rows), 4);
}

nb::dict config_dict(const std::vector<std::pair<std::string, std::string>>& config) {
    nb::dict d;
    for (const auto& [k, v] : config) d[nb::str(k.c_str())] = v;
    return d;
}

// ---- a stop raised inside a log line's writer ------------------------------------------
// The progress lines of verbose=True go to a Python writer (set_line_sink: cudag's logging),
// called from wherever the library writes a line, on any thread. What the writer raises
// cannot be thrown through the library from there, and an Exception (a broken handler) must
// not end an hour's search; but Ctrl-C while the writer runs becomes a KeyboardInterrupt
// raised inside it (Python runs its signal handler there, on the main thread), and dropped
// with the rest it was lost: the search went on to its end. So a writer's BaseException
// that is not an Exception (KeyboardInterrupt, SystemExit) is kept here, and the thread
// that called in raises it: at its next look at Ctrl-C (run_released's poll check, every
// ~50 ms inside a level; a level's callback), else when the call's work ends.

std::mutex g_stop_mutex;
std::exception_ptr g_stop;             ///< the first kept stop (guarded by g_stop_mutex)
std::atomic<bool> g_stop_kept{false};  ///< g_stop is set (a lock-free look)

/// Keeps `e` unless a stop is kept already. A python_error is released (GIL taken) only
/// after the mutex is: never wait for the GIL while holding it.
void keep_stop(std::exception_ptr e) {
    {
        const std::lock_guard<std::mutex> lock(g_stop_mutex);
        if (g_stop) return;
        g_stop = std::move(e);
    }
    g_stop_kept.store(true, std::memory_order_release);
}

/// The kept stop, cleared (null: none).
std::exception_ptr take_stop() {
    if (!g_stop_kept.load(std::memory_order_acquire)) return nullptr;
    const std::lock_guard<std::mutex> lock(g_stop_mutex);
    g_stop_kept.store(false, std::memory_order_relaxed);
    return std::exchange(g_stop, nullptr);
}

/// Raises the kept stop, if any.
void raise_kept_stop() {
    if (std::exception_ptr e = take_stop()) std::rethrow_exception(e);
}

/// With the GIL held on the calling thread: the kept stop, then Ctrl-C (Python's handler;
/// KeyboardInterrupt by default). What either raises ends the call.
void raise_if_stopped() {
    raise_kept_stop();
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

/// A progress line to Python's `write` (set_line_sink), on any thread: an Exception it
/// raises is reported as unraisable and the run goes on; another BaseException is kept for
/// the calling thread (above).
void write_line(const nb::object& write, const std::string& line) {
    nb::gil_scoped_acquire gil;
    try {
        write(line);
    } catch (nb::python_error& e) {
        if (e.matches(PyExc_Exception))
            e.discard_as_unraisable("cudag's log line");
        else
            keep_stop(std::current_exception());
    }
}

/// `work()` with the GIL released, as one call whose log lines may carry a stop: one kept
/// while `work` ran is raised when it ends, in place of its result or its error. (The
/// writer is the process's, as the line sink is: with calls from several Python threads at
/// once, a stop ends whichever call looks first.)
template <class Work>
void released_work(Work&& work) {
    try {
        const nb::gil_scoped_release release;
        work();
    } catch (...) {
        raise_kept_stop();
        throw;
    }
    raise_kept_stop();
}

/// Between levels (updates): the Python callback given `make()`'s dict, with the GIL held,
/// then a kept stop and Ctrl-C as above. What either raises ends the command.
template <class Make>
void call_back(const nb::object& fn, Make&& make) {
    nb::gil_scoped_acquire gil;
    if (!fn.is_none()) fn(make());
    raise_if_stopped();
}

nb::dict fields(std::initializer_list<std::pair<const char*, nb::object>> items) {
    nb::dict d;
    for (const auto& [key, value] : items) d[key] = value;
    return d;
}

nb::dict level_dict(const skeleton::LevelStats& s) {
    return fields({{"level", nb::cast(s.level)},
                   {"tests", nb::cast(s.tests)},
                   {"removed", nb::cast(s.removed)},
                   {"edges_after", nb::cast(s.edges_after)},
                   {"seconds", nb::cast(s.seconds)}});
}

/// A bootstrap's frequency table (the HDF5 result's /bootstrap): its options and the
/// counts per pair (pairs K x 2, counts K x 5, or K x 10 for a PAG bootstrap's: none and
/// the edge kinds of edge_kinds(), listed in "kinds"); Python divides by B as the file does.
nb::dict bootstrap_dict(const bootstrap::Table& t) {
    const std::size_t k = t.size();
    std::vector<std::string> kinds{"none"};
    if (t.pag) kinds.insert(kinds.end(), edge_kinds().begin(), edge_kinds().end());
    return fields({{"replicates", nb::cast(t.replicates)},
                   {"resample", nb::cast(t.resample)},
                   {"seed", nb::cast(t.seed)},
                   {"consensus", nb::cast(t.consensus)},
                   {"pairs", edge_array(std::vector<std::int32_t>(t.pairs), 2)},
                   {"kinds", nb::cast(kinds)},
                   {"counts", to_numpy(std::vector<std::int32_t>(t.counts), {k, t.columns()})}});
}

/// A PC result for PcResult (python/cudag/_results.py): edge lists and records, nothing
/// n x n (the skeleton's pairs i < j, the CPDAG's /cpdag/edges rows, pMax pairs,
/// separating sets by packed pair key); an FCI result's also its PAG's /pag/edges rows
/// (pag_edges, for FciResult).
nb::dict pc_dict(const pc::PcResult& r) {
    nb::dict out;
    out["names"] = r.names;
    out["n_samples"] = r.n_samples;
    std::vector<std::int32_t> pairs;
    for (std::int32_t i = 0; i < r.skeleton.n(); ++i)
        for (const std::int32_t j : r.skeleton.neighbours(i))
            if (i < j) pairs.insert(pairs.end(), {i, j});
    out["skeleton_pairs"] = edge_array(std::move(pairs), 2);
    out["cpdag_edges"] = cpdag_array(r.cpdag);
    std::vector<std::int32_t> pi(r.pmax.size()), pj(r.pmax.size());
    std::vector<double> pv(r.pmax.size());
    for (std::size_t k = 0; k < r.pmax.size(); ++k) {
        pi[k] = r.pmax[k].i;
        pj[k] = r.pmax[k].j;
        pv[k] = r.pmax[k].p;
    }
    const std::size_t np = pv.size();
    out["pmax_i"] = to_numpy(std::move(pi), {np});
    out["pmax_j"] = to_numpy(std::move(pj), {np});
    out["pmax_p"] = to_numpy(std::move(pv), {np});
    const auto keys = r.sepsets.keys();
    const auto offsets = r.sepsets.offsets();
    const auto nodes = r.sepsets.nodes();
    out["sepset_keys"] = to_numpy(std::vector<std::uint64_t>(keys.begin(), keys.end()), {keys.size()});
    out["sepset_offsets"] = to_numpy(std::vector<std::int64_t>(offsets.begin(), offsets.end()), {offsets.size()});
    out["sepset_nodes"] = to_numpy(std::vector<std::int32_t>(nodes.begin(), nodes.end()), {nodes.size()});
    nb::list levels;
    for (const skeleton::LevelStats& s : r.levels) levels.append(level_dict(s));
    out["levels"] = levels;
    out["config"] = config_dict(r.config);
    nb::list labels;
    for (const auto& l : r.level_labels) labels.append(nb::cast(l));
    out["level_labels"] = labels;
    out["seconds"] = r.seconds_total;
    if (r.bootstrap) out["bootstrap"] = bootstrap_dict(*r.bootstrap);
    if (r.pag) out["pag_edges"] = pag_array(*r.pag);
    return out;
}

/// Work with the GIL released and Ctrl-C looked at inside its long loops (a PollScope on this
/// thread, as run_released has): PCMCI's and citest's batches of tests.
template <class Work>
void released_polled(Work&& work) {
    released_work([&] {
        const interrupt::PollScope poll([] {
            nb::gil_scoped_acquire gil;
            raise_if_stopped();
        });
        work();
    });
}

/// `run(env, comm)` with the GIL released, on the process's environment and a fresh world
/// communicator (the command may replace it). One command at a time: calls from several
/// Python threads queue (the ranks of an MPI job must meet in the same collectives).
/// Ctrl-C, and a stop kept from a log line's writer, are looked at inside long loops too (a
/// skeleton level's rows and sets, every ~50 ms on this thread: core/interrupt.hpp's poll),
/// not only between levels.
template <class Run>
void run_released(Run&& run) {
    static std::mutex one_at_a_time;
    mpi::Environment& env = environment();
    released_polled([&] {
        const std::lock_guard<std::mutex> lock(one_at_a_time);
        std::unique_ptr<mpi::Communicator> comm = env.world();
        run(env, comm);
    });
}

/// The oracle's DAG handed over in memory: `dag` None, or (node names, edges as int32 rows
/// (parent, child), a name for messages). The names must be distinct and the edges between
/// nodes; cycles are refused by the oracle itself.
std::shared_ptr<const run::OracleDag> oracle_dag(nb::handle dag, std::string& source) {
    if (dag.is_none()) return nullptr;
    const nb::tuple t = nb::cast<nb::tuple>(dag);
    auto out = std::make_shared<run::OracleDag>();
    out->names = nb::cast<std::vector<std::string>>(t[0]);
    const auto edges = nb::cast<nb::ndarray<const std::int32_t, nb::ndim<2>, nb::c_contig>>(t[1]);
    source = nb::cast<std::string>(t[2]);
    const auto n = static_cast<std::int64_t>(out->names.size());
    std::unordered_map<std::string, std::int64_t> seen;
    for (std::int64_t v = 0; v < n; ++v) {
        const auto [it, fresh] = seen.emplace(out->names[static_cast<std::size_t>(v)], v);
        if (!fresh)
            throw InputError(source + ": two nodes are named '" + it->first + "' (nodes " +
                             std::to_string(it->second + 1) + " and " + std::to_string(v + 1) + ")");
    }
    if (edges.shape(0) > 0 && edges.shape(1) != 2) throw InputError(source + ": edges must be rows (parent, child)");
    out->dag = Dag(n);
    for (std::size_t k = 0; k < edges.shape(0); ++k) {
        const std::int32_t a = edges(k, 0), b = edges(k, 1);
        if (a < 0 || a >= n || b < 0 || b >= n)
            throw InputError(source + ": edge row " + std::to_string(k) + " is not two nodes below " +
                             std::to_string(n));
        out->dag.add_edge(a, b);
    }
    return out;
}

/// The job's input: the data (`in`: its reader in hooks), or, with no data, the oracle's DAG
/// (`dag` in memory, or the file of oracle=).
void set_input(run::PcJob& job, run::PcHooks& hooks, const DataInput& in, nb::handle dag) {
    hooks.in_process = true;  // the process is Python's: its age is not the job's start-up
    std::string source;
    hooks.oracle_dag = oracle_dag(dag, source);
    if (hooks.oracle_dag) job.oracle = source;
    if (in.values || !in.text.empty()) {
        job.data = in.source;  // with an oracle, refused as --data is
        hooks.read = reader(in, job.cfg.backend.threads);
    } else if (job.oracle.empty()) {
        throw InputError("no data: give the data, or oracle=DAG for the d-separation oracle");
    }
}

nb::dict run_pc(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                nb::object on_level, nb::object dag, const nb::kwargs& kwargs) {
    StepTrace trace;  // CUDAG_TRACE: the binding's steps, host time
    trace.start();
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::PcJob job;
    apply_keywords(job, pc_keywords(), kwargs, in.names, "cudag.pc");
    trace.mark("input, keywords");
    run::PcHooks hooks;
    set_input(job, hooks, in, dag);
    hooks.level = [&on_level](const skeleton::LevelStats& s) { call_back(on_level, [&] { return level_dict(s); }); };
    hooks.whole_result = true;
    std::vector<std::string> warnings;
    hooks.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
    const std::string call = call_text("cudag.pc", kwargs);
    std::optional<pc::PcResult> result;
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        trace.mark("released, communicator");
        result = std::move(run::run_pc(job, call, env, comm, hooks).result);
        trace.mark("run::run_pc");
    });
    if (!result) return nb::dict();  // a rank other than 0 under MPI
    nb::dict out = pc_dict(*result);
    out["warnings"] = warnings;
    trace.mark("result dict");
    trace.print("cudag.pc binding");
    return out;
}

nb::dict run_fci(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                 nb::object on_level, nb::object dag, const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::FciJob job;
    apply_keywords(job, fci_keywords(), kwargs, in.names, "cudag.fci");
    run::PcHooks hooks;
    set_input(job.pc, hooks, in, dag);
    hooks.level = [&on_level](const skeleton::LevelStats& s) { call_back(on_level, [&] { return level_dict(s); }); };
    std::vector<std::string> warnings;
    hooks.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
    const std::string call = call_text("cudag.fci", kwargs);
    std::optional<pc::PcResult> result;
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        result = std::move(run::run_fci(job, call, env, comm, hooks).result);
    });
    if (!result) return nb::dict();  // a rank other than 0 under MPI
    nb::dict out = pc_dict(*result);
    out["warnings"] = warnings;
    return out;
}

nb::dict citest_dict(const run::CitestOutput& result) {
    nb::dict out;
    out["statistic"] = result.statistic;
    out["p_value"] = result.p;
    out["n_samples"] = result.n_samples;
    for (const auto& [k, v] : result.extra) out[nb::str(k.c_str())] = std::stod(v);
    return out;
}

/// cudag.pcmci: the job on the data in memory; the result's arrays flat in [i][j][lag] order
/// (the Python side shapes them N x N x (tau_max + 1)), the parents as (variable, -lag) pairs.
nb::dict run_pcmci(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                   const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::PcmciJob job;
    job.data = in.source;
    job.print_links = false;
    apply_keywords(job, pcmci_keywords(), kwargs, in.names, "cudag.pcmci");
    const std::string call = call_text("cudag.pcmci", kwargs);
    run::PcmciRun r;
    released_polled([&] { r = run::run_pcmci(job, call, reader(in, job.threads)); });
    nb::dict out;
    out["n_vars"] = r.result.n_vars;
    out["tau_max"] = r.result.tau_max;
    out["samples"] = r.result.samples;
    out["val_matrix"] = r.result.val_matrix;
    out["p_matrix"] = r.result.p_matrix;
    out["graph"] = r.result.graph;
    nb::list parents;
    for (const auto& p : r.result.parents) {
        nb::list one;
        for (const pcmci::Node& n : p) one.append(nb::make_tuple(n.var, -n.lag));
        parents.append(one);
    }
    out["parents"] = parents;
    out["names"] = r.names;
    // tigramite's pc_alpha selection (empty lists with one pc_alpha).
    out["pc_alpha_candidates"] = r.result.pc_alpha_candidates;
    out["optimal_pc_alpha"] = r.result.optimal_pc_alpha;
    out["pc_alpha_scores"] = r.result.pc_alpha_scores;
    out["condition_selection_tests"] = r.result.pc1_tests;
    out["mci_tests"] = r.result.mci_tests;
    out["where"] = r.where;
    out["seconds"] = r.seconds;
    return out;
}

nb::dict run_citest(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                    const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::CitestJob job;
    job.data = in.source;
    apply_keywords(job, citest_keywords(), kwargs, in.names, "cudag.citest");
    run::CitestOutput result;
    released_polled([&] { result = run::run_citest(job, reader(in, job.threads)); });
    return citest_dict(result);
}

/// cudag.tester's engine: the citest job's settings and the data read once (a
/// run::CitestSession), then one test per call.
class CiTester {
public:
    CiTester(nb::object values, std::vector<std::string> names, std::string text, std::string source,
             nb::kwargs kwargs) {
        const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
        run::CitestJob job;
        job.data = in.source;
        apply_keywords(job, citest_keywords(), kwargs, in.names, "cudag.tester");
        released_work([&] { session_ = std::make_unique<run::CitestSession>(job, reader(in, job.threads)); });
    }
    nb::dict test(const std::string& x, const std::string& y, const std::vector<std::string>& given) {
        run::CitestOutput result;
        released_work([&] { result = session_->test(x, y, given); });
        return citest_dict(result);
    }
    /// The p-value of columns x and y given the columns `given` (indices): test()'s, without
    /// the names or the result dict (compat.causallearn.CIT's path; the GIL stays held for
    /// these microseconds).
    double p_value(std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& given) {
        const double p = session_->test_columns(x, y, given).p;
        raise_kept_stop();
        return p;
    }
    /// Every query at once (run::CitestSession::test_batch: a GPU where the backend picks
    /// one): statistic and p_value lists in query order, n_samples, where they ran.
    nb::dict test_batch(const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>& queries) {
        std::vector<run::CitestQuery> q;
        q.reserve(queries.size());
        for (const auto& [x, y, given] : queries) q.push_back({x, y, given});
        run::CitestBatchOutput result;
        released_polled([&] { result = session_->test_batch(q); });
        nb::dict out;
        out["statistic"] = result.statistic;
        out["p_value"] = result.p;
        out["n_samples"] = result.n_samples;
        out["where"] = result.where;
        return out;
    }

private:
    std::unique_ptr<run::CitestSession> session_;
};

/// An order-MCMC result for McmcResult: the best DAG's arcs (parent, child) and the
/// CPDAG's edge list as in the HDF5 result; edge_prob and traces as they are.
nb::dict mcmc_dict(const bn::McmcOutput& o) {
    nb::dict out;
    const auto n = static_cast<std::size_t>(o.names.size());
    out["names"] = o.names;
    out["n_samples"] = o.n_samples;
    std::vector<double> prob = o.result.edge_prob;
    if (prob.empty()) prob.assign(n * n, std::nan(""));
    out["edge_prob"] = to_numpy(std::move(prob), {n, n});
    std::vector<std::int32_t> arcs;
    for (const io::CpdagEdge& e : io::cpdag_edges(o.best_dag)) arcs.insert(arcs.end(), {e.a, e.b});
    out["best_dag_edges"] = edge_array(std::move(arcs), 2);
    out["cpdag_edges"] = cpdag_array(o.cpdag);
    out["best_dag_score"] = o.best_dag_score;
    out["best_chain"] = o.best_chain;
    const std::size_t chains = o.result.chains.size();
    const std::size_t kept = chains ? o.result.chains[0].trace.size() : 0;
    std::vector<double> traces;
    std::vector<double> acceptance;
    for (const auto& c : o.result.chains) {
        traces.insert(traces.end(), c.trace.begin(), c.trace.end());
        acceptance.push_back(c.acceptance_rate);
    }
    out["traces"] = to_numpy(std::move(traces), {chains, kept});
    out["acceptance"] = to_numpy(std::move(acceptance), {chains});
    out["score_psrf"] = o.diagnostics.score_psrf;
    out["score_ess"] = o.diagnostics.score_ess;
    out["edge_max_psrf"] = o.diagnostics.edges.max_psrf;
    out["seconds"] = o.seconds_total;
    out["config"] = config_dict(o.config);
    return out;
}

nb::dict run_mcmc(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                  nb::object on_progress, const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::McmcJob job;
    job.data = in.source;
    apply_keywords(job, mcmc_keywords(), kwargs, in.names, "cudag.mcmc");
    run::McmcHooks hooks;
    hooks.read = reader(in, job.threads);
    hooks.progress = [&on_progress](const bn::McmcProgress& p) {
        call_back(on_progress, [&] {
            return fields({{"phase", nb::cast("chains")},
                           {"done", nb::cast(p.done)},
                           {"total", nb::cast(p.total)},
                           {"accepted", nb::cast(p.accepted)},
                           {"chains", nb::cast(p.chains)},
                           {"best_score", nb::cast(p.best_score)}});
        });
    };
    // The score table's phases (the local-score table, the score-sorted lists) report to the
    // caller's callback too, as {"phase", "done", "total"}; Ctrl-C is checked there either
    // way (on this thread, where run_released runs the job, so that Python sees the signal).
    hooks.table_progress = [&on_progress](const char* what, std::int64_t done, std::int64_t total) {
        call_back(on_progress, [&] {
            return fields({{"phase", nb::cast(std::string(what))}, {"done", nb::cast(done)}, {"total", nb::cast(total)}});
        });
    };
    // The score table's estimate above a minute: a cudag.CudagWarning (Python's warnings
    // filters decide; one turned into an error ends the call).
    hooks.warning = [](const std::string& line) {
        nb::gil_scoped_acquire gil;
        nb::object category = nb::module_::import_("cudag").attr("CudagWarning");
        const std::string text = "cudag.mcmc: " + line;
        if (PyErr_WarnEx(category.ptr(), text.c_str(), 1) != 0) throw nb::python_error();
    };
    const std::string call = call_text("cudag.mcmc", kwargs);
    run::McmcRun done;
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        done = run::run_mcmc(job, call, env, comm, hooks);
    });
    if (!done.stopped.empty()) throw Error("mcmc stopped after a checkpoint (--stop-after); continue with resume=True");
    if (done.bootstrap) return pc_dict(pc::as_pc_result(*done.bootstrap));  // a BootstrapResult
    if (!done.output) return nb::dict();
    return mcmc_dict(*done.output);
}

/// cudag.load: ("pc", PcResult's dict), ("fci", FciResult's) or ("mcmc", McmcResult's) of
/// a result file, the same dicts the learners return.
std::pair<std::string, nb::dict> load(const std::string& path) {
    run::LoadedResult r;
    {
        nb::gil_scoped_release release;
        environment();  // H5dont_atexit, as for a run
        r = run::load_result(path);
    }
    if (r.pc) return {r.pc->pag ? "fci" : "pc", pc_dict(*r.pc)};
    return {"mcmc", mcmc_dict(*r.mcmc)};
}

/// cudag.resample_rows's engine: the rows (indices, increasing) replicate `replicate` of
/// a bootstrap on data of `n_samples` rows draws (bootstrap::resample_rows), the options checked
/// with the command line's messages.
nb::object resample_rows(std::int64_t n_samples, std::int64_t replicate, nb::handle seed, const std::string& resample) {
    bootstrap::Options b;
    b.replicates = 1;
    b.resample = bootstrap::parse_resample(resample);
    b.seed = typed<std::uint64_t>(seed, "seed");
    if (replicate < 0) throw InputError("--replicate must be >= 0, got " + std::to_string(replicate));
    bootstrap::validate(b, n_samples);
    std::vector<std::int64_t> rows = bootstrap::resample_rows(n_samples, b, replicate);
    const std::size_t m = rows.size();
    return to_numpy(std::move(rows), {m});
}

/// A graph as Python hands it over: names and /cpdag/edges rows (a, b, kind).
Pdag graph_of(std::int64_t n, const nb::ndarray<const std::int32_t, nb::ndim<2>, nb::c_contig>& edges,
              const std::string& what) {
    Pdag g{Graph(n)};
    if (edges.shape(0) > 0 && edges.shape(1) != 3) throw InputError(what + ": edges must be rows (a, b, kind)");
    for (std::size_t k = 0; k < edges.shape(0); ++k) {
        const std::int32_t a = edges(k, 0), b = edges(k, 1), kind = edges(k, 2);
        if (a < 0 || a >= n || b < 0 || b >= n || a == b || kind < 0 || kind > 2)
            throw InputError(what + ": edge row " + std::to_string(k) + " is not two distinct variables below " +
                             std::to_string(n) + " and a kind 0, 1 or 2");
        g.set(a, b, kind == 2 ? Mark::Arrow : Mark::Tail, kind == 0 ? Mark::Tail : Mark::Arrow);
    }
    return g;
}

/// result.draw() / _repr_svg_: the graph (names, /cpdag/edges rows) as the command line's
/// DOT file (io::write_dot: every variable a node, --- dir=none, <-> dir=both) at `path`.
void write_dot(const std::vector<std::string>& names,
               const nb::ndarray<const std::int32_t, nb::ndim<2>, nb::c_contig>& edges, const std::string& path) {
    const Pdag g = graph_of(static_cast<std::int64_t>(names.size()), edges, path);
    io::write_dot(io::GraphView{names, g}, path);
}

/// A graph with PAG marks (compare reads them) as rows (a, b, mark at a, mark at b), a < b,
/// in pcalg's amat.pag codes (1 circle, 2 arrowhead, 3 tail): /pag/edges' layout.
nb::object pag_rows(const Pdag& g) {
    const auto code = [](Mark m) { return m == Mark::Circle ? 1 : m == Mark::Arrow ? 2 : 3; };
    std::vector<std::int32_t> rows;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (a < b) rows.insert(rows.end(), {a, b, code(g.end(a, b)), code(g.end(b, a))});
    return edge_array(std::move(rows), 4);
}

/// cudag.read_graph's engine: a graph file in any format `cudag compare` reads, PAGs too, as
/// a dict (names; edges as /cpdag/edges rows, or for a PAG ("pag" true) pag_edges as
/// /pag/edges rows; format, graph_name, lists_every_variable, names_by_position).
nb::dict read_graph(const std::string& path) {
    io::GraphFile f;
    {
        nb::gil_scoped_release release;
        environment();
        f = io::read_graph_file(path, io::PagMarks::Accept);
    }
    return fields({{"path", nb::cast(f.path)},
                   {"names", nb::cast(f.names)},
                   {"pag", nb::cast(f.pag)},
                   {"edges", f.pag ? edge_array({}, 3) : cpdag_array(f.graph)},
                   {"pag_edges", f.pag ? pag_rows(f.graph) : edge_array({}, 4)},
                   {"format", nb::cast(f.format)},
                   {"graph_name", nb::cast(f.graph_name)},
                   {"lists_every_variable", nb::cast(f.lists_every_variable)},
                   {"names_by_position", nb::cast(f.names_by_position)}});
}

/// A PAG as Python hands it over: names and /pag/edges rows (a, b, mark at a, mark at b).
Pdag pag_of(std::int64_t n, const nb::ndarray<const std::int32_t, nb::ndim<2>, nb::c_contig>& rows,
            const std::string& what) {
    constexpr Mark kMark[4] = {Mark::None, Mark::Circle, Mark::Arrow, Mark::Tail};
    Pdag g{Graph(n)};
    if (rows.shape(0) > 0 && rows.shape(1) != 4)
        throw InputError(what + ": pag_edges must be rows (a, b, mark at a, mark at b)");
    for (std::size_t k = 0; k < rows.shape(0); ++k) {
        const std::int32_t a = rows(k, 0), b = rows(k, 1), ma = rows(k, 2), mb = rows(k, 3);
        if (a < 0 || a >= n || b < 0 || b >= n || a == b || ma < 1 || ma > 3 || mb < 1 || mb > 3)
            throw InputError(what + ": PAG edge row " + std::to_string(k) + " is not two distinct variables below " +
                             std::to_string(n) + " and marks 1, 2 or 3");
        g.set(a, b, kMark[ma], kMark[mb]);
    }
    return g;
}

io::GraphFile graph_file(const nb::dict& d) {
    using Rows = nb::ndarray<const std::int32_t, nb::ndim<2>, nb::c_contig>;
    io::GraphFile f;
    f.path = nb::cast<std::string>(d["path"]);
    f.format = nb::cast<std::string>(d["format"]);
    f.graph_name = nb::cast<std::string>(d["graph_name"]);
    f.names = nb::cast<std::vector<std::string>>(d["names"]);
    f.lists_every_variable = nb::cast<bool>(d["lists_every_variable"]);
    f.names_by_position = nb::cast<bool>(d["names_by_position"]);
    f.pag = nb::cast<bool>(d["pag"]);
    const auto n = static_cast<std::int64_t>(f.names.size());
    f.graph =
        f.pag ? pag_of(n, nb::cast<Rows>(d["pag_edges"]), f.path) : graph_of(n, nb::cast<Rows>(d["edges"]), f.path);
    return f;
}

/// cudag.compare's engine: `cudag compare` on two graphs (read_graph's dicts): aligned on
/// one variable list, converted and scored by pc::compare_aligned (a DAG as its CPDAG; with a
/// PAG on either side, a CPDAG's --- as o-o and the mark scores added).
nb::dict compare(const nb::dict& truth, const nb::dict& estimate) {
    const io::GraphFile t = graph_file(truth), e = graph_file(estimate);
    io::AlignedGraphs g = io::align_graphs(t, e);
    const pc::GraphComparison r = pc::compare_aligned(g, t.pag, e.pag);
    const pc::Comparison& c = r.scores.skeleton;
    nb::dict out = fields({{"n_true_edges", nb::cast(c.n_true_edges)},
                           {"n_est_edges", nb::cast(c.n_est_edges)},
                           {"tp", nb::cast(c.tp)},
                           {"fp", nb::cast(c.fp)},
                           {"fn", nb::cast(c.fn)},
                           {"precision", nb::cast(c.precision)},
                           {"recall", nb::cast(c.recall)},
                           {"f1", nb::cast(c.f1)},
                           {"shd", nb::cast(c.shd)},
                           {"truth_was_dag", nb::cast(r.truth.was_dag)},
                           {"estimate_was_dag", nb::cast(r.estimate.was_dag)},
                           {"pag", nb::cast(r.pag)}});
    if (!r.pag) return out;
    out["shared_endpoints"] = nb::cast(2 * c.tp);
    const std::pair<const char*, const pc::MarkScore*> kinds[] = {
        {"arrow", &r.scores.arrow}, {"tail", &r.scores.tail}, {"circle", &r.scores.circle}};
    for (const auto& [kind, s] : kinds) {
        const std::string k(kind);
        out[(k + "_truth").c_str()] = nb::cast(s->in_truth);
        out[(k + "_estimate").c_str()] = nb::cast(s->in_estimate);
        out[(k + "_correct").c_str()] = nb::cast(s->correct);
        out[(k + "_precision").c_str()] = nb::cast(s->precision);
        out[(k + "_recall").c_str()] = nb::cast(s->recall);
    }
    return out;
}

/// cudag.score's engine: the data read as `cudag score` reads them for the score, then the
/// local score of each node given `parents` (each node's parents by index).
nb::dict run_score(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                   std::vector<std::vector<std::int32_t>> parents, const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    ScoreCall call;
    apply_keywords(call, score_keywords(), kwargs, in.names, "cudag.score");
    std::vector<double> local;
    std::string kind_name;
    std::int64_t n_samples = 0;
    {
        nb::gil_scoped_release release;
        const bn::ScoreKind kind = run::check_score_options(call.score);
        kind_name = bn::score_name(kind);
        const run::ScoreInputs inputs =
            run::read_score_inputs(in.source, "", kind, call.score, reader(in, call.threads));
        n_samples = inputs.n_samples;
        if (parents.size() != inputs.names.size())
            throw InputError("the DAG has " + std::to_string(parents.size()) + " nodes for " +
                             std::to_string(inputs.names.size()) + " variables");
        bn::Dag dag;
        dag.parents = std::move(parents);
        const std::vector<std::int32_t> cycle = bn::find_cycle(dag);
        if (!cycle.empty()) {
            std::string path;
            for (const std::int32_t v : cycle) path += inputs.names[v] + " --> ";
            throw InputError("the graph has a directed cycle through '" + inputs.names[cycle.front()] + "' (" + path +
                             inputs.names[cycle.front()] + "); only a DAG can be scored");
        }
        local = inputs.scorer->local_scores(dag);
    }
    double total = 0.0;
    for (const double v : local) total += v;
    const std::size_t n = local.size();
    return fields({{"total", nb::cast(total)},
                   {"local", to_numpy(std::move(local), {n})},
                   {"score", nb::cast(kind_name)},
                   {"n_samples", nb::cast(n_samples)}});
}

/// cudag.compat.tigramite.ParCorr's engine: (value, p_value, degrees of freedom) of
/// ci::parcorr on `values` (T x dim, row-major: X, Y, then Z).
nb::tuple parcorr(const nb::ndarray<const double, nb::ndim<2>, nb::c_contig>& values) {
    const auto t = static_cast<std::int64_t>(values.shape(0));
    const auto dim = static_cast<int>(values.shape(1));
    ci::ParCorrResult r;
    {
        nb::gil_scoped_release release;
        r = ci::parcorr(values.data(), t, dim);
    }
    return nb::make_tuple(r.value, r.p_value, r.degrees_of_freedom);
}

/// cudag.compat.tigramite.ParCorr._get_single_residuals's engine: (residual, fitted or None)
/// of ci::parcorr_residuals on `values` (T x dim, row-major: X, Y, then Z).
nb::tuple parcorr_residuals(const nb::ndarray<const double, nb::ndim<2>, nb::c_contig>& values, int target,
                            bool standardize) {
    const auto t = static_cast<std::int64_t>(values.shape(0));
    const auto dim = static_cast<int>(values.shape(1));
    ci::ParCorrResiduals r;
    {
        nb::gil_scoped_release release;
        r = ci::parcorr_residuals(values.data(), t, dim, target, standardize);
    }
    const std::size_t n = r.residual.size();
    nb::object fitted = r.fitted.empty() ? nb::none() : to_numpy(std::move(r.fitted), {n});
    return nb::make_tuple(to_numpy(std::move(r.residual), {n}), fitted);
}

/// ParCorr's shuffle null distribution (ci::parcorr_shuffle_null) of residuals x and y.
nb::object parcorr_shuffle_null(const nb::ndarray<const double, nb::ndim<1>, nb::c_contig>& x,
                                const nb::ndarray<const double, nb::ndim<1>, nb::c_contig>& y, std::int64_t samples,
                                std::int64_t blocklength, nb::handle seed) {
    if (x.shape(0) != y.shape(0))
        throw InputError("ParCorr's shuffle test: x has " + std::to_string(x.shape(0)) + " samples, y has " +
                         std::to_string(y.shape(0)));
    const std::uint64_t key = typed<std::uint64_t>(seed, "seed");
    std::vector<double> null;
    {
        nb::gil_scoped_release release;
        null = ci::parcorr_shuffle_null(x.data(), y.data(), static_cast<std::int64_t>(x.shape(0)), samples, blocklength,
                                        key);
    }
    const std::size_t n = null.size();
    return to_numpy(std::move(null), {n});
}

/// ParCorr's block bootstrap distribution (ci::parcorr_bootstrap) on `values` (T x dim).
nb::object parcorr_bootstrap(const nb::ndarray<const double, nb::ndim<2>, nb::c_contig>& values, std::int64_t samples,
                             std::int64_t blocklength, nb::handle seed) {
    const std::uint64_t key = typed<std::uint64_t>(seed, "seed");
    std::vector<double> dist;
    {
        nb::gil_scoped_release release;
        dist = ci::parcorr_bootstrap(values.data(), static_cast<std::int64_t>(values.shape(0)),
                                     static_cast<int>(values.shape(1)), samples, blocklength, key);
    }
    const std::size_t n = dist.size();
    return to_numpy(std::move(dist), {n});
}

/// ci::block_shuffle_order or ci::block_bootstrap_rows (`bootstrap`) as an index array.
nb::object block_rows(std::int64_t t, std::int64_t blocklength, nb::handle seed, std::int64_t replicate,
                      bool bootstrap) {
    const std::uint64_t key = typed<std::uint64_t>(seed, "seed");
    if (replicate < 0) throw InputError("replicate must be >= 0, got " + std::to_string(replicate));
    std::vector<std::int64_t> rows = bootstrap ? ci::block_bootstrap_rows(t, blocklength, key, replicate)
                                               : ci::block_shuffle_order(t, blocklength, key, replicate);
    const std::size_t n = rows.size();
    return to_numpy(std::move(rows), {n});
}

}  // namespace
}  // namespace cudag::python

NB_MODULE(_cudag, m) {
    using namespace cudag::python;
    m.doc() = "cudag's learners in-process (use the cudag package, not this module)";
    m.attr("__version__") = CUDAG_VERSION;
    // Error (a RuntimeError) for every cudag error; InputError is also a ValueError.
    static PyObject* error = PyErr_NewException("cudag.Error", PyExc_RuntimeError, nullptr);
    nb::object bases = nb::make_tuple(nb::handle(error), nb::handle(PyExc_ValueError));
    static PyObject* input_error = PyErr_NewException("cudag.InputError", bases.ptr(), nullptr);
    m.attr("Error") = nb::handle(error);
    m.attr("InputError") = nb::handle(input_error);
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        auto one_line = [](std::string s) {
            std::replace(s.begin(), s.end(), '\n', ' ');
            return s;
        };
        try {
            std::rethrow_exception(p);
        } catch (const cudag::InputError& e) {
            PyErr_SetString(input_error, one_line(e.what()).c_str());
        } catch (const cudag::Error& e) {
            PyErr_SetString(error, one_line(e.what()).c_str());
        }
    });
    m.def("pc", &run_pc, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("on_level").none(), nb::arg("dag").none(), nb::arg("kwargs"));
    m.def("fci", &run_fci, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("on_level").none(), nb::arg("dag").none(), nb::arg("kwargs"));
    m.def("pcmci", &run_pcmci, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("kwargs"));
    m.def("citest", &run_citest, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("kwargs"));
    nb::class_<CiTester>(m, "CiTester")
        .def(nb::init<nb::object, std::vector<std::string>, std::string, std::string, nb::kwargs>(),
             nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"), nb::arg("kwargs"))
        .def("test", &CiTester::test, nb::arg("x"), nb::arg("y"), nb::arg("given"))
        .def("test_batch", &CiTester::test_batch, nb::arg("queries"))
        .def("p_value", &CiTester::p_value, nb::arg("x"), nb::arg("y"), nb::arg("given"));
    bind_cit_memo(m);
    m.def("mcmc", &run_mcmc, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("on_progress").none(), nb::arg("kwargs"));
    m.def("load", &load, nb::arg("path"));
    m.def("parcorr", &parcorr, nb::arg("values"));
    m.def("parcorr_p_value", &cudag::ci::parcorr_p_value, nb::arg("value"), nb::arg("t"), nb::arg("dim"));
    m.def("student_t_sf", &cudag::ci::student_t_sf, nb::arg("t"), nb::arg("df"),
          "P(T > t) for Student's t with df degrees of freedom (scipy.stats.t.sf)");
    m.def("student_t_isf", &cudag::ci::student_t_isf, nb::arg("p"), nb::arg("df"),
          "the t with P(T > t) = p for Student's t with df degrees of freedom (scipy.stats.t.isf)");
    m.def("parcorr_residuals", &parcorr_residuals, nb::arg("values"), nb::arg("target"), nb::arg("standardize"));
    m.def("parcorr_shuffle_null", &parcorr_shuffle_null, nb::arg("x"), nb::arg("y"), nb::arg("samples"),
          nb::arg("blocklength"), nb::arg("seed"));
    m.def("parcorr_bootstrap", &parcorr_bootstrap, nb::arg("values"), nb::arg("samples"), nb::arg("blocklength"),
          nb::arg("seed"));
    m.def("fdr_bh", &cudag::pcmci::fdr_bh, nb::arg("p"),
          "Benjamini-Hochberg q-values (tigramite's get_corrected_pvalues, fdr_bh)");
    m.def("block_rows", &block_rows, nb::arg("t"), nb::arg("blocklength"), nb::arg("seed"), nb::arg("replicate"),
          nb::arg("bootstrap"));
    m.def("resample_rows", &resample_rows, nb::arg("n_samples"), nb::arg("replicate"), nb::arg("seed"),
          nb::arg("resample"));
    m.def("read_graph", &read_graph, nb::arg("path"));
    m.def("write_dot", &write_dot, nb::arg("names"), nb::arg("edges"), nb::arg("path"));
    m.def("compare", &compare, nb::arg("truth"), nb::arg("estimate"));
    m.def("score", &run_score, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("parents"), nb::arg("kwargs"));
    m.attr("MATRIX_LIMIT") = cudag::io::kMaxMatrixFormatVars;
    m.def(
        "keywords",
        [](const std::string& command) {
            // (name, option, Python type, Python's meaning where it differs from the option's).
            std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
            const auto list = [&out](const auto& table) {
                for (const auto& k : table)
                    out.emplace_back(k.name, k.option, k.type, k.meaning.empty() ? common_meaning(k.name) : k.meaning);
            };
            if (command == "pc")
                list(pc_keywords());
            else if (command == "fci")
                list(fci_keywords());
            else if (command == "citest")
                list(citest_keywords());
            else if (command == "pcmci")
                list(pcmci_keywords());
            else if (command == "mcmc")
                list(mcmc_keywords());
            else if (command == "score")
                list(score_keywords());
            else if (command == "simulate")
                for (const OptionWord& k : simulate_keywords()) out.emplace_back(k.name, k.option, "", "");
            else
                throw cudag::InputError("no command '" + command +
                                        "' (available: pc, fci, citest, pcmci, mcmc, score, simulate)");
            return out;
        },
        nb::arg("command"),
        "the keywords of `command`: (name, the command line's option, Python type, meaning where it differs "
        "from the option's)");
    m.def(
        "set_line_sink",
        [](nb::object write) {
            // The progress lines of the calls until the next set_line_sink(None) go to
            // `write` (cudag's logging), their times counted from now.
            static std::unique_ptr<cudag::skeleton::ScopedLineSink> sink;
            sink.reset();
            if (write.is_none()) return;
            auto fn = std::make_shared<nb::object>(std::move(write));
            // (write_line: a KeyboardInterrupt raised inside `write` ends the call.)
            cudag::skeleton::LineSink to{[fn](const std::string& line) { write_line(*fn, line); },
                                         std::chrono::steady_clock::now()};
            sink = std::make_unique<cudag::skeleton::ScopedLineSink>(std::move(to));
        },
        nb::arg("write").none(), "send the progress lines to `write(line)` (None: back to stderr)");
    m.def(
        "option_table",
        [](const std::string& command) {
            // (option, type, default, meaning, hidden): the command line's declarations.
            std::vector<std::tuple<std::string, std::string, std::string, std::string, bool>> out;
            for (const cudag::cli::OptionInfo& o : cudag::cli::option_table(command))
                out.emplace_back(o.option, o.type, o.default_value, o.meaning, o.hidden);
            return out;
        },
        nb::arg("command"),
        "the options of `cudag <command>` as --help lists them: (option, type, default, meaning, hidden)");
    m.def("table_commands", &cudag::cli::table_commands, "the commands option_table takes");
    m.def(
        "cli_only",
        [](const std::string& command) {
            std::vector<std::pair<std::string, std::string>> out;
            for (const OptionWord& k : cli_only_options(command)) out.emplace_back(k.option, k.name);
            return out;
        },
        nb::arg("command"), "the options of `cudag <command>` Python does not take: (option, what Python has instead)");
    m.def("cuda_compiled", &cudag::cuda_compiled, "whether this build has the CUDA engines");
    m.def(
        "release_gpu_memory",
        [] {
            nb::gil_scoped_release release;
            cudag::release_gpu_memory();
        },
        "hand back the GPU memory kept for the next call (a no-op without CUDA)");
    m.def("visible_gpus", &cudag::visible_gpus, "number of CUDA devices this build can use");
    m.def(
        "warm_up",
        [](int device) {
            nb::gil_scoped_release release;
            cudag::GpuKernelPlan kernels;  // the skeleton engines' (a run loads its own while reading)
            kernels.fisher = kernels.discrete = true;
            std::thread t = cudag::warm_up_gpu(cudag::BackendKind::Auto, device, kernels);
            if (t.joinable()) t.join();
        },
        nb::arg("device") = 0,
        "create the CUDA context of `device` now and load the skeleton engines' kernels (a no-op without CUDA)");
}
