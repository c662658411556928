// SPDX-License-Identifier: Apache-2.0
// bnlearn's face on the cudag library (R/bnlearn.R builds bnlearn's objects from the lists
// returned here): the score of a given DAG (`cudag score`'s scorers), order MCMC (a
// run::McmcJob on the data in memory, with or without --bootstrap) and PC-stable with
// directed background knowledge and --bootstrap (a run::PcJob). Errors come back as R errors;
// Ctrl-C is looked at between levels, chain progress reports and score-table phases.
#include <Rcpp.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bn/mcmc_run.hpp"
#include "bootstrap/resample.hpp"
#include "bn/score.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "io/table_reader.hpp"
#include "run/citest.hpp"
#include "run/mcmc.hpp"
#include "run/pc.hpp"
#include "run/score_inputs.hpp"

#include "cudag_r.hpp"

namespace {

using namespace cudag;
using namespace cudag::rpkg;

/// Ctrl-C looked at from a library callback: on R's own thread only (a bootstrap replicate's
/// callbacks may come from a worker thread, where R must not be called).
void check_interrupt_on(std::thread::id r_thread) {
    if (std::this_thread::get_id() == r_thread) throw_if_interrupted();
}

/// R/bnlearn.R's data matrix as a Dataset: a factor's column holds its codes 1..r, and
/// `args$levels` (one entry a column: a factor's levels, none for a number) makes it a
/// discrete variable with every declared level (codes 0..r-1), used or not, as bnlearn counts
/// them. With `keep_missing`, NA cells are missing (Dataset::missing) instead of refused.
Dataset bn_dataset(const Rcpp::NumericMatrix& data, const Rcpp::List& args, const std::string& source,
                   bool keep_missing = false) {
    const auto names = Rcpp::as<std::vector<std::string>>(args["labels"]);
    Dataset d = matrix_dataset(data, names, source, keep_missing);
    const Rcpp::List levels = args["levels"];
    if (levels.size() != d.n_vars) throw LogicError("bn_dataset: one entry of levels a column expected");
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        auto declared = Rcpp::as<std::vector<std::string>>(levels[static_cast<R_xlen_t>(v)]);
        if (declared.empty()) continue;
        if (static_cast<std::int64_t>(declared.size()) > io::kMaxLevels)
            throw InputError(source + ": factor '" + names[static_cast<std::size_t>(v)] + "' has " +
                             std::to_string(declared.size()) + " levels; a discrete variable may have at most " +
                             std::to_string(io::kMaxLevels));
        if (d.levels.empty()) d.levels.resize(static_cast<std::size_t>(d.n_vars));
        d.levels[static_cast<std::size_t>(v)] = std::move(declared);
        double* col = d.column(v);
        for (std::int64_t k = 0; k < d.n_samples; ++k) col[k] -= 1.0;  // NaN stays NaN
    }
    return d;
}

/// A reader handing over `numbers` (a column without levels discretised by value when the job
/// reads labels).
run::DataReader numbers_reader(const Dataset& numbers) {
    return [&numbers](const io::ReadOptions& options) {
        Dataset d = numbers;
        if (options.mode == io::TableMode::Labels) io::discretize(d, d.source);
        return d;
    };
}

/// The score settings from R/bnlearn.R's list: score (cudag's name), iss, am, aw (NA: the
/// default), the discrete columns of cg-bic.
run::ScoreJob score_job(const Rcpp::List& a) {
    run::ScoreJob s;
    s.declared_levels = true;  // bnlearn's bic counts a factor's declared levels
    s.score = bn::parse_score(Rcpp::as<std::string>(a["score"]));
    if (s.score == bn::ScoreKind::BDeu) {
        s.iss = Rcpp::as<double>(a["iss"]);
        s.iss_given = true;
    }
    if (s.score == bn::ScoreKind::BGe) {
        s.am = Rcpp::as<double>(a["am"]);
        s.am_given = true;
        const double aw = Rcpp::as<double>(a["aw"]);
        if (!std::isnan(aw)) {
            s.aw = aw;
            s.aw_given = true;
        }
    }
    if (s.score == bn::ScoreKind::CgBic) s.discrete_columns = Rcpp::as<std::vector<std::string>>(a["discrete"]);
    return s;
}

/// Background knowledge lines ("a -> b") from two character vectors (from, to).
std::vector<KnowledgeLine> arc_lines(const Rcpp::List& a, const char* from, const char* to, const std::string& what,
                                     const char* link = "->") {
    const auto f = Rcpp::as<std::vector<std::string>>(a[from]);
    const auto t = Rcpp::as<std::vector<std::string>>(a[to]);
    std::vector<KnowledgeLine> out;
    for (std::size_t k = 0; k < f.size() && k < t.size(); ++k) out.push_back({what, {f[k], link, t[k]}});
    return out;
}

