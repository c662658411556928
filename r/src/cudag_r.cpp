// SPDX-License-Identifier: Apache-2.0
// The R package's entry point into the cudag library (src/run/, src/pc/), as the Python
// module's (python/src/module.cpp): PC-stable on data held in R (a run::PcJob on the data
// in memory), or on a correlation matrix given as pcalg's suffStat list(C, n) (pc::run_pc
// with PcConfig::correlation). The R side (R/pc.R) builds pcalg's objects from the lists
// returned here. Errors come back as R errors (Rcpp's exception translation); Ctrl-C is
// looked at between levels and, every ~50 ms, inside them (core/interrupt.hpp's PollScope).
#include <Rcpp.h>

#include <hdf5.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/knowledge.hpp"
#include "io/table_reader.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "pc/run.hpp"
#include "run/fci.hpp"
#include "run/pc.hpp"

#include "cudag_r.hpp"

namespace cudag::rpkg {

mpi::Environment& environment() {
    static std::unique_ptr<mpi::Environment> env = [] {
        H5dont_atexit();  // cudag closes every HDF5 handle itself
        int argc = 0;
        char* none[] = {nullptr};
        char** argv = none;
        return std::make_unique<mpi::Environment>(argc, argv);
    }();
    return *env;
}

static void check_interrupt_fn(void*) { R_CheckUserInterrupt(); }

void throw_if_interrupted() {
    if (R_ToplevelExec(check_interrupt_fn, nullptr) == FALSE) throw InputError("interrupted by the user");
}

Dataset matrix_dataset(const Rcpp::NumericMatrix& x, const std::vector<std::string>& names, const std::string& source,
                       bool keep_missing) {
    Dataset d;
    d.n_samples = x.nrow();
    d.n_vars = x.ncol();
    d.names = names;
    d.source = source;
    if (d.n_samples == 0) throw InputError(source + ": the data have no rows (samples)");
    if (static_cast<std::int64_t>(names.size()) != d.n_vars)
        throw InputError(source + ": " + std::to_string(names.size()) + " labels for " + std::to_string(d.n_vars) +
                         " columns");
    d.values.assign(x.begin(), x.end());
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(d.values.size()); ++k) {
        double& value = d.values[static_cast<std::size_t>(k)];
        if (std::isfinite(value)) continue;
        if (keep_missing && std::isnan(value)) {
            value = std::numeric_limits<double>::quiet_NaN();  // R's NA is a NaN with a payload
            ++d.missing;
            continue;
        }
        const std::int64_t v = k / d.n_samples, r = k % d.n_samples;
        std::string msg = source;
        msg += ": ";
        msg += std::isnan(d.values[static_cast<std::size_t>(k)]) ? "NA" : "an infinite value";
        msg += " at row " + std::to_string(r + 1) + ", column " + std::to_string(v + 1) + " '" +
               names[static_cast<std::size_t>(v)] + "'";
        throw InputError(msg);
    }
    return d;
}

}  // namespace cudag::rpkg

