// SPDX-License-Identifier: Apache-2.0
#include "run/load.hpp"

#include <hdf5.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/pag.hpp"
#include "io/hdf5_file.hpp"
#include "io/result_formats.hpp"
#include "skeleton/layout.hpp"

namespace cudag::run {

namespace h5 = io::h5;

namespace {

/// A numeric scalar attribute of `obj` as T (HDF5 converts the stored type).
template <class T>
T scalar_attr(hid_t obj, const char* name, const std::string& where) {
    if (!h5::has_attr(obj, name)) throw InputError(where + ": the attribute '" + name + "' is missing");
    h5::Handle attr =
        h5::check_id(H5Aopen(obj, name, H5P_DEFAULT), where + ": cannot open the attribute '" + name + "'");
    T value{};
    hid_t mem = 0;
    if constexpr (std::is_same_v<T, std::uint64_t>)
        mem = H5T_NATIVE_UINT64;  // /bootstrap's seed (h5::TypeOf has signed types only)
    else
        mem = h5::TypeOf<T>::mem();
    h5::check(H5Aread(attr.get(), mem, &value), where + ": cannot read the attribute '" + name + "'");
    return value;
}

bool exists(hid_t root, const std::string& path) {
    h5::silence_errors();
    const htri_t r = H5Lexists(root, path.c_str(), H5P_DEFAULT);
    if (r < 0) h5::take_error();
    return r > 0;
}

/// /config's string attributes in the order they were written (groups track it).
std::vector<std::pair<std::string, std::string>> read_config(hid_t root, const std::string& where) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!exists(root, "config")) return out;
    h5::Handle g = h5::check_id(H5Gopen2(root, "config", H5P_DEFAULT), where + ": cannot open /config");
    std::vector<std::string> names;
    hsize_t next = 0;
    const auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->emplace_back(name);
        return 0;
    };
    h5::check(H5Aiterate2(g.get(), H5_INDEX_CRT_ORDER, H5_ITER_INC, &next, collect, &names),
              where + ": cannot read /config's attribute names");
    for (const std::string& name : names) {
        const std::vector<std::string> value = h5::read_string_attr(g.get(), name, where);
        out.emplace_back(name, value.empty() ? std::string() : value.front());
    }
    return out;
}

/// The rows of the E x width int32 dataset `name`, each checked to be nodes below n
/// (and, E x 3, a kind 0..2 in the third column).
std::vector<std::int32_t> edge_rows(hid_t root, const std::string& name, hsize_t width, std::int64_t n,
                                    const std::string& where) {
    const std::vector<hsize_t> shape = h5::dataset_shape(root, name, where);
    if (shape.size() != 2 || shape[1] != width)
        throw InputError(where + ": /" + name + " is not an E x " + std::to_string(width) + " array");
    std::vector<std::int32_t> rows = h5::read_array<std::int32_t>(root, name, where);
    for (std::size_t k = 0; k < rows.size(); k += width) {
        const bool nodes_ok =
            rows[k] >= 0 && rows[k] < n && rows[k + 1] >= 0 && rows[k + 1] < n && rows[k] != rows[k + 1];
        const bool kind_ok = width != 3 || (rows[k + 2] >= 0 && rows[k + 2] <= 2);
        if (!nodes_ok || !kind_ok)
            throw InputError(where + ": /" + name + " row " + std::to_string(k / width) +
                             " is not two distinct nodes below " + std::to_string(n) +
                             (width != 3 ? std::string() : " and a kind 0, 1 or 2"));
    }
    return rows;
}

/// The graph of /<name>/edges rows (a, b, kind): 0 a --- b, 1 a --> b, 2 a <-> b.
Pdag read_cpdag(hid_t root, std::int64_t n, const std::string& where) {
    Pdag g{Graph(n)};
    const std::vector<std::int32_t> rows = edge_rows(root, "cpdag/edges", 3, n, where);
    for (std::size_t k = 0; k < rows.size(); k += 3) {
        const std::int32_t kind = rows[k + 2];
        g.set(rows[k], rows[k + 1], kind == 2 ? Mark::Arrow : Mark::Tail, kind == 0 ? Mark::Tail : Mark::Arrow);
    }
    return g;
}

