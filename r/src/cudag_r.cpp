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
#include <cmath>
#include <cstdint>
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

Dataset matrix_dataset(const Rcpp::NumericMatrix& x, const std::vector<std::string>& names, const std::string& source) {
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
        if (std::isfinite(d.values[static_cast<std::size_t>(k)])) continue;
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

/// graph's graphNEL edge list (edgeL: per node list(edges = increasing 1-based targets)), its
/// edges' keys ("from|to", in edgeL's order: graph's edgeData names), and whether every edge
/// goes both ways (as() then makes an undirected graph). `out[a]`: a's targets, increasing.
Rcpp::List edge_list(const std::vector<std::vector<int>>& out, const std::vector<std::string>& names,
                     Rcpp::CharacterVector& keys, bool& symmetric) {
    const auto p = static_cast<std::int32_t>(out.size());
    Rcpp::List edge_l(p);
    std::vector<std::string> key;
    symmetric = true;
    for (std::int32_t a = 0; a < p; ++a) {
        const std::vector<int>& to = out[static_cast<std::size_t>(a)];
        Rcpp::IntegerVector edges(to.size());
        for (std::size_t k = 0; k < to.size(); ++k) {
            edges[static_cast<R_xlen_t>(k)] = to[k] + 1;
            const std::vector<int>& back = out[static_cast<std::size_t>(to[k])];
            symmetric = symmetric && std::binary_search(back.begin(), back.end(), a);
            std::string name = names[static_cast<std::size_t>(a)];
            name += '|';
            name += names[static_cast<std::size_t>(to[k])];
            key.push_back(std::move(name));
        }
        edge_l[a] = Rcpp::List::create(Rcpp::Named("edges") = edges);
    }
    edge_l.attr("names") = Rcpp::wrap(names);
    keys = Rcpp::wrap(key);
    return edge_l;
}

/// pcalg's pMax (p x p: -Inf where untested, 1 on the diagonal, each pair's largest p-value
/// both ways) and sepset (a list of p lists of p: NULL where none; the empty set at [[i]][[j]],
/// i < j, for a pair removed without a record (level 0), as pcalg stores it, but not for a
/// fixedGaps pair, never tested; a recorded set at both [[i]][[j]] and [[j]][[i]], 1-based).
void pcalg_tables(const pc::PcResult& r, SEXP fixed_gaps, Rcpp::List& out) {
    const std::int32_t p = r.skeleton.n();
    Rcpp::NumericMatrix pmax(p, p);
    double* m = pmax.begin();  // column-major: [a, b] at b * p + a
    const auto at = [p](std::int64_t a, std::int64_t b) { return static_cast<std::size_t>(b * p + a); };
    std::fill(pmax.begin(), pmax.end(), R_NegInf);
    for (std::int32_t i = 0; i < p; ++i) m[at(i, i)] = 1.0;
    if (std::all_of(r.pmax.begin(), r.pmax.end(), [](const skeleton::PairP& e) { return e.i < e.j; })) {
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
    Rcpp::List sepset(p);
    for (std::int32_t i = 0; i < p; ++i) sepset[i] = Rcpp::List(p);
    const int* gaps = Rf_isLogical(fixed_gaps) && Rf_xlength(fixed_gaps) == static_cast<R_xlen_t>(p) * p
                          ? LOGICAL(fixed_gaps)
                          : nullptr;
    const Rcpp::IntegerVector none(0);
    for (std::int32_t i = 0; i < p; ++i) {
        SEXP row = VECTOR_ELT(sepset, i);
        const std::vector<std::int32_t> nb = r.skeleton.neighbours(i);
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
        Rcpp::IntegerVector s(set.size());
        for (std::size_t k = 0; k < set.size(); ++k) s[static_cast<R_xlen_t>(k)] = set[k] + 1;
        SET_VECTOR_ELT(VECTOR_ELT(sepset, key.first), key.second, s);
        SET_VECTOR_ELT(VECTOR_ELT(sepset, key.second), key.first, s);
    }
    out["pMax"] = pmax;
    out["sepset"] = sepset;
}

/// The result as plain R vectors (0-based indices), and, for pcalg's objects (R/pc.R), its
/// pMax, sepset and graph edge list (`graph`) built here: in R they took most of a call.
Rcpp::List result_list(const pc::PcResult& r, const std::vector<std::string>& warnings, SEXP fixed_gaps,
                       GraphSlot graph) {
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
    // pMax as plain vectors only when asked (options(cudag.raw_pmax = TRUE): the tests'
    // reference); pcalg's matrix is built below (pcalg_tables) from the same list.
    std::vector<int> pi, pj;
    std::vector<double> pv;
    if (Rf_asLogical(Rf_GetOption1(Rf_install("cudag.raw_pmax"))) == TRUE) {
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
    Rcpp::List list = Rcpp::List::create(
        Rcpp::Named("names") = r.names, Rcpp::Named("skel_i") = si, Rcpp::Named("skel_j") = sj,
        Rcpp::Named("arc_from") = ea, Rcpp::Named("arc_to") = eb, Rcpp::Named("pmax_i") = pi,
        Rcpp::Named("pmax_j") = pj, Rcpp::Named("pmax_p") = pv, Rcpp::Named("sepset_i") = ki,
        Rcpp::Named("sepset_j") = kj, Rcpp::Named("sepset_len") = kl, Rcpp::Named("sepset_nodes") = nodes,
        Rcpp::Named("levels") = levels, Rcpp::Named("tests") = tests, Rcpp::Named("config") = config,
        Rcpp::Named("seconds") = r.seconds_total, Rcpp::Named("warnings") = warnings);
    pcalg_tables(r, fixed_gaps, list);
    if (graph != GraphSlot::None) {
        std::vector<std::vector<int>> to(static_cast<std::size_t>(r.skeleton.n()));
        if (graph == GraphSlot::Skeleton) {
            for (std::int32_t i = 0; i < r.skeleton.n(); ++i) {
                const std::vector<std::int32_t> nb = r.skeleton.neighbours(i);
                to[static_cast<std::size_t>(i)].assign(nb.begin(), nb.end());
            }
        } else {
            for (std::size_t k = 0; k < ea.size(); ++k) to[static_cast<std::size_t>(ea[k])].push_back(eb[k]);
            for (std::vector<int>& t : to) std::sort(t.begin(), t.end());
        }
        bool symmetric = true;
        Rcpp::CharacterVector keys;
        list["edgeL"] = edge_list(to, r.names, keys, symmetric);
        list["edge_keys"] = keys;
        list["edgemode"] = symmetric ? "undirected" : "directed";
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
        // The transpose in blocks (element by element, C's columns are p doubles apart), then
        // the first non-finite value in (row, column) order named.
        constexpr std::int64_t kBlock = 64;
        bool finite = true;
        for (std::int64_t ib = 0; ib < p; ib += kBlock)
            for (std::int64_t jb = 0; jb < p; jb += kBlock)
                for (std::int64_t i = ib; i < std::min(ib + kBlock, p); ++i)
                    for (std::int64_t j = jb; j < std::min(jb + kBlock, p); ++j) {
                        const double v = col[j * p + i];
                        finite = finite && std::isfinite(v);
                        row[i * p + j] = v;
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
    job.data = "suffStat$data";
    job.test = test;
    if (test != skeleton::TestKind::FisherZ && test != skeleton::TestKind::CmiKnn) job.dof = ci::DofRule::Pcalg;
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
Rcpp::List cudag_pc(SEXP data, SEXP corr, double n, Rcpp::List args, bool skeleton_only, int triple_rule) {
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
        return result_list(pc::run_pc(in.data, cfg), {}, args["gaps"], graph);
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
    return result_list(*result, warnings, args["gaps"], graph);
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
