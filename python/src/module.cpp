// SPDX-License-Identifier: Apache-2.0
// cudag._cudag: the commands `pc`, `citest` and `mcmc` run in-process on data held in
// memory. Options arrive as the command line's own arguments (the Python layer turns
// keyword arguments into them) and are parsed by the very CLI11 definitions of src/cli/,
// so every option, default and error message is the command line's. The search runs with
// the GIL released; the results come back as numpy arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <CLI/CLI.hpp>
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
#include "cli/citest.hpp"
#include "cli/mcmc.hpp"
#include "cli/pc.hpp"
#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cudag/config.hpp"
#include "io/table_reader.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"

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

/// `cudag <command> args...` parsed by the command's own CLI11 definitions (`add`, from
/// src/cli/); a parse error is the command line's one line. The app lives as long as the
/// arguments (they may point into it).
template <class Args>
struct Parsed {
    CLI::App app{"cudag"};
    Args args;
    Parsed(CLI::App* (*add)(CLI::App&, Args&), const std::string& command, const std::vector<std::string>& argv) {
        add(app, args);
        app.require_subcommand(1);
        std::vector<std::string> reversed(argv.rbegin(), argv.rend());
        reversed.push_back(command);
        try {
            app.parse(reversed);
        } catch (const CLI::ParseError& e) {
            throw InputError(std::string(e.what()) + " (see --help)");
        }
    }
};

/// The command's data reader: `in` as read_input gives it, on the command's threads.
cli::DataReader reader(const DataInput& in, int threads) {
    return [&in, threads](io::TableMode mode) { return read_input(in, mode, threads); };
}

std::string command_line(const std::string& command, const std::vector<std::string>& args) {
    std::string s = "cudag." + command + "(";
    for (std::size_t k = 0; k < args.size(); ++k) s += (k ? " " : "") + args[k];
    return s + ")";
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

nb::dict run_pc(std::vector<std::string> args, nb::object values, std::vector<std::string> names, std::string text,
                std::string source, nb::object on_level) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    const Parsed<cli::PcArgs> cmd(cli::add_pc_command, "pc", args);
    std::optional<pc::PcResult> result;
    cli::PcHooks hooks;
    hooks.read = reader(in, cmd.args.cfg.backend.threads);
    hooks.result = [&result](pc::PcResult& r) { result = std::move(r); };
    hooks.level = [&on_level](const pc::LevelStats& s) { call_back(on_level, [&] { return level_dict(s); }); };
    run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        return cli::run_pc_command(cmd.args, command_line("pc", args), env, comm, hooks);
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
    return out;
}

nb::dict run_citest(std::vector<std::string> args, nb::object values, std::vector<std::string> names, std::string text,
                    std::string source) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    const Parsed<cli::CitestArgs> cmd(cli::add_citest_command, "citest", args);
    cli::CitestOutput result;
    cli::CitestHooks hooks;
    hooks.read = reader(in, cmd.args.threads);
    hooks.result = [&result](const cli::CitestOutput& o) { result = o; };
    {
        nb::gil_scoped_release release;
        cli::run_citest(cmd.args, hooks);
    }
    nb::dict out;
    out["statistic"] = result.statistic;
    out["p_value"] = result.p;
    out["n_samples"] = result.n_samples;
    for (const auto& [k, v] : result.extra) out[nb::str(k.c_str())] = std::stod(v);
    return out;
}

nb::dict run_mcmc(std::vector<std::string> args, nb::object values, std::vector<std::string> names, std::string text,
                  std::string source, nb::object on_progress) {
    const DataInput in = make_input(values, std::move(names), std::move(text), std::move(source));
    const Parsed<cli::McmcArgs> cmd(cli::add_mcmc_command, "mcmc", args);
    std::optional<bn::McmcOutput> result;
    cli::McmcHooks hooks;
    hooks.read = reader(in, cmd.args.threads);
    hooks.result = [&result](bn::McmcOutput& o) { result = o; };
    hooks.progress = [&on_progress](const bn::McmcProgress& p) {
        call_back(on_progress, [&] {
            return fields({{"done", nb::cast(p.done)},
                           {"total", nb::cast(p.total)},
                           {"accepted", nb::cast(p.accepted)},
                           {"chains", nb::cast(p.chains)},
                           {"best_score", nb::cast(p.best_score)}});
        });
    };
    const int code = run_released([&](mpi::Environment& env, std::unique_ptr<mpi::Communicator>& comm) {
        return cli::run_mcmc_command(cmd.args, command_line("mcmc", args), env, comm, hooks);
    });
    if (code == 3) throw Error("mcmc stopped after a checkpoint (--stop-after); continue with resume=True");
    nb::dict out;
    if (!result) return out;
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
    m.def("pc", &run_pc, nb::arg("args"), nb::arg("values").none(), nb::arg("names"), nb::arg("text"),
          nb::arg("source"), nb::arg("on_level").none());
    m.def("citest", &run_citest, nb::arg("args"), nb::arg("values").none(), nb::arg("names"), nb::arg("text"),
          nb::arg("source"));
    m.def("mcmc", &run_mcmc, nb::arg("args"), nb::arg("values").none(), nb::arg("names"), nb::arg("text"),
          nb::arg("source"), nb::arg("on_progress").none());
    m.def(
        "help",
        [](const std::string& command) {
            CLI::App app{"cudag"};
            cudag::cli::PcArgs pa;
            cudag::cli::CitestArgs ca;
            cudag::cli::McmcArgs ma;
            cudag::cli::add_pc_command(app, pa);
            cudag::cli::add_citest_command(app, ca);
            cudag::cli::add_mcmc_command(app, ma);
            if (command != "pc" && command != "citest" && command != "mcmc")
                throw cudag::InputError("no command '" + command + "' (available: pc, citest, mcmc)");
            return app.get_subcommand(command)->help();
        },
        nb::arg("command"), "the command line's help of `command`: its options and defaults");
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
