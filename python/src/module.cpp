// SPDX-License-Identifier: Apache-2.0
// cudag._cudag: the library's jobs `pc`, `citest` and `mcmc` (src/run/) run in-process on
// data held in memory. Typed keyword arguments fill the job structs (keywords.hpp), whose
// defaults and checks are the command line's own (it binds its options to the same
// members), so every default and error message is the command line's. The search runs
// with the GIL released; the results come back as numpy arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bn/mcmc_result.hpp"
#include "bn/mcmc_run.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/table_reader.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "keywords.hpp"

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
Dataset read_input(const DataInput& in, io::TableMode mode, int threads) {
    if (!in.values) return io::parse_table(in.text, in.source, mode);
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
    std::atomic<bool> finite{true};
    parallel_for(0, (d.n_vars + kColumns - 1) / kColumns, resolve_threads(threads), 1, [&](std::int64_t b, int) {
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
        const std::int64_t r = k / d.n_vars, v = k % d.n_vars;
        throw InputError(
            in.source + ": " +
            (std::isnan(x) ? "missing value (NaN)" : std::string("non-finite value ") + (x > 0 ? "inf" : "-inf")) +
            " at row " + std::to_string(r + 1) + ", column " + std::to_string(v + 1) + " '" + d.names[v] +
            "' (counted from 1)");
    }
    if (mode == io::TableMode::Labels) io::discretize(d, in.source);
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
    return [&in, threads](io::TableMode mode) { return read_input(in, mode, threads); };
}

/// A numpy array owning `v` (no copy), of type `dt` (bytes as bool, say).
template <class T>
nb::object to_numpy(std::vector<T>&& v, std::vector<std::size_t> shape, nb::dlpack::dtype dt = nb::dtype<T>()) {
    auto* heap = new std::vector<T>(std::move(v));
    nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
    return nb::cast(nb::ndarray<nb::numpy>(heap->data(), shape.size(), shape.data(), owner, nullptr, dt));
}

/// A CPDAG as two n x n int8 matrices in `out`: "<prefix>marks", causal-learn's encoding
/// ([i, j] is the mark at i's end of the edge i-j: -1 tail, 1 arrowhead, 0 no edge), and
/// "<prefix>cpdag", the adjacency ([i, j] = 1 for i --> j and both ways for i --- j, 2 both
/// ways for i <-> j).
void put_graph(nb::dict& out, const std::string& prefix, const Pdag& g) {
    const auto n = static_cast<std::size_t>(g.n());
    std::vector<std::int8_t> marks(n * n, 0), adj(n * n, 0);
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (const std::int32_t j : g.neighbours(i)) {
            const Mark at_i = g.end(i, j), at_j = g.end(j, i);
            const std::size_t k = static_cast<std::size_t>(i) * n + j;
            marks[k] = static_cast<std::int8_t>(at_i);
            adj[k] = at_i == Mark::Tail ? 1 : (at_i == Mark::Arrow && at_j == Mark::Arrow ? 2 : 0);
        }
    out[nb::str((prefix + "marks").c_str())] = to_numpy(std::move(marks), {n, n});
    out[nb::str((prefix + "cpdag").c_str())] = to_numpy(std::move(adj), {n, n});
}

/// Between levels (updates): the Python callback given `make()`'s dict, with the GIL held,
/// then Ctrl-C as KeyboardInterrupt. What either raises ends the command.
template <class Make>
void call_back(const nb::object& fn, Make&& make) {
    nb::gil_scoped_acquire gil;
    if (!fn.is_none()) fn(make());
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

nb::dict fields(std::initializer_list<std::pair<const char*, nb::object>> items) {
    nb::dict d;
    for (const auto& [key, value] : items) d[key] = value;
    return d;
}

nb::dict level_dict(const pc::LevelStats& s) {
    return fields({{"level", nb::cast(s.level)},
                   {"tests", nb::cast(s.tests)},
                   {"removed", nb::cast(s.removed)},
                   {"edges_after", nb::cast(s.edges_after)},
                   {"seconds", nb::cast(s.seconds)}});
}

/// `run(env, comm)` with the GIL released, on the process's environment and a fresh world
/// communicator (the command may replace it). One command at a time: calls from several
/// Python threads queue (the ranks of an MPI job must meet in the same collectives).
template <class Run>
int run_released(Run&& run) {
    static std::mutex one_at_a_time;
    mpi::Environment& env = environment();
    nb::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    std::unique_ptr<mpi::Communicator> comm = env.world();
    return run(env, comm);
}

nb::dict run_pc(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                nb::object on_level, const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::PcJob job;
    job.data = in.source;
    apply_keywords(job, pc_keywords(), kwargs, in.names, "cudag.pc");
    run::PcHooks hooks;
    hooks.read = reader(in, job.cfg.backend.threads);
    hooks.level = [&on_level](const pc::LevelStats& s) { call_back(on_level, [&] { return level_dict(s); }); };
    hooks.whole_result = true;
    std::vector<std::string> warnings;
    hooks.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
    const std::string call = call_text("cudag.pc", kwargs);
    std::optional<pc::PcResult> result;
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        result = std::move(run::run_pc(job, call, env, comm, hooks).result);
        return 0;
    });
    nb::dict out;
    if (!result) return out;  // a rank other than 0 under MPI
    pc::PcResult& r = *result;
    const auto n = static_cast<std::size_t>(r.cpdag.n());
    out["names"] = r.names;
    out["n_samples"] = r.n_samples;
    std::vector<std::uint8_t> skeleton(n * n, 0);
    for (std::int32_t i = 0; i < r.skeleton.n(); ++i)
        for (const std::int32_t j : r.skeleton.neighbours(i)) skeleton[static_cast<std::size_t>(i) * n + j] = 1;
    out["skeleton"] = to_numpy(std::move(skeleton), {n, n}, nb::dtype<bool>());
    put_graph(out, "", r.cpdag);
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
    for (const pc::LevelStats& s : r.levels) levels.append(level_dict(s));
    out["levels"] = levels;
    nb::dict config;
    for (const auto& [k, v] : r.config) config[nb::str(k.c_str())] = v;
    out["config"] = config;
    nb::list labels;
    for (const auto& l : r.level_labels) labels.append(nb::cast(l));
    out["level_labels"] = labels;
    out["seconds"] = r.seconds_total;
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

nb::dict run_citest(nb::object values, std::vector<std::string> names, std::string text, std::string source,
                    const nb::kwargs& kwargs) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    run::CitestJob job;
    job.data = in.source;
    apply_keywords(job, citest_keywords(), kwargs, in.names, "cudag.citest");
    run::CitestOutput result;
    {
        nb::gil_scoped_release release;
        result = run::run_citest(job, reader(in, job.threads));
    }
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
        nb::gil_scoped_release release;
        session_ = std::make_unique<run::CitestSession>(job, reader(in, job.threads));
    }
    nb::dict test(const std::string& x, const std::string& y, const std::vector<std::string>& given) {
        run::CitestOutput result;
        {
            nb::gil_scoped_release release;
            result = session_->test(x, y, given);
        }
        return citest_dict(result);
    }