/// A bootstrap table as R vectors: pairs (0-based, i < j) and the five CPDAG-kind counts.
void add_table(Rcpp::List& out, const bootstrap::Table& t) {
    std::vector<int> pi, pj, none, fwd, bwd, und, bid;
    for (std::size_t k = 0; k < t.size(); ++k) {
        pi.push_back(t.pairs[2 * k]);
        pj.push_back(t.pairs[2 * k + 1]);
        const std::int32_t* c = &t.counts[k * t.columns()];
        none.push_back(c[bootstrap::kNoEdge]);
        fwd.push_back(c[bootstrap::kForward]);
        bwd.push_back(c[bootstrap::kBackward]);
        und.push_back(c[bootstrap::kUndirected]);
        bid.push_back(c[bootstrap::kBidirected]);
    }
    out["boot_i"] = pi;
    out["boot_j"] = pj;
    out["boot_forward"] = fwd;
    out["boot_backward"] = bwd;
    out["boot_undirected"] = und;
    out["boot_bidirected"] = bid;
    out["replicates"] = static_cast<double>(t.replicates);
}

/// A graph's marks as (from, to) rows, 0-based: a --> b once, a --- b both ways, and a <-> b
/// (conflicting v-structures under pcalg's relaxed orientation) both ways too: a bn has no
/// bidirected arc, and bnlearn counts an undirected one half each way as the table does.
void add_arcs(Rcpp::List& out, const Pdag& g) {
    std::vector<int> ea, eb;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (g.is_directed(a, b) || g.is_undirected(a, b) || g.is_bidirected(a, b)) {
                ea.push_back(a);
                eb.push_back(b);
            }
    out["arc_from"] = ea;
    out["arc_to"] = eb;
}

}  // namespace

// [[Rcpp::export(.cudag_bn_score)]]
Rcpp::NumericVector cudag_bn_score(Rcpp::NumericMatrix data, Rcpp::List args, Rcpp::List parents) {
    const run::ScoreJob s = score_job(args);
    const bn::ScoreKind kind = run::check_score_options(s);
    const Dataset numbers = bn_dataset(data, args, "data");
    const run::ScoreInputs inputs = run::read_score_inputs("data", "", kind, s, numbers_reader(numbers));
    bn::Dag dag;
    for (R_xlen_t v = 0; v < parents.size(); ++v)
        dag.parents.push_back(Rcpp::as<std::vector<std::int32_t>>(parents[v]));
    if (dag.n() != static_cast<std::int64_t>(inputs.names.size()))
        throw InputError("the network has " + std::to_string(dag.n()) + " nodes for " +
                         std::to_string(inputs.names.size()) + " variables");
    return Rcpp::wrap(inputs.scorer->local_scores(dag));
}