/// The PAG of /pag/edges (`cudag fci`'s result, root attribute kind = "pag"): rows (a, b,
/// mark at a, mark at b), a < b, in increasing order, marks pcalg's amat.pag codes 1 circle,
/// 2 arrowhead, 3 tail.
Pag read_pag(hid_t root, std::int64_t n, const std::string& where) {
    using namespace marks;
    const std::vector<std::int32_t> rows = edge_rows(root, "pag/edges", 4, n, where);
    Pag g(static_cast<std::int32_t>(n));
    const auto mark_ok = [](std::int32_t m) { return m == kCircle || m == kArrow || m == kTail; };
    for (std::size_t k = 0; k < rows.size(); k += 4) {
        const std::int32_t a = rows[k], b = rows[k + 1];
        const bool increasing = k == 0 || rows[k - 4] < a || (rows[k - 4] == a && rows[k - 3] < b);
        if (a >= b || !increasing || !mark_ok(rows[k + 2]) || !mark_ok(rows[k + 3]))
            throw InputError(where + ": /pag/edges row " + std::to_string(k / 4) +
                             " is not (a, b, mark at a, mark at b) with a < b in order and marks 1, 2 or 3");
        g.add(a, b, static_cast<std::uint8_t>(rows[k + 2]), static_cast<std::uint8_t>(rows[k + 3]));
    }
    return g;
}

/// /bootstrap (a bootstrap run's frequency table): its attributes, pairs (i < j below n,
/// increasing) and counts (K x 5, each row summing to B).
bootstrap::Table read_bootstrap(hid_t root, std::int64_t n, const std::string& where) {
    h5::Handle g = h5::check_id(H5Gopen2(root, "bootstrap", H5P_DEFAULT), where + ": cannot open /bootstrap");
    bootstrap::Table t;
    t.replicates = scalar_attr<std::int64_t>(g.get(), "replicates", where);
    const std::vector<std::string> resample = h5::read_string_attr(g.get(), "resample", where);
    t.resample = resample.empty() ? std::string() : resample.front();
    t.seed = scalar_attr<std::uint64_t>(g.get(), "seed", where);
    t.consensus = scalar_attr<double>(g.get(), "consensus", where);
    // A PAG bootstrap's (cudag fci --bootstrap): kinds "none" and the nine edge strings.
    const std::vector<std::string> kinds =
        h5::has_attr(g.get(), "kinds") ? h5::read_string_attr(g.get(), "kinds", where) : std::vector<std::string>{};
    t.pag = kinds.size() == 10;
    t.pairs = h5::read_array<std::int32_t>(g.get(), "pairs", where);
    t.counts = h5::read_array<std::int32_t>(g.get(), "counts", where);
    if (t.replicates < 1) throw InputError(where + ": /bootstrap's replicates is not at least 1");
    const std::size_t cols = t.columns();
    if (t.pairs.size() % 2 != 0 || t.counts.size() != t.size() * cols)
        throw InputError(where + ": /bootstrap/pairs and /bootstrap/counts are not K x 2 and K x " +
                         std::to_string(cols));
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const bool increasing = e == 0 || t.pairs[2 * e - 2] < i || (t.pairs[2 * e - 2] == i && t.pairs[2 * e - 1] < j);
        std::int64_t sum = 0;
        for (std::size_t k = 0; k < cols; ++k) sum += t.counts[cols * e + k];
        if (i < 0 || j <= i || j >= n || !increasing || sum != t.replicates)
            throw InputError(where + ": /bootstrap row " + std::to_string(e) + " is not a pair i < j below " +
                             std::to_string(n) + " in order with counts summing to the replicates");
    }
    return t;
}