namespace {

using namespace cudag;
using namespace cudag::rpkg;

/// pcalg's fixedGaps / fixedEdges (p x p logical, symmetric) as cudag's forbidden /
/// required pairs.
std::vector<KnowledgeLine> pairs_of(SEXP m, const std::vector<std::string>& names, const std::string& what) {
    std::vector<KnowledgeLine> out;
    if (Rf_isNull(m)) return out;
    const Rcpp::LogicalMatrix a(m);
    const auto p = static_cast<int>(names.size());
    if (a.nrow() != p || a.ncol() != p)
        throw InputError(what + " must be a " + std::to_string(p) + " x " + std::to_string(p) + " logical matrix");
    for (int j = 0; j < p; ++j)
        for (int i = 0; i < j; ++i) {
            const int aij = a(i, j), aji = a(j, i);
            if (aij == NA_LOGICAL || aji == NA_LOGICAL) throw InputError(what + " holds NA");
            if (aij != aji)
                throw InputError(what + " must be symmetric: [" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                                 "] differs from [" + std::to_string(j + 1) + ", " + std::to_string(i + 1) + "]");
            if (aij)
                out.push_back({what, {names[static_cast<std::size_t>(i)], "--", names[static_cast<std::size_t>(j)]}});
        }
    return out;
}

/// What of pcalg's objects result_list builds beside the plain vectors.
enum class GraphSlot {
    None,      ///< no graph (FCI: R/fci.R builds the PAG's amat)
    Cpdag,     ///< pc(): the CPDAG, as graph's as(<numeric amat>, "graphNEL")
    Skeleton,  ///< skeleton(): the skeleton (R/pc.R makes its weights integers, as as(<logical amat>) does)
};

/// Whether the plain vectors of the result are wanted beside pcalg's objects, pMax's too
/// (options(cudag.raw_pmax = TRUE): the tests' reference).
bool raw_wanted() { return Rf_asLogical(Rf_GetOption1(Rf_install("cudag.raw_pmax"))) == TRUE; }

/// The targets of every node, increasing (`out[a]`: a's targets): the skeleton both ways
/// (GraphSlot::Skeleton) or the CPDAG's marks (a --> b as (a, b), a --- b both ways).
std::vector<std::vector<int>> graph_targets(const pc::PcResult& r, GraphSlot graph) {
    std::vector<std::vector<int>> to(static_cast<std::size_t>(r.skeleton.n()));
    if (graph == GraphSlot::Skeleton) {
        for (std::int32_t i = 0; i < r.skeleton.n(); ++i) {
            const std::vector<std::int32_t> nb = r.skeleton.neighbours(i);
            to[static_cast<std::size_t>(i)].assign(nb.begin(), nb.end());
        }
        return to;
    }
    const Pdag& g = r.cpdag;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (g.is_directed(a, b) || g.is_undirected(a, b)) to[static_cast<std::size_t>(a)].push_back(b);
    for (std::vector<int>& t : to) std::sort(t.begin(), t.end());
    return to;
}

/// The number of edges of `out` (graph_targets).
std::size_t edge_count(const std::vector<std::vector<int>>& out) {
    std::size_t n = 0;
    for (const std::vector<int>& t : out) n += t.size();
    return n;
}

/// graph's graphNEL edge list (edgeL: per node list(edges = increasing 1-based targets),
/// named by `names`), unprotected; its edges' keys ("from|to", in edgeL's order: graph's
/// edgeData names) written to `keys` (edge_count(out) strings), and whether every edge goes
/// both ways (as() then makes an undirected graph).
SEXP edge_list(const std::vector<std::vector<int>>& out, const std::vector<std::string>& labels, SEXP names, SEXP keys,
               bool& symmetric) {
    const auto p = static_cast<std::int32_t>(out.size());
    SEXP edge_l = PROTECT(Rf_allocVector(VECSXP, p));
    SEXP edges_name = PROTECT(Rf_mkString("edges"));
    symmetric = true;
    R_xlen_t k = 0;
    std::string key;
    for (std::int32_t a = 0; a < p; ++a) {
        const std::vector<int>& to = out[static_cast<std::size_t>(a)];
        SEXP node = Rf_allocVector(VECSXP, 1);
        SET_VECTOR_ELT(edge_l, a, node);
        Rf_setAttrib(node, R_NamesSymbol, edges_name);
        SEXP edges = Rf_allocVector(INTSXP, static_cast<R_xlen_t>(to.size()));
        SET_VECTOR_ELT(node, 0, edges);
        int* e = INTEGER(edges);
        for (std::size_t q = 0; q < to.size(); ++q) {
            e[q] = to[q] + 1;
            const std::vector<int>& back = out[static_cast<std::size_t>(to[q])];
            symmetric = symmetric && std::binary_search(back.begin(), back.end(), a);
            key = labels[static_cast<std::size_t>(a)];
            key += '|';
            key += labels[static_cast<std::size_t>(to[q])];
            SET_STRING_ELT(keys, k++, Rf_mkCharLen(key.data(), static_cast<int>(key.size())));
        }
    }
    Rf_setAttrib(edge_l, R_NamesSymbol, names);
    UNPROTECT(2);
    return edge_l;
}

/// pcalg's pMax (p x p: -Inf where untested, 1 on the diagonal, each pair's largest p-value
/// both ways), unprotected.
SEXP pmax_matrix(const pc::PcResult& r) {
    const std::int32_t p = r.skeleton.n();
    SEXP pmax = Rf_allocMatrix(REALSXP, p, p);
    double* m = REAL(pmax);  // column-major: [a, b] at b * p + a
    const auto at = [p](std::int64_t a, std::int64_t b) { return static_cast<std::size_t>(b * p + a); };
    const bool upper = std::all_of(r.pmax.begin(), r.pmax.end(), [](const skeleton::PairP& e) { return e.i < e.j; });
    // Every pair listed once (pairs i < j in increasing order, p(p-1)/2 of them: a dense
    // table's) writes every entry off the diagonal: no -Inf first.
    const bool every_pair =
        upper && r.pmax.size() == static_cast<std::size_t>(p) * static_cast<std::size_t>(p - 1) / 2 &&
        std::adjacent_find(r.pmax.begin(), r.pmax.end(), [](const skeleton::PairP& a, const skeleton::PairP& b) {
            return !(a.i < b.i || (a.i == b.i && a.j < b.j));
        }) == r.pmax.end();
    if (!every_pair) std::fill(m, m + static_cast<std::size_t>(p) * static_cast<std::size_t>(p), R_NegInf);
    for (std::int32_t i = 0; i < p; ++i) m[at(i, i)] = 1.0;
    if (upper) {
        // [j, i] (column i, rows j > i: in the list's order, contiguous), then the upper
        // triangle [i, j] as its transpose, in blocks (a row-wise [i, j] pass strides p).
        for (const auto& e : r.pmax) m[at(e.j, e.i)] = e.p;
        constexpr std::int64_t kBlock = 64;
        for (std::int64_t cb = 0; cb < p; cb += kBlock)
            for (std::int64_t rb = 0; rb <= cb; rb += kBlock)
                for (std::int64_t c = cb; c < std::min<std::int64_t>(cb + kBlock, p); ++c)
                    for (std::int64_t a = rb; a < std::min(rb + kBlock, c); ++a) m[at(a, c)] = m[at(c, a)];
    } else {
        for (const auto& e : r.pmax) m[at(e.i, e.j)] = e.p;  // as R's two assignments: [i, j] first, then [j, i]
        for (const auto& e : r.pmax) m[at(e.j, e.i)] = e.p;
    }
    return pmax;
}

/// pcalg's sepset (a list of p lists of p: NULL where none; the empty set at [[i]][[j]],
/// i < j, for a pair removed without a record (level 0), as pcalg stores it, but not for a
/// fixedGaps pair, never tested; a recorded set at both [[i]][[j]] and [[j]][[i]], 1-based),
/// unprotected. One integer(0) serves every empty set, as R's rep(list(integer(0)), k).
SEXP sepset_list(const pc::PcResult& r, SEXP fixed_gaps) {
    const std::int32_t p = r.skeleton.n();
    SEXP sepset = PROTECT(Rf_allocVector(VECSXP, p));
    const int* gaps = Rf_isLogical(fixed_gaps) && Rf_xlength(fixed_gaps) == static_cast<R_xlen_t>(p) * p
                          ? LOGICAL(fixed_gaps)
                          : nullptr;
    SEXP none = PROTECT(Rf_allocVector(INTSXP, 0));
    std::vector<std::int32_t> nb;
    for (std::int32_t i = 0; i < p; ++i) {
        SEXP row = Rf_allocVector(VECSXP, p);
        SET_VECTOR_ELT(sepset, i, row);
        nb = r.skeleton.neighbours(i);
        auto it = std::upper_bound(nb.begin(), nb.end(), i);
        for (std::int32_t j = i + 1; j < p; ++j) {
            if (it != nb.end() && *it == j) {
                ++it;
                continue;
            }
            if (gaps != nullptr && gaps[static_cast<std::size_t>(j) * static_cast<std::size_t>(p) + i] != 0) continue;
            SET_VECTOR_ELT(row, j, none);
        }
    }
    for (const auto& [key, set] : r.sepsets.all()) {
        SEXP s = Rf_allocVector(INTSXP, static_cast<R_xlen_t>(set.size()));
        int* v = INTEGER(s);
        for (std::size_t k = 0; k < set.size(); ++k) v[k] = set[k] + 1;
        SET_VECTOR_ELT(VECTOR_ELT(sepset, key.first), key.second, s);
        SET_VECTOR_ELT(VECTOR_ELT(sepset, key.second), key.first, s);
    }
    UNPROTECT(2);
    return sepset;
}

/// pMax and sepset added to `out` (FCI and the plain list without pcalg).
void pcalg_tables(const pc::PcResult& r, SEXP fixed_gaps, Rcpp::List& out) {
    out["pMax"] = Rcpp::RObject(pmax_matrix(r));
    out["sepset"] = Rcpp::RObject(sepset_list(r, fixed_gaps));
}

/// pcalg's n.edgetests (tests per level 0..max) as R/pc.R's .parts forms it; max.ord is
/// its length - 1.
std::vector<double> edge_tests(const pc::PcResult& r) {
    int top = 0;
    for (const auto& s : r.levels) top = std::max(top, s.level);
    std::vector<double> out(static_cast<std::size_t>(top) + 1, 0.0);
    for (const auto& s : r.levels) out[static_cast<std::size_t>(s.level)] = static_cast<double>(s.tests);
    return out;
}

/// One slot of an S4 object set from C++: a value made here (not yet referenced) skips R's
/// check for a cycle through it, which walks every element of a list (the p x p sepset).
void set_slot(SEXP obj, const char* name, SEXP value) {
    PROTECT(value);
    R_do_slot_assign(obj, Rf_install(name), value);
    UNPROTECT(1);
}

/// The list `x` with its element `name` set to `value` (appended where absent), a copy.
SEXP with_element(SEXP x, const char* name, SEXP value) {
    PROTECT(value);
    const R_xlen_t n = Rf_xlength(x);
    SEXP names = Rf_getAttrib(x, R_NamesSymbol);
    R_xlen_t at = n;
    for (R_xlen_t k = 0; k < n && !Rf_isNull(names); ++k)
        if (std::string(CHAR(STRING_ELT(names, k))) == name) at = k;
    SEXP out = PROTECT(Rf_allocVector(VECSXP, at == n ? n + 1 : n));
    SEXP out_names = PROTECT(Rf_allocVector(STRSXP, Rf_xlength(out)));
    for (R_xlen_t k = 0; k < n; ++k) {
        SET_VECTOR_ELT(out, k, VECTOR_ELT(x, k));
        SET_STRING_ELT(out_names, k, Rf_isNull(names) ? R_BlankString : STRING_ELT(names, k));
    }
    SET_VECTOR_ELT(out, at, value);
    SET_STRING_ELT(out_names, at, Rf_mkChar(name));
    Rf_setAttrib(out, R_NamesSymbol, out_names);
    UNPROTECT(3);
    return out;
}

/// The graphNEL of `graph` on the prototype `proto` (R/pc.R's .shapes: new(<graphNEL>)), as
/// graph's as(<adjacency matrix>, "graphNEL") makes it of the same graph (pc: a numeric
/// matrix; skeleton: a logical one, whose edge weights are integers): nodes, edgeL,
/// graphData's edgemode and edgeData's weights set (graph's initialize would run validGraph
/// over every node and edge). Unprotected.
SEXP graph_object(const pc::PcResult& r, GraphSlot graph, const std::vector<std::string>& labels, SEXP names,
                  SEXP proto) {
    SEXP g = PROTECT(Rf_shallow_duplicate(proto));
    set_slot(g, "nodes", names);
    const std::vector<std::vector<int>> to = graph_targets(r, graph);
    const std::size_t n_edges = edge_count(to);
    if (n_edges == 0) {
        SEXP edge_l = PROTECT(Rf_allocVector(VECSXP, static_cast<R_xlen_t>(labels.size())));
        Rf_setAttrib(edge_l, R_NamesSymbol, names);
        set_slot(g, "edgeL", edge_l);
        set_slot(g, "graphData",
                 with_element(R_do_slot(g, Rf_install("graphData")), "edgemode", Rf_mkString("undirected")));
        UNPROTECT(2);
        return g;
    }
    bool symmetric = true;
    SEXP keys = PROTECT(Rf_allocVector(STRSXP, static_cast<R_xlen_t>(n_edges)));
    SEXP edge_l = PROTECT(edge_list(to, labels, names, keys, symmetric));
    set_slot(g, "edgeL", edge_l);
    set_slot(g, "graphData",
             with_element(R_do_slot(g, Rf_install("graphData")), "edgemode",
                          Rf_mkString(symmetric ? "undirected" : "directed")));
    // list(weight = w) for every edge (one object, as R's rep(list(list(weight = w)), k)).
    SEXP weight = PROTECT(graph == GraphSlot::Skeleton ? Rf_ScalarInteger(1) : Rf_ScalarReal(1.0));
    SEXP one = PROTECT(Rf_allocVector(VECSXP, 1));
    SET_VECTOR_ELT(one, 0, weight);
    Rf_setAttrib(one, R_NamesSymbol, Rf_mkString("weight"));
    SEXP data = PROTECT(Rf_allocVector(VECSXP, static_cast<R_xlen_t>(n_edges)));
    for (R_xlen_t k = 0; k < static_cast<R_xlen_t>(n_edges); ++k) SET_VECTOR_ELT(data, k, one);
    Rf_setAttrib(data, R_NamesSymbol, keys);
    SEXP defaults = PROTECT(Rf_allocVector(VECSXP, 1));
    SET_VECTOR_ELT(defaults, 0, weight);
    Rf_setAttrib(defaults, R_NamesSymbol, Rf_mkString("weight"));
    SEXP edge_data = PROTECT(Rf_shallow_duplicate(R_do_slot(g, Rf_install("edgeData"))));
    set_slot(edge_data, "data", data);
    set_slot(edge_data, "defaults", defaults);
    set_slot(g, "edgeData", edge_data);
    UNPROTECT(8);
    return g;
}

/// pcalg's pcAlgo of the result on the prototypes of R/pc.R's .shapes (list(pcAlgo, graphNEL,
/// call)): its slots set here, each value made for it (R's `@<-` walked the sepset's p²
/// elements looking for a cycle). Unprotected.
SEXP pcalg_object(const pc::PcResult& r, SEXP fixed_gaps, GraphSlot graph, const std::vector<std::string>& labels,
                  SEXP names, SEXP shapes) {
    const auto shape = [shapes](const char* what) {
        SEXP n = Rf_getAttrib(shapes, R_NamesSymbol);
        for (R_xlen_t k = 0; k < Rf_xlength(shapes); ++k)
            if (std::string(CHAR(STRING_ELT(n, k))) == what) return VECTOR_ELT(shapes, k);
        throw InputError(std::string("cudag: the prototypes lack ") + what);
    };
    SEXP obj = PROTECT(Rf_shallow_duplicate(shape("pcAlgo")));
    set_slot(obj, "graph", graph_object(r, graph, labels, names, shape("graphNEL")));
    R_do_slot_assign(obj, Rf_install("call"), shape("call"));
    set_slot(obj, "n", Rf_allocVector(INTSXP, 0));
    const std::vector<double> tests = edge_tests(r);
    set_slot(obj, "max.ord", Rf_ScalarInteger(static_cast<int>(tests.size()) - 1));
    SEXP n_tests = PROTECT(Rf_allocVector(REALSXP, static_cast<R_xlen_t>(tests.size())));
    std::copy(tests.begin(), tests.end(), REAL(n_tests));
    set_slot(obj, "n.edgetests", n_tests);
    set_slot(obj, "sepset", sepset_list(r, fixed_gaps));
    set_slot(obj, "pMax", pmax_matrix(r));
    SEXP z = PROTECT(Rf_allocMatrix(LGLSXP, 1, 1));
    LOGICAL(z)[0] = NA_LOGICAL;
    set_slot(obj, "zMin", z);
    UNPROTECT(3);
    return obj;
}

/// The result as plain R vectors (0-based indices): the skeleton, the CPDAG's marks, the
/// separating sets, the tests per level, the settings; pMax's only when asked
/// (options(cudag.raw_pmax = TRUE): the tests' reference).
Rcpp::List plain_list(const pc::PcResult& r, const std::vector<std::string>& warnings) {
    std::vector<int> si, sj;
    for (std::int32_t i = 0; i < r.skeleton.n(); ++i)
        for (const std::int32_t j : r.skeleton.neighbours(i))
            if (i < j) {
                si.push_back(i);
                sj.push_back(j);
            }
    // The CPDAG as an adjacency list of marks: a --> b is (a, b); a --- b both ways.
    std::vector<int> ea, eb;
    const Pdag& g = r.cpdag;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (g.is_directed(a, b) || g.is_undirected(a, b)) {
                ea.push_back(a);
                eb.push_back(b);
            }
    std::vector<int> pi, pj;
    std::vector<double> pv;
    if (raw_wanted()) {
        pi.reserve(r.pmax.size());
        pj.reserve(r.pmax.size());
        pv.reserve(r.pmax.size());
        for (const auto& e : r.pmax) {
            pi.push_back(e.i);
            pj.push_back(e.j);
            pv.push_back(e.p);
        }
    }
    std::vector<int> ki, kj, kl;
    std::vector<int> nodes;
    for (const auto& [key, set] : r.sepsets.all()) {
        ki.push_back(key.first);
        kj.push_back(key.second);
        kl.push_back(static_cast<int>(set.size()));
        nodes.insert(nodes.end(), set.begin(), set.end());
    }
    std::vector<double> tests;
    std::vector<int> levels;
    for (const auto& s : r.levels) {
        levels.push_back(s.level);
        tests.push_back(static_cast<double>(s.tests));
    }
    std::vector<std::string> ck, cv;
    for (const auto& [k, v] : r.config) {
        ck.push_back(k);
        cv.push_back(v);
    }
    Rcpp::CharacterVector config = Rcpp::wrap(cv);
    config.attr("names") = Rcpp::wrap(ck);
    return Rcpp::List::create(Rcpp::Named("names") = r.names, Rcpp::Named("skel_i") = si, Rcpp::Named("skel_j") = sj,
                              Rcpp::Named("arc_from") = ea, Rcpp::Named("arc_to") = eb, Rcpp::Named("pmax_i") = pi,
                              Rcpp::Named("pmax_j") = pj, Rcpp::Named("pmax_p") = pv, Rcpp::Named("sepset_i") = ki,
                              Rcpp::Named("sepset_j") = kj, Rcpp::Named("sepset_len") = kl,
                              Rcpp::Named("sepset_nodes") = nodes, Rcpp::Named("levels") = levels,
                              Rcpp::Named("tests") = tests, Rcpp::Named("config") = config,
                              Rcpp::Named("seconds") = r.seconds_total, Rcpp::Named("warnings") = warnings);
}

/// The result for R/pc.R: with pcalg's prototypes (`shapes`, R/pc.R's .shapes) the pcAlgo
/// built here (`object`) beside the warnings and the search's seconds, the plain vectors
/// only when asked (options(cudag.raw_pmax = TRUE): the tests' reference); without them
/// the plain vectors, pMax and sepset, and the graph's edge list unless `graph` is None.
Rcpp::List result_list(const pc::PcResult& r, const std::vector<std::string>& warnings, SEXP fixed_gaps,
                       GraphSlot graph, SEXP shapes = R_NilValue, SEXP names = R_NilValue) {
    if (!Rf_isNull(shapes)) {
        Rcpp::List list = raw_wanted() ? plain_list(r, warnings)
                                       : Rcpp::List::create(Rcpp::Named("seconds") = r.seconds_total,
                                                            Rcpp::Named("warnings") = warnings);
        list["object"] = Rcpp::RObject(pcalg_object(r, fixed_gaps, graph, r.names, names, shapes));
        return list;
    }
    Rcpp::List list = plain_list(r, warnings);
    pcalg_tables(r, fixed_gaps, list);
    if (graph != GraphSlot::None) {
        bool symmetric = true;
        const std::vector<std::vector<int>> to = graph_targets(r, graph);
        SEXP keys = PROTECT(Rf_allocVector(STRSXP, static_cast<R_xlen_t>(edge_count(to))));
        SEXP names_sexp = PROTECT(Rcpp::wrap(r.names));
        SEXP edge_l = PROTECT(edge_list(to, r.names, names_sexp, keys, symmetric));
        list["edgeL"] = Rcpp::RObject(edge_l);
        list["edge_keys"] = Rcpp::RObject(keys);
        list["edgemode"] = symmetric ? "undirected" : "directed";
        UNPROTECT(3);
    }
    return list;
}

/// The settings every search takes, from R/pc.R's list (.inputs): labels, test, alpha,
/// max_level, fixedGaps / fixedEdges (as knowledge), backend, threads, verbose, CMIknn's.
struct RunArgs {
    std::vector<std::string> names;
    std::string test, backend;
    double alpha = 0.01;
    int max_level = -1, threads = 0;
    bool verbose = false;
    bool adapt_df = false;  ///< disCItest / binCItest's adaptDF = TRUE
    KnowledgeValues knowledge;
    Rcpp::List cmi;