// [[Rcpp::export(.cudag_bn_mcmc)]]
Rcpp::List cudag_bn_mcmc(Rcpp::NumericMatrix data, Rcpp::List args) {
    const interrupt::PollScope poll(throw_if_interrupted);  // Ctrl-C inside a phase, and a bootstrap's waits
    run::McmcJob job;
    job.data = "data";
    job.score = score_job(args);
    job.max_parents = Rcpp::as<int>(args["max_parents"]);
    job.chains = Rcpp::as<int>(args["chains"]);
    job.iterations = static_cast<std::int64_t>(Rcpp::as<double>(args["iterations"]));
    const double burn_in = Rcpp::as<double>(args["burn_in"]);
    if (!std::isnan(burn_in)) job.burn_in = static_cast<std::int64_t>(burn_in);
    job.thin = static_cast<std::int64_t>(Rcpp::as<double>(args["thin"]));
    job.seed = static_cast<std::uint64_t>(Rcpp::as<double>(args["seed"]));
    job.space = run::parse_space(Rcpp::as<std::string>(args["space"]));
    job.alpha = Rcpp::as<double>(args["alpha"]);
    // --alpha applies to the PC skeleton of --space pc / iterative
    job.alpha_given = job.space.kind != run::SpaceKind::All;
    job.order_score = bn::parse_order_score(Rcpp::as<std::string>(args["order_score"]));
    job.moves = bn::parse_moves(Rcpp::as<std::string>(args["moves"]));
    job.edge_penalty = Rcpp::as<double>(args["edge_penalty"]);
    job.backend = parse_backend(Rcpp::as<std::string>(args["backend"]));
    job.threads = Rcpp::as<int>(args["threads"]);
    job.quiet = !Rcpp::as<bool>(args["verbose"]);
    job.verbose = !job.quiet;
    job.knowledge.values.forbid = arc_lines(args, "black_from", "black_to", "blacklist");
    job.knowledge.values.require = arc_lines(args, "white_from", "white_to", "whitelist");
    job.bootstrap = static_cast<std::int64_t>(Rcpp::as<double>(args["bootstrap"]));
    const Dataset numbers = bn_dataset(data, args, job.data);
    run::McmcHooks hooks;
    hooks.read = numbers_reader(numbers);
    const std::thread::id r_thread = std::this_thread::get_id();
    hooks.progress = [r_thread](const bn::McmcProgress&) { check_interrupt_on(r_thread); };
    hooks.table_progress = [r_thread](const char*, std::int64_t, std::int64_t) { check_interrupt_on(r_thread); };
    mpi::Environment& env = environment();
    std::unique_ptr<mpi::Communicator> comm = env.world();
    const run::McmcRun done = run::run_mcmc(job, "cudag::mcmc", env, comm, hooks);
    Rcpp::List out;
    if (done.bootstrap) {
        out["names"] = done.bootstrap->names;
        add_table(out, done.bootstrap->table);
        return out;
    }
    if (!done.output) return out;  // a rank other than 0 under MPI
    const bn::McmcOutput& o = *done.output;
    const auto n = static_cast<int>(o.names.size());
    Rcpp::NumericMatrix prob(n, n);  // [a, b]: the posterior of a --> b
    std::fill(prob.begin(), prob.end(), NA_REAL);
    if (!o.result.edge_prob.empty())
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) prob(a, b) = o.result.edge_prob[static_cast<std::size_t>(a * n + b)];
    out["names"] = o.names;
    out["edge_prob"] = prob;
    add_arcs(out, o.best_dag);
    out["best_score"] = o.best_dag_score;
    out["seconds"] = o.seconds_total;
    return out;
}

// [[Rcpp::export(.cudag_bn_pc)]]
Rcpp::List cudag_bn_pc(Rcpp::NumericMatrix data, Rcpp::List args) {
    const interrupt::PollScope poll(throw_if_interrupted);  // Ctrl-C inside a level, and boot.strength's waits
    run::PcJob job;
    job.data = "data";
    job.test = skeleton::parse_test(Rcpp::as<std::string>(args["test"]));
    // bnlearn's mi / x2: (rx - 1)(ry - 1)|S|, no small-sample rule; mi-adf / x2-adf: the
    // observed levels' df and 5 samples a cell
    if (ci::traits(*job.test).dof_rule)
        job.dof = Rcpp::as<bool>(args["adf"]) ? ci::DofRule::BnlearnAdf : ci::DofRule::Gpupc;
    job.cfg.alpha = Rcpp::as<double>(args["alpha"]);
    job.cfg.test.student_t = Rcpp::as<bool>(args["student_t"]);  // bnlearn's cor: the exact t test
    // bnlearn's pc.heuristic: which pairs each level examines
    job.cfg.bnlearn_search = true;
    // mi-cg: the factors' columns (codes) are discrete, the others continuous
    if (job.test == skeleton::TestKind::MiCg)
        job.discrete_columns = Rcpp::as<std::vector<std::string>>(args["discrete"]);
    job.cfg.max_level = Rcpp::as<int>(args["max_level"]);
    job.cfg.orient = !Rcpp::as<bool>(args["undirected"]);
    job.cfg.backend.threads = Rcpp::as<int>(args["threads"]);
    job.backend = parse_backend(Rcpp::as<std::string>(args["backend"]));
    job.quiet = !Rcpp::as<bool>(args["verbose"]);
    job.verbose = !job.quiet;
    job.knowledge.values.forbid = arc_lines(args, "black_from", "black_to", "blacklist");
    job.knowledge.values.require = arc_lines(args, "white_from", "white_to", "whitelist");
    // an arc whitelisted both ways: the pair adjacent, its direction learned (bnlearn's)
    for (KnowledgeLine& l : arc_lines(args, "pair_from", "pair_to", "whitelist", "--"))
        job.knowledge.values.require.push_back(std::move(l));
    job.bootstrap = static_cast<std::int64_t>(Rcpp::as<double>(args["bootstrap"]));
    job.cmi.spec.seed = static_cast<std::uint64_t>(Rcpp::as<double>(args["seed"]));
    // NA: each test on its locally complete rows, as bnlearn's (skeleton::TestSpec::bnlearn_missing)
    job.missing = MissingPolicy::Testwise;
    job.cfg.test.bnlearn_missing = true;
    const Dataset numbers = bn_dataset(data, args, job.data, true);
    std::vector<std::string> warnings;
    run::PcHooks hooks;
    hooks.in_process = true;
    hooks.whole_result = true;
    hooks.read = numbers_reader(numbers);
    const std::thread::id r_thread = std::this_thread::get_id();
    hooks.level = [r_thread](const skeleton::LevelStats&) { check_interrupt_on(r_thread); };
    hooks.warn = [&warnings](const std::string& w) { warnings.push_back(w); };
    mpi::Environment& env = environment();
    std::unique_ptr<mpi::Communicator> comm = env.world();
    const std::optional<pc::PcResult> r = std::move(run::run_pc(job, "cudag::pc.stable", env, comm, hooks).result);
    Rcpp::List out;
    if (!r) return out;  // a rank other than 0 under MPI
    out["names"] = r->names;
    if (r->bootstrap) {
        add_table(out, *r->bootstrap);
    } else {
        const Pdag& g = r->cpdag;
        if (job.cfg.orient) {
            add_arcs(out, g);
        } else {  // the skeleton, both ways
            std::vector<int> ea, eb;
            for (std::int32_t a = 0; a < r->skeleton.n(); ++a)
                for (const std::int32_t b : r->skeleton.neighbours(a)) {
                    ea.push_back(a);
                    eb.push_back(b);
                }
            out["arc_from"] = ea;
            out["arc_to"] = eb;
        }
    }
    double tests = 0;
    for (const auto& s : r->levels) tests += static_cast<double>(s.tests);
    out["tests"] = tests;
    out["warnings"] = warnings;
    return out;
}