pc::PcResult read_pc(hid_t root, const std::string& where) {
    pc::PcResult r;
    r.names = h5::read_strings(root, "variables/names", where);
    const auto n = static_cast<std::int64_t>(r.names.size());
    if (exists(root, "variables/level_labels")) {
        const auto offsets = h5::read_array<std::int64_t>(root, "variables/level_offsets", where);
        const auto labels = h5::read_strings(root, "variables/level_labels", where);
        if (offsets.size() != static_cast<std::size_t>(n) + 1 || offsets.front() != 0 ||
            offsets.back() != static_cast<std::int64_t>(labels.size()))
            throw InputError(where + ": /variables/level_offsets does not match the names and level labels");
        for (std::int64_t v = 0; v < n; ++v) {
            if (offsets[v + 1] < offsets[v]) throw InputError(where + ": /variables/level_offsets decreases");
            r.level_labels.emplace_back(labels.begin() + offsets[v], labels.begin() + offsets[v + 1]);
        }
    }
    r.n_samples = scalar_attr<std::int64_t>(root, "n_samples", where);
    r.seconds_total = scalar_attr<double>(root, "seconds_total", where);
    r.skeleton = skeleton::layout::read_skeleton(root, n, where);
    // The graph: a PAG (cudag fci: kind "pag", the CPDAG then empty, as the run leaves it) or
    // the CPDAG (kind "cpdag", or no kind: files written before cudag fci).
    const std::vector<std::string> kind =
        h5::has_attr(root, "kind") ? h5::read_string_attr(root, "kind", where) : std::vector<std::string>{};
    if (kind == std::vector<std::string>{"pag"}) {
        r.pag = read_pag(root, n, where);
        r.cpdag = Pdag(Graph(n));
        if (!(r.pag->skeleton() == r.skeleton))
            throw InputError(where + ": /pag/edges and /skeleton/edges do not join the same pairs");
    } else if (kind.empty() || kind == std::vector<std::string>{"cpdag"}) {
        r.cpdag = read_cpdag(root, n, where);
        if (!(r.cpdag.skeleton() == r.skeleton))
            throw InputError(where + ": /cpdag/edges and /skeleton/edges do not join the same pairs");
    } else {
        throw InputError(where + ": the root attribute kind is '" + kind.front() + "' (expected 'cpdag' or 'pag')");
    }
    r.sepsets = skeleton::layout::read_sepsets(root, n, where);
    {
        h5::Handle g = h5::check_id(H5Gopen2(root, "pmax", H5P_DEFAULT), where + ": cannot open /pmax");
        r.pmax = skeleton::layout::read_pmax_pairs(g.get(), n, where);
    }
    r.levels = skeleton::layout::read_levels(root, where);
    r.config = read_config(root, where);
    if (exists(root, "bootstrap")) r.bootstrap = read_bootstrap(root, n, where);
    return r;
}

