// SPDX-License-Identifier: Apache-2.0
#include "pc/run.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ci/correlation.hpp"
#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/magnitude.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "core/trace.hpp"
#include "pc/orient.hpp"
#include "skeleton/checkpoint.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/merge.hpp"

namespace cudag::pc {

skeleton::TestSpec resolve_test(const PcConfig& cfg, const Dataset& data) {
    return skeleton::resolve_test(cfg.test, data, cfg.alpha, cfg.compat);
}

void validate(const PcConfig& cfg, const Dataset& data) {
    skeleton::validate_test(cfg.test, data, cfg.max_level);
    const skeleton::TestSpec test = resolve_test(cfg, data);
    if (!(cfg.alpha > 0.0 && cfg.alpha < 1.0)) {
        std::ostringstream os;
        os << "--alpha must be in (0, 1), got " << cfg.alpha;
        throw InputError(os.str());
    }
    if (cfg.max_level < -1) throw InputError("--max-level must be >= 0 (or -1 for no cap)");
    if (cfg.uc_rule && (*cfg.uc_rule < 0 || *cfg.uc_rule > 2))
        throw InputError("--uc-rule must be 0 (sepset), 1 (maxP) or 2 (definiteMaxP), got " +
                         std::to_string(*cfg.uc_rule));
    if (cfg.uc_priority && (*cfg.uc_priority < -1 || *cfg.uc_priority > 4))
        throw InputError("--uc-priority must be in -1..4, got " + std::to_string(*cfg.uc_priority));
    const int rule = cfg.uc_rule.value_or(0);
    const int prio = cfg.uc_priority.value_or(2);
    if (rule == 2 && (prio == 0 || prio == 1))
        throw InputError("--uc-rule 2 (definiteMaxP) takes --uc-priority -1, 2, 3 or 4, got " + std::to_string(prio));
    if (data.n_vars < 2)
        throw InputError(data.source + ": PC needs at least 2 variables, found " + std::to_string(data.n_vars));
    if (!cfg.knowledge.empty()) {
        if (cfg.knowledge.n() != data.n_vars)
            throw InputError("background knowledge is over " + std::to_string(cfg.knowledge.n()) +
                             " variables, the data have " + std::to_string(data.n_vars));
        cfg.knowledge.check(data.names);
    }
    if (cfg.conservative && cfg.majority) throw InputError("choose either the conservative or the majority rule");
    if ((cfg.conservative || cfg.majority) &&
        (cfg.compat != skeleton::Compat::Pcalg || cfg.uc_rule || cfg.knowledge.has_directions()))
        throw InputError(
            "the conservative and majority rules orient as pcalg (not with causal-learn's rules or directed "
            "knowledge)");
    if (cfg.correlation) {
        if (test.kind != skeleton::TestKind::FisherZ)
            throw InputError("a given correlation matrix takes the fisher-z test, not " + test.name());
        if (cfg.backend.kind == BackendKind::Cuda)
            throw InputError("a given correlation matrix runs on the CPU: use backend cpu or auto");
        if (static_cast<std::int64_t>(cfg.correlation->size()) != data.n_vars * data.n_vars)
            throw InputError("the correlation matrix is not " + std::to_string(data.n_vars) + " x " +
                             std::to_string(data.n_vars));
    }
    if (test.traits().data != ci::TestData::Continuous) return;
    if (test.traits().permutation) {  // CMIknn's surrogates
        const ci::CmiKnnSpec& spec = test.cmi;
        // The smallest permutation p-value is 1/(1 + B): when that is independent at alpha,
        // every test is, and the graph would come out empty.
        skeleton::TestPolicy policy;
        policy.alpha = cfg.alpha;
        policy.strict = cfg.compat == skeleton::Compat::CausalLearn;
        if (policy.independent(ci::cmi_pvalue(0, spec.permutations))) {
            std::int64_t need = std::max<std::int64_t>(1, static_cast<std::int64_t>(1.0 / cfg.alpha) - 2);
            while (policy.independent(ci::cmi_pvalue(0, need))) ++need;
            std::ostringstream os;
            os << "cmiknn: --permutations " << spec.permutations << " gives p-values of at least 1/"
               << spec.permutations + 1 << ", never dependent at --alpha " << cfg.alpha
               << ": every edge would be removed; use --permutations " << need << " or more";
            throw InputError(os.str());
        }
        return;
    }
    // Fisher-z at level l needs m - l - 3 >= 0 (at 0 every p is 1, as pcalg's and causal-learn's).
    if (data.n_samples < 3)
        throw InputError(data.source + ": " + std::to_string(data.n_samples) +
                         " samples; Fisher-z needs at least 3 (l+3 at level l)");
    if (cfg.max_level >= 0 && data.n_samples < cfg.max_level + 3)
        throw InputError(data.source + ": " + std::to_string(data.n_samples) + " samples are too few for --max-level " +
                         std::to_string(cfg.max_level) +
                         " (Fisher-z needs at least l+3 = " + std::to_string(cfg.max_level + 3) +
                         "); use --max-level " + std::to_string(data.n_samples - 3) + " or less");
}

bool scale_free(const skeleton::TestSpec& test) { return test.traits().scale_free; }

std::int64_t rescale_extreme_columns(Dataset& data, const PcConfig& cfg) {
    if (data.discrete() || data.n_samples == 0 || !scale_free(resolve_test(cfg, data))) return 0;
    return cudag::rescale_extreme_columns(data);
}

std::string config_hash(const Dataset& data, const PcConfig& cfg) {
    Digest h;
    // Version 2: the resolved test (defaults filled in) and, for the discrete tests, the
    // resolved degrees-of-freedom rule; version 1 hashed --test as typed and no --dof.
    h.add_string("cudag-pc-config-2");
    h.add_value(data.n_vars);
    h.add_value(data.n_samples);
    for (const std::string& nm : data.names) h.add_string(nm);
    h.add_bytes(data.values.data(), data.values.size() * sizeof(double));
    for (const std::string& entry : resolve_test(cfg, data).digest_entries(data.n_samples)) h.add_string(entry);
    h.add_value(cfg.alpha);
    h.add_string(to_string(cfg.compat));
    cfg.knowledge.add_to(h);
    return h.hex();
}

io::CheckpointSettings config_settings(const Dataset& data, const PcConfig& cfg) {
    // The data's shape and names only: config_hash already reads every value once (a
    // change of values alone is refused with the hashes), and a genome-sized table is not
    // worth reading twice.
    Digest shape, knowledge;
    shape.add_value(data.n_vars).add_value(data.n_samples);
    for (const std::string& nm : data.names) shape.add_string(nm);
    cfg.knowledge.add_to(knowledge);
    // A value's words before a ':' (the digest's entries may explain themselves after it).
    const auto head = [](const std::string& v) { return v.substr(0, v.find(':')); };
    char alpha[32];  // the shortest text that reads back as the same double
    const auto end = std::to_chars(alpha, alpha + sizeof alpha, cfg.alpha).ptr;
    io::CheckpointSettings s = {{"the data's variables and samples (--data)", shape.hex()},
                                {"--alpha", std::string(alpha, end)},
                                {"--compat", to_string(cfg.compat)},
                                {"the background knowledge (--forbid, --require, --tiers)", knowledge.hex()}};
    // The resolved test, one setting per option: --test, --dof, or CMIknn's parameters
    // (cmiknn_shuffle_neighbors -> --shuffle-neighbors; k, resolved, as --knn).
    const std::vector<std::string> test = resolve_test(cfg, data).digest_entries(data.n_samples);
    s.push_back({"--test", test[0]});
    if (resolve_test(cfg, data).traits().data == ci::TestData::Dag) {
        Digest dag;  // the DAG's nodes, latent ones and edges
        for (std::size_t i = 1; i < test.size(); ++i) dag.add_string(test[i]);
        s.push_back({"the DAG and its latent nodes (--oracle, --latent)", dag.hex()});
        return s;
    }
    if (test.size() == 2) s.push_back({"--dof", head(test[1])});
    for (std::size_t i = 1; i + 1 < test.size(); i += 2) {
        std::string option = test[i].rfind("cmiknn_", 0) == 0 ? test[i].substr(7) : test[i];
        std::replace(option.begin(), option.end(), '_', '-');
        if (option == "k") option = "knn";
        if (option == "early-stop") option = "early-stop (--no-early-stop)";
        s.push_back({"--" + option, head(test[i + 1])});
    }
    return s;
}

HostMemoryPlan host_memory_plan(const Dataset& data, const PcConfig& cfg, bool gpu) {
    const double n = static_cast<double>(data.n_vars);
    const double m = static_cast<double>(data.n_samples);
    HostMemoryPlan p;
    // Four graphs at most at a time (graph, snapshot, next snapshot, CPDAG): bits while
    // the graph is held dense, else a list header per row and 4 bytes per neighbour.
    if (data.n_vars <= Graph::dense_limit())
        p.graphs = 4.0 * n * n / 8.0;
    else
        p.graphs = 4.0 * 32.0 * n;
    if (data.n_vars <= PcResult::dense_pmax_limit)
        p.pmax = 8.0 * n * n;
    else
        p.per_kept_pair = 16.0 /* pMax slot */ + 4.0 * 8.0 /* both ends in two graphs */ + 16.0 /* kept lists */;
    const ci::TestTraits& test = ci::traits(resolve_test(cfg, data).kind);
    if (test.data == ci::TestData::Mixed) p.data = 8.0 * n * m;  // each worker's test reads the columns
    if (test.data == ci::TestData::Continuous) {
        p.data = 8.0 * n * m;  // the standardised data (CMIknn: the transformed columns)
        if (!gpu && test.shared_matrix) {
            p.correlation = 8.0 * n * n;  // the CPU engine's C
            // and, while C is computed, the standardised data with each worker's packed rows
            p.data = ci::correlation_work_bytes(data.n_vars, data.n_samples, resolve_threads(cfg.backend.threads));
        }
    }
    return p;
}

std::string HostMemoryPlan::describe() const {
    std::string s;
    const auto add = [&s](const char* what, double bytes) {
        if (bytes > 0.0) s += (s.empty() ? "" : ", ") + std::string(what) + " " + format_bytes(bytes);
    };
    add("data", data);
    add("correlation matrix", correlation);
    add("graphs", graphs);
    add("pMax table", pmax);
    if (per_kept_pair > 0.0) s += " + " + std::to_string(static_cast<int>(per_kept_pair)) + " B per pair level 0 keeps";
    return s;
}

double estimate_host_bytes(const Dataset& data, const PcConfig& cfg, bool gpu) {
    return host_memory_plan(data, cfg, gpu).known();
}

namespace {

/// Distributed records: the separating sets orientation reads (orient()'s contract: the
/// non-adjacent pairs with a common neighbour, i.e. of unshielded triples), sent from
/// every rank's rows to rank 0; empty on the other ranks.
SepSets triple_sepsets(const Graph& skeleton, const SepSets& mine, mpi::Communicator& comm, int threads) {
    const Adjacency adj = Adjacency::from_graph(skeleton, threads);
    const auto keys = mine.keys();
    std::vector<std::uint8_t> keep(keys.size(), 0);
    parallel_for(0, static_cast<std::int64_t>(keys.size()), threads, 4096, [&](std::int64_t r, int) {
        auto [a, b] = SepSets::unpack(keys[static_cast<std::size_t>(r)]);
        if (adj.degree(a) > adj.degree(b)) std::swap(a, b);
        for (std::int64_t e = 0; e < adj.degree(a); ++e)
            if (skeleton.has(b, adj.row(a)[e])) {
                keep[static_cast<std::size_t>(r)] = 1;
                return;
            }
    });
    SepSets needed;
    for (std::size_t r = 0; r < keys.size(); ++r) {
        if (!keep[r]) continue;
        const auto [a, b] = SepSets::unpack(keys[r]);
        needed.append_sorted(a, b, mine.view(a, b));
    }
    std::vector<SepSets> parts;
    for (int from = 0; from < comm.size(); ++from) {
        SepSets part = skeleton::transfer_sepsets(comm, comm.rank() == from ? &needed : nullptr, 0,
                                                  comm.rank() == from ? needed.size() : 0, from, 0, threads);
        if (comm.rank() == 0) parts.push_back(std::move(part));
    }
    SepSets all;
    if (comm.rank() != 0) return all;
    std::vector<const SepSets*> views;
    for (const SepSets& p : parts) views.push_back(&p);
    // The ranks' rows are disjoint, so are their pairs.
    const bool disjoint = SepSets::merge_disjoint(std::span<const SepSets* const>(views), all, threads);
    CUDAG_ASSERT(disjoint);
    return all;
}

}  // namespace

PcResult run_pc(const Dataset& data, const PcConfig& cfg) {
    mpi::SerialCommunicator serial;
    return run_pc(data, cfg, serial);
}

namespace {

/// The skeleton search's options for `cfg` on `data` with `test`.
skeleton::SkeletonOptions skeleton_options(const PcConfig& cfg, const Dataset& data, const skeleton::TestSpec& test,
                                           int threads, const mpi::Communicator& comm) {
    skeleton::SkeletonOptions sk;
    sk.policy.alpha = cfg.alpha;
    sk.policy.strict = cfg.compat == skeleton::Compat::CausalLearn;
    sk.policy.exhaustive = cfg.compat == skeleton::Compat::CausalLearn;
    sk.policy.causal_learn_pvalue = cfg.compat == skeleton::Compat::CausalLearn;
    sk.policy.student_t = cfg.test.student_t;
    // bnlearn's face: its pairs' tests for every test (a symmetric one's answers are the same
    // either way, with fewer tests: a set both endpoints' neighbourhoods hold is tested once)
    sk.policy.bnlearn_pairs = cfg.bnlearn_search || test.traits().asymmetric;
    sk.bnlearn_pairs = cfg.bnlearn_search || test.traits().asymmetric;
    sk.max_level = cfg.max_level;
    sk.threads = threads;
    sk.distributed_records = cfg.distributed_records && comm.size() > 1;
    sk.keep_pmax = cfg.keep_pmax;
    sk.forbidden_pairs = cfg.knowledge.forbidden_pairs();
    sk.required_pairs = cfg.knowledge.required_pairs();
    if (test.traits().spare_samples >= 0) {  // Fisher-z: n - |S| - 3 degrees of freedom
        sk.max_supported_level =
            static_cast<int>(std::min<std::int64_t>(data.n_samples - 1 - test.traits().spare_samples, 1 << 30));
        sk.supported_level_reason = data.source + " has " + std::to_string(data.n_samples) + " samples";
    }
    return sk;
}

/// The checkpoint hooks of `cfg` (read on rank 0 when resuming, written at every level's
/// end), agreed over `comm`.
skeleton::SkeletonHooks checkpoint_hooks(const PcConfig& cfg, const Dataset& data, const skeleton::SkeletonOptions& sk,
                                         mpi::Communicator& comm) {
    skeleton::SkeletonHooks hooks;
    hooks.stop_after_level = cfg.stop_after_level;
    if (!cfg.checkpoint.empty()) {
        // bnlearn's search keeps pairs after level 1 by level 1's graph, which a checkpoint
        // does not hold
        if (sk.bnlearn_pairs)
            mpi::run_agreed(comm, [&] {
                throw InputError(
                    "--checkpoint: a search in bnlearn's order (mi-cg) cannot be resumed; run it without --checkpoint");
            });
        const std::string hash = config_hash(data, cfg);
        const io::CheckpointSettings settings = config_settings(data, cfg);
        mpi::run_agreed(comm, [&] {
            if (cfg.resume && comm.rank() == 0)
                hooks.resume =
                    skeleton::read_checkpoint(checkpoint_format, cfg.checkpoint, hash, data.n_vars, settings);
        });
        if (hooks.resume && cfg.on_resume) cfg.on_resume(hooks.resume->next_level);
        hooks.on_checkpoint = [&cfg, &comm, hash, settings,
                               parts = sk.distributed_records](const skeleton::SkeletonState& s) {
            if (parts)
                skeleton::write_checkpoint(checkpoint_format, s, hash, cfg.checkpoint, comm, settings);
            else
                skeleton::write_checkpoint(checkpoint_format, s, hash, cfg.checkpoint, settings);
            if (cfg.on_checkpoint) cfg.on_checkpoint(s.next_level - 1);
        };
    } else {
        mpi::run_agreed(comm, [&] {
            if (cfg.resume) throw InputError("--resume needs --checkpoint FILE");
        });
    }
    return hooks;
}

/// How the skeleton is oriented: pcalg's rules, or causal-learn's uc_rule / uc_priority.
OrientOptions orient_options(const PcConfig& cfg, const skeleton::SkeletonOptions& sk, int threads) {
    OrientOptions oo;
    oo.alpha = cfg.alpha;
    oo.independence_strict = sk.policy.strict;
    oo.threads = threads;
    if (!cfg.knowledge.empty()) oo.knowledge = &cfg.knowledge;
    if (cfg.bnlearn_search) {
        oo.rule = UcRule::Bnlearn;
        oo.max_sx = cfg.max_level;
    } else if (cfg.uc_rule || cfg.compat == skeleton::Compat::CausalLearn) {
        oo.rule = static_cast<UcRule>(cfg.uc_rule.value_or(0));
        oo.uc_priority = cfg.uc_priority.value_or(2);
    } else {
        oo.rule = UcRule::Pcalg;
    }
    return oo;
}

/// The result's provenance: what ran, with which rules, where.
void add_run_config(PcResult& r, const PcConfig& cfg, const Dataset& data, const skeleton::TestSpec& test,
                    const skeleton::SkeletonOptions& sk, const OrientOptions& oo, const std::string& engine,
                    int threads, const mpi::Communicator& comm) {
    auto& c = r.config;
    std::ostringstream alpha;
    alpha.precision(17);
    alpha << cfg.alpha;
    c.emplace_back("algorithm", "pc-stable");
    c.emplace_back("test", test.name());
    for (auto& kv : test.config_entries(data.n_samples)) c.push_back(std::move(kv));
    c.emplace_back("alpha", alpha.str());
    c.emplace_back("max_level", std::to_string(cfg.max_level));
    c.emplace_back("compat", to_string(cfg.compat));
    c.emplace_back("independence_rule", sk.policy.strict ? "p > alpha" : "p >= alpha");
    c.emplace_back("sepset_rule", sk.policy.exhaustive ? "union of all separating sets (causal-learn)"
                                                       : "lexicographically smallest, lower endpoint first");
    const bool knowledge_orients = oo.knowledge && oo.knowledge->has_directions();
    c.emplace_back("orientation", oo.rule == UcRule::Bnlearn ? "bnlearn learn.arc.directions"
                                  : oo.rule == UcRule::Pcalg
                                      ? (knowledge_orients ? "background knowledge, pcalg colliders, Meek rules 1-4"
                                                           : "pcalg udag2pdagRelaxed")
                                      : "causal-learn uc_rule " + std::to_string(static_cast<int>(oo.rule)) +
                                            " uc_priority " + std::to_string(oo.uc_priority));
    if (!cfg.knowledge.empty()) c.emplace_back("knowledge", cfg.knowledge.summary());
    c.emplace_back("backend", engine);
    c.emplace_back("threads", std::to_string(threads));
    c.emplace_back("ranks", std::to_string(comm.size()));
    c.emplace_back("communicator", comm.name());
    c.emplace_back("n_vars", std::to_string(data.n_vars));
    c.emplace_back("n_samples", std::to_string(data.n_samples));
}

}  // namespace

PcResult run_pc(const Dataset& data, const PcConfig& cfg, mpi::Communicator& comm) {
    mpi::run_agreed(comm, [&] { validate(cfg, data); });
    const auto t0 = std::chrono::steady_clock::now();
    StepTrace trace;  // CUDAG_TRACE: the run's phases, host time
    trace.start();
    const int threads = resolve_threads(cfg.backend.threads);

    const skeleton::TestSpec test = resolve_test(cfg, data);
    const skeleton::SkeletonOptions sk = skeleton_options(cfg, data, test, threads, comm);
    BackendContext backend = cfg.backend;
    backend.threads = threads;
    if (cfg.correlation) backend.kind = BackendKind::Cpu;  // validate() refused the others
    const std::unique_ptr<skeleton::SkeletonEngine> engine_ptr = skeleton::make_engine(skeleton::EngineArgs{
        data, test, sk.policy, cfg.max_level, backend, comm, cfg.correlation, cfg.correlation_symmetric});
    skeleton::SkeletonEngine& engine = *engine_ptr;
    trace.mark("engine set up");
    const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    const auto note = [&cfg](const std::string& what, double seconds) {
        if (!cfg.on_note) return;
        char buf[48];
        std::snprintf(buf, sizeof buf, " %.3f s", seconds);
        cfg.on_note(what + buf);
    };
    note(engine.name() + " engine set up (" +
             (test.traits().data == ci::TestData::Dag        ? "the DAG"
              : test.traits().data == ci::TestData::Discrete ? "codes"
              : test.traits().data == ci::TestData::Mixed    ? "nothing shared: each test reads its columns"
              : test.traits().shared_matrix                  ? "correlation matrix"
                                                             : "columns transformed") +
             " included):",
         seconds_since(t0));
    if (cfg.on_note && !engine.setup_note().empty()) cfg.on_note(engine.setup_note());

    skeleton::SkeletonHooks hooks = checkpoint_hooks(cfg, data, sk, comm);
    const auto t_skel = std::chrono::steady_clock::now();
    hooks.on_level_start = cfg.on_level_start;
    skeleton::SkeletonResult skel = skeleton::learn_skeleton(engine, sk, comm, cfg.on_level, hooks);
    trace.mark("skeleton");

    const OrientOptions oo = orient_options(cfg, sk, threads);
    PValueFn pfn = [&engine](std::int32_t x, std::int32_t y, const std::vector<std::int32_t>& s) {
        return engine.p_value(x, y, s);
    };

    // pcalg's pc.cons.intern (cfg.triple_check): on rank 0, the separating sets revised and
    // the ambiguous triples kept for orientation.
    OrientOptions oo_cons = oo;
    mpi::run_agreed(comm, [&] {
        if (!(cfg.conservative || cfg.majority)) return;
        if (comm.size() > 1) throw InputError("the conservative and majority rules run on one process");
        if (!cfg.triple_check) throw InputError("the conservative and majority rules need PcConfig::triple_check");
        oo_cons.ambiguous = cfg.triple_check(skel.skeleton, skel.sepsets, engine);
    });

    PcResult r;
    r.names = data.names;
    r.level_labels = data.levels;
    r.n_samples = data.n_samples;
    note("skeleton:", seconds_since(t_skel));
    const auto t_orient = std::chrono::steady_clock::now();
    // Orientation needs the separating sets of unshielded triples: rank 0 only, from its
    // gathered table or, with distributed records, from those sent to it.
    SepSets for_orientation;
    if (sk.distributed_records) for_orientation = triple_sepsets(skel.skeleton, skel.sepsets, comm, threads);
    mpi::run_agreed(comm, [&] {
        if (comm.rank() == 0 && !cfg.orient)
            r.cpdag = Pdag(Graph(data.n_vars));
        else if (comm.rank() == 0)
            r.cpdag = orient(skel.skeleton, sk.distributed_records ? for_orientation : skel.sepsets, oo_cons, pfn);
    });
    for_orientation = SepSets();
    note("orientation:", seconds_since(t_orient));
    trace.mark("triples+orientation");
    r.skeleton = std::move(skel.skeleton);
    r.sepsets = std::move(skel.sepsets);
    r.pmax = std::move(skel.pmax);
    r.record_rows = skel.record_rows;
    r.levels = std::move(skel.levels);
    r.seconds_total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    add_run_config(r, cfg, data, test, sk, oo, engine.name(), threads, comm);
    if (cfg.conservative || cfg.majority) {
        r.config.emplace_back("triple_rule", cfg.majority ? "majority (pcalg maj.rule)" : "conservative (pcalg)");
    }
    trace.mark("result");
    trace.print("pc run");
    return r;
}

}  // namespace cudag::pc