    explicit RunArgs(const Rcpp::List& a)
        : names(Rcpp::as<std::vector<std::string>>(a["labels"])),
          test(Rcpp::as<std::string>(a["test"])),
          backend(Rcpp::as<std::string>(a["backend"])),
          alpha(Rcpp::as<double>(a["alpha"])),
          max_level(Rcpp::as<int>(a["max_level"])),
          threads(Rcpp::as<int>(a["threads"])),
          verbose(Rcpp::as<bool>(a["verbose"])),
          adapt_df(Rcpp::as<bool>(a["adapt_df"])),
          cmi(Rcpp::as<Rcpp::List>(a["cmi"])) {
        knowledge.forbid = pairs_of(a["gaps"], names, "fixedGaps");
        knowledge.require = pairs_of(a["edges"], names, "fixedEdges");
    }
};

/// pcalg's suffStat list(C, n) for gaussCItest (R/pc.R's .inputs): the Dataset of its shape
/// (n samples, the labels, no values) and the skeleton search's settings with C as given
/// (pc::PcConfig::correlation), for PC (cudag_pc) and FCI / RFCI (cudag_fci) alike.
struct CorrelationInput {
    Dataset data;
    pc::PcConfig cfg;

    CorrelationInput(SEXP corr, double n, const RunArgs& a) {
        const std::vector<std::string>& names = a.names;
        const Rcpp::NumericMatrix c(corr);
        const auto p = static_cast<std::int64_t>(names.size());
        if (c.nrow() != p || c.ncol() != p)
            throw InputError("suffStat$C must be a " + std::to_string(p) + " x " + std::to_string(p) + " matrix");
        if (!(n >= 1) || n != std::floor(n)) throw InputError("suffStat$n must be a positive whole number");
        auto rowmajor = std::make_shared<std::vector<double>>(static_cast<std::size_t>(p * p));
        const double* col = c.begin();  // column-major: [i, j] at j * p + i
        double* row = rowmajor->data();
        // The transpose in blocks (element by element, C's columns are p doubles apart), a
        // block and its mirror together: whether C is bitwise symmetric comes with it (the
        // engine then skips its own pass). Then the first non-finite value in (row, column)
        // order named.
        constexpr std::int64_t kBlock = 64;
        bool finite = true, symmetric = true;
        for (std::int64_t ib = 0; ib < p; ib += kBlock)
            for (std::int64_t jb = ib; jb < p; jb += kBlock)
                for (std::int64_t i = ib; i < std::min(ib + kBlock, p); ++i)
                    for (std::int64_t j = jb; j < std::min(jb + kBlock, p); ++j) {
                        const double v = col[j * p + i], w = col[i * p + j];  // C[i, j], C[j, i]
                        finite = finite & std::isfinite(v) & std::isfinite(w);
                        symmetric = symmetric & (std::bit_cast<std::uint64_t>(v) == std::bit_cast<std::uint64_t>(w));
                        row[i * p + j] = v;
                        row[j * p + i] = w;
                    }
        for (std::int64_t k = 0; !finite && k < p * p; ++k)
            if (!std::isfinite(row[k]))
                throw InputError("suffStat$C holds a non-finite value at [" + std::to_string(k / p + 1) + ", " +
                                 std::to_string(k % p + 1) + "]");
        data.n_samples = static_cast<std::int64_t>(n);
        data.n_vars = p;
        data.names = names;
        data.source = "suffStat";
        cfg.test.kind = skeleton::TestKind::FisherZ;
        cfg.alpha = a.alpha;
        cfg.max_level = a.max_level;
        cfg.backend.kind = parse_backend(a.backend);
        cfg.backend.threads = a.threads;
        cfg.correlation = rowmajor;
        cfg.correlation_symmetric = symmetric;
        cfg.knowledge = read_knowledge({}, a.knowledge, names);
        cfg.on_level = [](const skeleton::LevelStats&) { throw_if_interrupted(); };
        if (a.verbose)
            cfg.on_level = [](const skeleton::LevelStats& s) {
                Rprintf("cudag: level %d: %lld tests, %lld edges removed, %lld left (%.3f s)\n", s.level,
                        static_cast<long long>(s.tests), static_cast<long long>(s.removed),
                        static_cast<long long>(s.edges_after), s.seconds);
                throw_if_interrupted();
            };
    }
};

/// A PC job on data held in R: the test and its settings as cudag pc's options.
run::PcJob data_job(const RunArgs& a) {
    const skeleton::TestKind test = skeleton::parse_test(a.test);
    const Rcpp::List& cmi = a.cmi;
    run::PcJob job;
    // what the messages name: disCItest / binCItest read suffStat$dm
    job.data =
        test == skeleton::TestKind::FisherZ || test == skeleton::TestKind::CmiKnn ? "suffStat$data" : "suffStat$dm";
    job.test = test;
    if (test != skeleton::TestKind::FisherZ && test != skeleton::TestKind::CmiKnn)
        job.dof = a.adapt_df ? ci::DofRule::PcalgAdaptDf : ci::DofRule::Pcalg;
    job.cfg.alpha = a.alpha;
    job.cfg.max_level = a.max_level;
    job.cfg.backend.threads = a.threads;
    job.backend = parse_backend(a.backend);
    job.quiet = !a.verbose;
    job.verbose = a.verbose;
    job.knowledge.values = a.knowledge;
    if (test == skeleton::TestKind::CmiKnn) {
        const auto given = [&](const char* key) { return cmi.containsElementNamed(key); };
        if (given("knn")) job.cmi.spec.knn = Rcpp::as<double>(cmi["knn"]);
        if (given("shuffle.neighbors")) job.cmi.spec.shuffle_neighbors = Rcpp::as<int>(cmi["shuffle.neighbors"]);
        if (given("permutations")) job.cmi.spec.permutations = Rcpp::as<int>(cmi["permutations"]);
        if (given("transform"))
            job.cmi.spec.transform = ci::parse_cmi_transform(Rcpp::as<std::string>(cmi["transform"]));
        if (given("seed")) job.cmi.spec.seed = static_cast<std::uint64_t>(Rcpp::as<double>(cmi["seed"]));
    }
    return job;
}

/// The hooks of a job on `numbers` (discretised by value for a discrete test), Ctrl-C looked
/// at between levels, the library's notes collected in `warnings` for R's warning().
run::PcHooks data_hooks(const Dataset& numbers, std::vector<std::string>& warnings) {
    run::PcHooks hooks;
    hooks.in_process = true;
    hooks.whole_result = true;
    hooks.read = [&numbers](const io::ReadOptions& options) {
        Dataset d = numbers;
        if (options.mode == io::TableMode::Labels) io::discretize(d, d.source);
        return d;
    };
    hooks.level = [](const skeleton::LevelStats&) { throw_if_interrupted(); };
    hooks.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
    return hooks;
}

}  // namespace