private:
    std::unique_ptr<run::CitestSession> session_;
};

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
            return fields({{"done", nb::cast(p.done)},
                           {"total", nb::cast(p.total)},
                           {"accepted", nb::cast(p.accepted)},
                           {"chains", nb::cast(p.chains)},
                           {"best_score", nb::cast(p.best_score)}});
        });
    };
    const std::string call = call_text("cudag.mcmc", kwargs);
    run::McmcRun done;
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        done = run::run_mcmc(job, call, env, comm, hooks);
        return 0;
    });
    if (!done.stopped.empty()) throw Error("mcmc stopped after a checkpoint (--stop-after); continue with resume=True");
    nb::dict out;
    if (!done.output) return out;
    std::optional<bn::McmcOutput>& result = done.output;
    bn::McmcOutput& o = *result;
    const auto n = static_cast<std::size_t>(o.names.size());
    out["names"] = o.names;
    out["n_samples"] = o.n_samples;
    std::vector<double> prob = o.result.edge_prob;
    if (prob.empty()) prob.assign(n * n, std::nan(""));
    out["edge_prob"] = to_numpy(std::move(prob), {n, n});
    std::vector<std::uint8_t> dag(n * n, 0);
    for (std::int32_t v = 0; v < o.best_dag.n(); ++v)
        for (const std::int32_t u : o.best_dag.neighbours(v))
            if (o.best_dag.is_directed(u, v)) dag[static_cast<std::size_t>(u) * n + v] = 1;
    out["best_dag"] = to_numpy(std::move(dag), {n, n});
    put_graph(out, "", o.cpdag);
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
    return out;
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
          nb::arg("on_level").none(), nb::arg("kwargs"));
    m.def("citest", &run_citest, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("kwargs"));
    nb::class_<CiTester>(m, "CiTester")
        .def(nb::init<nb::object, std::vector<std::string>, std::string, std::string, nb::kwargs>(),
             nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"), nb::arg("kwargs"))
        .def("test", &CiTester::test, nb::arg("x"), nb::arg("y"), nb::arg("given"));
    m.def("mcmc", &run_mcmc, nb::arg("values").none(), nb::arg("names"), nb::arg("text"), nb::arg("source"),
          nb::arg("on_progress").none(), nb::arg("kwargs"));
    m.def(
        "keywords",
        [](const std::string& command) {
            std::vector<std::pair<std::string, std::string>> out;
            const auto list = [&out](const auto& table) {
                for (const auto& k : table) out.emplace_back(k.name, k.option);
            };
            if (command == "pc")
                list(pc_keywords());
            else if (command == "citest")
                list(citest_keywords());
            else if (command == "mcmc")
                list(mcmc_keywords());
            else
                throw cudag::InputError("no command '" + command + "' (available: pc, citest, mcmc)");
            return out;
        },
        nb::arg("command"), "the keywords of `command` with the command line's option of each");
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
            std::thread t = cudag::warm_up_gpu(cudag::BackendKind::Auto, device);
            if (t.joinable()) t.join();
        },
        nb::arg("device") = 0, "create the CUDA context of `device` now (a no-op without CUDA)");
}