bn::McmcOutput read_mcmc(hid_t root, const std::string& where) {
    bn::McmcOutput o;
    o.names = h5::read_strings(root, "variables/names", where);
    const auto n = static_cast<std::int64_t>(o.names.size());
    const auto un = static_cast<std::size_t>(n);
    o.n_samples = scalar_attr<std::int64_t>(root, "n_samples", where);
    o.best_dag_score = scalar_attr<double>(root, "best_score", where);
    o.best_chain = scalar_attr<std::int64_t>(root, "best_chain", where);
    o.seconds_table = scalar_attr<double>(root, "seconds_table", where);
    o.seconds_sort = scalar_attr<double>(root, "seconds_sort", where);
    o.seconds_chains = scalar_attr<double>(root, "seconds_chains", where);
    o.seconds_total = scalar_attr<double>(root, "seconds_total", where);
    o.best_dag = Pdag{Graph(n)};
    const std::vector<std::int32_t> dag = edge_rows(root, "best_dag/edges", 2, n, where);
    for (std::size_t k = 0; k < dag.size(); k += 2) o.best_dag.orient(dag[k], dag[k + 1]);
    o.cpdag = read_cpdag(root, n, where);
    o.result.edge_prob = h5::read_array<double>(root, "edge_prob", where);
    if (!o.result.edge_prob.empty() && o.result.edge_prob.size() != un * un)
        throw InputError(where + ": /edge_prob is not " + std::to_string(n) + " x " + std::to_string(n));
    const std::vector<hsize_t> shape = h5::dataset_shape(root, "chains/trace", where);
    if (shape.size() != 2) throw InputError(where + ": /chains/trace is not chains x iterations");
    const std::size_t chains = shape[0], kept = shape[1];
    const auto trace = h5::read_array<double>(root, "chains/trace", where);
    const auto acceptance = h5::read_array<double>(root, "chains/acceptance", where);
    const auto best = h5::read_array<double>(root, "chains/best_score", where);
    const auto best_order = h5::read_array<std::int32_t>(root, "chains/best_order", where);
    const auto final_order = h5::read_array<std::int32_t>(root, "chains/final_order", where);
    if (acceptance.size() != chains || best.size() != chains || best_order.size() != chains * un ||
        final_order.size() != chains * un)
        throw InputError(where + ": the /chains datasets do not have one row per chain");
    if (o.best_chain < 0 || static_cast<std::size_t>(o.best_chain) >= std::max<std::size_t>(chains, 1))
        throw InputError(where + ": the attribute best_chain is not a chain of /chains");
    o.result.kept_per_chain = static_cast<std::int64_t>(kept);
    for (std::size_t c = 0; c < chains; ++c) {
        bn::OrderChainResult ch;
        ch.trace.assign(trace.begin() + c * kept, trace.begin() + (c + 1) * kept);
        ch.acceptance_rate = acceptance[c];
        ch.best_score = best[c];
        ch.best_order.assign(best_order.begin() + c * un, best_order.begin() + (c + 1) * un);
        ch.final_order.assign(final_order.begin() + c * un, final_order.begin() + (c + 1) * un);
        o.result.chains.push_back(std::move(ch));
    }
    {
        h5::Handle g = h5::check_id(H5Gopen2(root, "chains", H5P_DEFAULT), where + ": cannot open /chains");
        o.burn_in = scalar_attr<std::int64_t>(g.get(), "burn_in", where);
        o.thin = scalar_attr<std::int64_t>(g.get(), "thin", where);
    }
    {
        h5::Handle g = h5::check_id(H5Gopen2(root, "diagnostics", H5P_DEFAULT), where + ": cannot open /diagnostics");
        o.diagnostics.score_psrf = scalar_attr<double>(g.get(), "score_psrf", where);
        o.diagnostics.score_ess = scalar_attr<double>(g.get(), "score_ess", where);
        o.diagnostics.edges.max_psrf = scalar_attr<double>(g.get(), "edge_psrf_max", where);
        o.diagnostics.edges.fraction_above = scalar_attr<double>(g.get(), "edge_psrf_fraction_above", where);
        o.diagnostics.edges.edges_counted = scalar_attr<std::int64_t>(g.get(), "edges_counted", where);
        o.diagnostics.edges.max_chain_difference = scalar_attr<double>(g.get(), "max_chain_difference", where);
    }
    o.config = read_config(root, where);
    return o;
}

}  // namespace

LoadedResult load_result(const std::string& path) {
    if (!h5::has_hdf5_signature(path))
        throw InputError(path + ": not an HDF5 file (cudag.load reads the .h5 result of cudag pc, fci or mcmc)");
    const std::string where = path;
    h5::Handle file = h5::open_file(path);
    const hid_t root = file.get();
    const std::vector<std::string> format =
        h5::has_attr(root, "format") ? h5::read_string_attr(root, "format", where) : std::vector<std::string>{};
    LoadedResult out;
    if (format == std::vector<std::string>{io::pc_result_format})
        out.pc = read_pc(root, where);
    else if (format == std::vector<std::string>{io::mcmc_result_format})
        out.mcmc = read_mcmc(root, where);
    else
        throw InputError(where + ": an HDF5 file but not a cudag result (root attribute format = " +
                         (format.empty() ? std::string("none") : "'" + format.front() + "'") + ", expected '" +
                         io::pc_result_format + "' or '" + io::mcmc_result_format + "')");
    return out;
}

}  // namespace cudag::run