// [[Rcpp::export(.cudag_pc)]]
Rcpp::List cudag_pc(SEXP data, SEXP corr, double n, Rcpp::List args, bool skeleton_only, int triple_rule, SEXP shapes) {
    const RunArgs a(args);
    const interrupt::PollScope poll(throw_if_interrupted);  // Ctrl-C inside a level too
    const std::vector<std::string>& names = a.names;
    const GraphSlot graph = skeleton_only ? GraphSlot::Skeleton : GraphSlot::Cpdag;

    if (!Rf_isNull(corr)) {  // pcalg's suffStat list(C, n): C used as given
        CorrelationInput in(corr, n, a);
        pc::PcConfig& cfg = in.cfg;
        cfg.orient = !skeleton_only;
        cfg.conservative = triple_rule == 1;
        cfg.majority = triple_rule == 2;
        run::set_triple_check(cfg);
        return result_list(pc::run_pc(in.data, cfg), {}, args["gaps"], graph, shapes, args["labels"]);
    }

    run::PcJob job = data_job(a);
    job.cfg.orient = !skeleton_only;
    job.cfg.conservative = triple_rule == 1;
    job.cfg.majority = triple_rule == 2;
    const Dataset numbers = matrix_dataset(Rcpp::NumericMatrix(data), names, job.data);
    std::vector<std::string> warnings;
    run::PcHooks hooks = data_hooks(numbers, warnings);
    mpi::Environment& env = environment();
    std::unique_ptr<mpi::Communicator> comm = env.world();
    std::optional<pc::PcResult> result = std::move(run::run_pc(job, "cudag::pc", env, comm, hooks).result);
    if (!result) return Rcpp::List();  // a rank other than 0 under MPI
    return result_list(*result, warnings, args["gaps"], graph, shapes, args["labels"]);
}