/// One test x ⟂ y | z (bnlearn's ci.test): a run::CitestJob on the data in memory; the
/// statistic, the p-value and the test's other numbers (name, text) as `cudag citest` gives them.
// [[Rcpp::export(.cudag_bn_citest)]]
Rcpp::List cudag_bn_citest(Rcpp::NumericMatrix data, Rcpp::List args) {
    run::CitestJob job;
    job.data = "data";
    job.test = skeleton::parse_test(Rcpp::as<std::string>(args["test"]));
    if (ci::traits(job.test).dof_rule)  // bnlearn's (rx - 1)(ry - 1)|S|, or mi-adf / x2-adf's rule
        job.dof = Rcpp::as<bool>(args["adf"]) ? ci::DofRule::BnlearnAdf : ci::DofRule::Gpupc;
    if (job.test == skeleton::TestKind::MiCg)
        job.discrete_columns = Rcpp::as<std::vector<std::string>>(args["discrete"]);
    job.x = Rcpp::as<std::string>(args["x"]);
    job.y = Rcpp::as<std::string>(args["y"]);
    job.given = Rcpp::as<std::vector<std::string>>(args["z"]);
    job.backend = BackendKind::Cpu;
    job.quiet = true;
    job.missing = MissingPolicy::Testwise;  // NA: bnlearn's locally complete rows
    job.bnlearn_missing = true;
    job.student_t = Rcpp::as<bool>(args["student_t"]);
    const Dataset numbers = bn_dataset(data, args, job.data, true);
    const run::CitestOutput o = run::run_citest(job, numbers_reader(numbers));
    Rcpp::CharacterVector extra_names, extra_values;
    for (const auto& [k, v] : o.extra) {
        extra_names.push_back(k);
        extra_values.push_back(v);
    }
    extra_values.attr("names") = extra_names;
    return Rcpp::List::create(Rcpp::Named("statistic") = o.statistic, Rcpp::Named("p") = o.p,
                              Rcpp::Named("n") = static_cast<double>(o.n_samples), Rcpp::Named("extra") = extra_values);
}

/// The rows (1-based, increasing) that replicate `replicate` of a bootstrap keyed by `seed`
/// draws (bootstrap::resample_rows): the tests run bnlearn on the very resamples.
// [[Rcpp::export(.cudag_resample_rows)]]
Rcpp::NumericVector cudag_resample_rows(double n_samples, double replicate, double seed, std::string resample) {
    bootstrap::Options b;
    b.replicates = 1;
    b.resample = bootstrap::parse_resample(resample);
    b.seed = static_cast<std::uint64_t>(seed);
    const auto n = static_cast<std::int64_t>(n_samples);
    bootstrap::validate(b, n);
    const std::vector<std::int64_t> rows = bootstrap::resample_rows(n, b, static_cast<std::int64_t>(replicate));
    Rcpp::NumericVector out(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) out[static_cast<R_xlen_t>(k)] = static_cast<double>(rows[k] + 1);
    return out;
}