// [[Rcpp::export(.cudag_fci)]]
Rcpp::List cudag_fci(SEXP data, SEXP corr, double n, Rcpp::List args, std::string variant, std::string type,
                     int pdsep_max, bool do_pdsep, int triple_rule, bool selection_bias) {
    const RunArgs a(args);
    const interrupt::PollScope poll(throw_if_interrupted);  // Ctrl-C inside a level too
    run::FciJob job;
    job.pc = data_job(a);
    job.fci.variant = fci::parse_variant(variant);
    job.fci.type = fci::parse_fci_type(type);
    job.fci.pdsep = do_pdsep;
    job.fci.pdsep_max = pdsep_max;
    job.fci.conservative = triple_rule == 1;
    job.fci.majority = triple_rule == 2;
    job.no_selection_bias = !selection_bias;
    std::vector<std::string> warnings;
    std::optional<pc::PcResult> result;
    if (!Rf_isNull(corr)) {  // pcalg's suffStat list(C, n): C used as given, as cudag_pc uses it
        const CorrelationInput in(corr, n, a);
        result = run::run_fci(in.data, in.cfg, job);
    } else {
        const Dataset numbers = matrix_dataset(Rcpp::NumericMatrix(data), a.names, job.pc.data);
        run::PcHooks hooks = data_hooks(numbers, warnings);
        mpi::Environment& env = environment();
        std::unique_ptr<mpi::Communicator> comm = env.world();
        result = std::move(run::run_fci(job, "cudag::" + variant, env, comm, hooks).result);
    }
    if (!result) return Rcpp::List();  // a rank other than 0 under MPI
    Rcpp::List out = result_list(*result, warnings, args["gaps"], GraphSlot::None);
    std::vector<int> pa, pb, ma, mb;  // the PAG's edges a < b with the marks at a and at b
    if (result->pag) {
        const Pag& g = *result->pag;
        for (std::int32_t a = 0; a < g.n(); ++a)
            for (const std::int32_t b : g.neighbours(a))
                if (a < b) {
                    pa.push_back(a);
                    pb.push_back(b);
                    ma.push_back(g(b, a));
                    mb.push_back(g(a, b));
                }
    }
    out["pag_a"] = pa;
    out["pag_b"] = pb;
    out["mark_a"] = ma;
    out["mark_b"] = mb;
    return out;
}
