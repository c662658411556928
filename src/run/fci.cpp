// SPDX-License-Identifier: Apache-2.0
#include "run/fci.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <span>
#include <sstream>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "fci/tester.hpp"
#include "io/checkpoint_file.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/progress.hpp"
#include "pc/run.hpp"
#include "run/context.hpp"

namespace cudag::run {

namespace {

fci::FciOptions fci_options(const FciJob& job) {
    fci::FciOptions o = job.fci;
    o.max_level = job.pc.cfg.max_level;
    o.causal_learn = job.pc.compat == skeleton::Compat::CausalLearn;
    if (job.no_selection_bias) o.rules.no_selection_bias();
    fci::validate(o);
    return o;
}

void check_fci_job(const FciJob& job) {
    const PcJob& a = job.pc;
    if (a.uc_rule || a.uc_priority)
        throw InputError("--uc-rule / --uc-priority are PC's collider rules; FCI orients with R0-R10");
    if (a.compat != skeleton::Compat::CausalLearn &&
        (!a.knowledge.files.tiers.empty() || !a.knowledge.values.tiers.empty()))
        throw InputError(
            "--tiers orients edges; cudag fci --compat pcalg takes adjacency knowledge only (--forbid / "
            "--require pairs, pcalg's fixedGaps / fixedEdges; --compat causal-learn takes tiers)");
}

/// What decides a replicate's PAG besides the skeleton search's settings, by option (as
/// `cudag fci` spells them): a bootstrap checkpoint's hash covers them, and a refused resume
/// names the one that differs.
io::CheckpointSettings fci_settings(const fci::FciOptions& o) {
    const auto flag = [](bool on) { return std::string(on ? "on" : "off"); };
    std::string rules;  // R1 .. R10, each on (1) or off (0)
    for (const bool r : o.rules.rules) rules += r ? '1' : '0';
    return {{"--variant", fci::to_string(o.variant)},
            {"--type", fci::to_string(o.type)},
            {"--no-pdsep", flag(!o.pdsep)},
            {"--pdsep-max", std::to_string(o.pdsep_max)},
            {"--conservative", flag(o.conservative)},
            {"--majority-rule", flag(o.majority)},
            {"rules R1-R10 (--no-selection-bias)", rules},
            {"--max-path-length", std::to_string(o.max_path_length)},
            {"--python-hash-seed", std::to_string(o.python_hash_seed)}};
}

/// r.pmax with `more` folded in (a pair's value raised, new pairs inserted), sorted.
void merge_pmax(skeleton::PairPList& pmax, const std::vector<fci::PairMax>& more) {
    if (more.empty()) return;
    std::vector<skeleton::PairP> all(pmax.begin(), pmax.end());
    for (const fci::PairMax& m : more) all.push_back({m.i, m.j, m.p});
    std::sort(all.begin(), all.end(), [](const skeleton::PairP& u, const skeleton::PairP& v) {
        return u.i != v.i ? u.i < v.i : u.j != v.j ? u.j < v.j : u.p > v.p;
    });
    skeleton::PairPList out;
    for (const skeleton::PairP& p : all)
        if (out.empty() || out.back().i != p.i || out.back().j != p.j) out.push_back(p);
    pmax = std::move(out);
}

/// Rank 0's skeleton and separating sets on every rank (`skel`, `seps`; rank 0's `r` gives
/// them up).
void share_skeleton(mpi::Communicator& c, pc::PcResult& r, Graph& skel, SepSets& seps) {
    if (c.size() == 1) {
        skel = std::move(r.skeleton);
        seps = std::move(r.sepsets);
        return;
    }
    std::vector<std::byte> blob;
    if (c.rank() == 0) {
        ByteWriter w;
        w.put_vector(r.skeleton.serialize());
        const auto keys = r.sepsets.keys();
        const auto offs = r.sepsets.offsets();
        const auto nodes = r.sepsets.nodes();
        w.put_vector(std::vector<std::uint64_t>(keys.begin(), keys.end()));
        w.put_vector(std::vector<std::int64_t>(offs.begin(), offs.end()));
        w.put_vector(std::vector<std::int32_t>(nodes.begin(), nodes.end()));
        blob = w.take();
        skel = std::move(r.skeleton);
        seps = std::move(r.sepsets);
    }
    c.bcast_blob(blob, 0);
    if (c.rank() == 0) return;
    ByteReader in(blob);
    skel = Graph::deserialize(in.get_vector<std::int64_t>());
    auto keys = in.get_vector<std::uint64_t, BulkVector<std::uint64_t>>();
    auto offs = in.get_vector<std::int64_t, BulkVector<std::int64_t>>();
    auto nodes = in.get_vector<std::int32_t, BulkVector<std::int32_t>>();
    seps = SepSets::adopt(std::move(keys), std::move(offs), std::move(nodes));
}

/// The FCI stages after the skeleton search, on every rank of `c`: rank 0's skeleton and
/// separating sets in `r` completed into its PAG there (r.pag, the revised skeleton,
/// separating sets, pMax and provenance). Progress lines count seconds from `run_start`.
void fci_stages(const Dataset& data, const pc::PcConfig& cfg, const fci::FciOptions& opt, pc::PcResult& r,
                mpi::Communicator& c, bool quiet, bool verbose, std::chrono::steady_clock::time_point run_start) {
    // Every rank runs the stages on rank 0's skeleton and separating sets, the tests
    // dealt out over the ranks (fci::Tester); rank 0 keeps the outcome.
    mpi::run_agreed(c, [&] {
        if (!opt.causal_learn && cfg.knowledge.has_directions())
            throw InputError(
                "background knowledge with directions: cudag fci --compat pcalg takes adjacency knowledge "
                "only (pcalg's fixedGaps / fixedEdges; --compat causal-learn takes directions)");
    });
    const bool root = c.rank() == 0;
    Graph skel;
    SepSets seps;
    share_skeleton(c, r, skel, seps);
    mpi::run_agreed(c, [&] {
        skeleton::Progress progress(progress_mode(quiet, verbose, root), "cudag fci");
        progress.start_at(run_start);  // "(… s total)" counts the run's seconds, as the skeleton's lines
        const auto t0 = std::chrono::steady_clock::now();
        const skeleton::TestSpec spec = pc::resolve_test(cfg, data);
        const skeleton::Compat compat = cfg.compat;
        // Fisher-z tests share one correlation matrix (computed here by the ranks
        // together, each on all its threads); the others are made per worker.
        const int threads = resolve_threads(cfg.backend.threads);  // 0: every hardware thread
        // On a GPU (where the backend picks one): each rank's GPU runs its share of every
        // batch (for Fisher-z with C held there whole), p-values bit for bit the CPU's.
        skeleton::TestPolicy policy;
        policy.alpha = cfg.alpha;
        policy.exhaustive = policy.strict = policy.causal_learn_pvalue = compat == skeleton::Compat::CausalLearn;
        BackendContext backend = cfg.backend;
        backend.threads = threads;
        // A given correlation matrix (pcalg's suffStat list(C, n)): its tests on the CPU.
        std::unique_ptr<ci::BatchTest> gpu =
            cfg.correlation ? nullptr : skeleton::make_gpu_batch_test(data, spec, policy, cfg.max_level, backend, c);
        fci::Tester tester(cfg.correlation ? skeleton::ci_test_factory(*cfg.correlation, data, spec, compat, threads)
                           : gpu           ? skeleton::ci_test_factory(data, spec, compat, threads, 0)
                                           : skeleton::ci_test_factory(data, spec, compat, threads, 16384, &c),
                           threads, ci::Decision{cfg.alpha, compat == skeleton::Compat::CausalLearn}, &c, data.names);
        if (gpu) tester.set_batch(std::move(gpu));
        // Rounds of Possible-D-SEP's tests: large for cheap tests, about one set an
        // edge for CMIknn's permutation tests (fci/pdsep_tests.hpp).
        tester.set_round_tests(ci::round_tests(spec.kind, std::int64_t{threads} * c.size()));
        fci::FciOptions o = opt;
        std::string unit;
        auto unit_start = std::chrono::steady_clock::now();
        o.on_progress = [&](const std::string& what, std::int64_t done, std::int64_t total) {
            if (what != unit) {
                unit = what;
                unit_start = std::chrono::steady_clock::now();
            }
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - unit_start).count();
            progress.counted("Possible-D-SEP", unit, done, total, secs);
        };
        for (const auto& [i, j] : cfg.knowledge.required_pairs()) o.fixed_edges.emplace_back(i, j);
        if (o.causal_learn) o.names = data.names;
        if (o.causal_learn && !cfg.knowledge.empty()) o.knowledge = &cfg.knowledge;
        std::sort(o.fixed_edges.begin(), o.fixed_edges.end());
        o.skeleton_max_level = c.allreduce(r.levels.empty() ? 0 : r.levels.back().level, mpi::ReduceOp::Max);
        if (o.type == fci::FciType::Adaptive)  // pcalg's max.ord counts a last level that found nothing to test
            o.skeleton_max_level = fci::pcalg_max_order(skel, seps, o.skeleton_max_level, cfg.max_level, o.fixed_edges);
        fci::FciOutcome out = fci::learn_pag(std::move(skel), std::move(seps), tester, o);
        if (!root) return;
        r.skeleton = std::move(out.skeleton);
        r.sepsets = std::move(out.sepsets);
        r.pag = std::move(out.pag);
        merge_pmax(r.pmax, out.pmax);
        const fci::FciStats& st = out.stats;
        auto& conf = r.config;
        for (auto& [key, value] : conf) {  // PC's entries that describe the orientation
            if (key == "algorithm")
                value = o.causal_learn                    ? "fci (causal-learn)"
                        : o.variant == fci::Variant::Rfci ? "rfci (pcalg)"
                                                          : "fci (pcalg)";
            if (key == "orientation")
                value = o.causal_learn                    ? "causal-learn fci rule0, R1-R4B, R5-R10"
                        : o.variant == fci::Variant::Rfci ? "pcalg rfci.vStruc, udag2apag R1-R10"
                                                          : "pcalg udag2pag R0-R10";
        }
        conf.emplace_back("learner", fci::to_string(o.variant));
        conf.emplace_back("fci_type", fci::to_string(o.type));
        conf.emplace_back("pdsep", o.variant == fci::Variant::Fci && o.pdsep ? "true" : "false");
        conf.emplace_back("pdsep_max", std::to_string(o.pdsep_max));
        conf.emplace_back("collider_rule", o.conservative ? "conservative" : o.majority ? "majority" : "sepset");
        std::string rules;
        for (int k = 0; k < 10; ++k)
            if (o.rules.rules[static_cast<std::size_t>(k)])
                rules += (rules.empty() ? "R" : ",R") + std::to_string(k + 1);
        conf.emplace_back("rules", rules);
        if (o.causal_learn) conf.emplace_back("max_path_length", std::to_string(o.max_path_length));
        conf.emplace_back("pdsep_tests", std::to_string(st.pdsep_tests));
        conf.emplace_back("pdsep_removed", std::to_string(st.pdsep_removed));
        conf.emplace_back("triple_tests", std::to_string(st.triple_tests));
        conf.emplace_back("ambiguous_triples", std::to_string(st.ambiguous_triples));
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.seconds_total += secs;
        std::ostringstream os;
        os << fci::to_string(o.variant) << " after the skeleton: ";
        if (o.variant == fci::Variant::Fci && o.pdsep)
            os << "Possible-D-SEP " << st.pdsep_tests << " tests, " << st.pdsep_removed << " edges removed ("
               << st.pdsep_seconds << " s); ";
        if (st.triple_tests) os << st.triple_tests << " triple tests; ";
        os << "orientation " << st.orient_seconds << " s; " << secs << " s after the skeleton in all";
        if (verbose) progress.note(os.str());
    });
}

/// The skeleton search of `cfg` and the FCI stages of `opt` on one process.
pc::PcResult fci_one_process(const Dataset& data, pc::PcConfig cfg, const fci::FciOptions& opt, bool quiet,
                             bool verbose) {
    const auto start = std::chrono::steady_clock::now();
    cfg.orient = false;
    mpi::SerialCommunicator serial;
    pc::PcResult r = pc::run_pc(data, cfg, serial);
    fci_stages(data, cfg, opt, r, serial, quiet, verbose, start);
    return r;
}

}  // namespace

pc::PcResult run_fci(const Dataset& data, const pc::PcConfig& cfg, const FciJob& job) {
    FciJob j = job;
    j.pc.cfg.max_level = cfg.max_level;
    j.pc.compat = cfg.compat;
    check_fci_job(j);
    return fci_one_process(data, cfg, fci_options(j), j.pc.quiet, j.pc.verbose);
}

PcRun run_fci(const FciJob& job, const std::string& command_line, const mpi::Environment& env,
              std::unique_ptr<mpi::Communicator>& comm, PcHooks hooks) {
    const auto run_start = std::chrono::steady_clock::now();
    check_fci_job(job);
    const fci::FciOptions opt = fci_options(job);
    PcJob a = job.pc;
    a.learner = Learner::Fci;
    a.cfg.orient = false;
    hooks.whole_result = true;  // the FCI stages need every separating set on rank 0
    const bool quiet = a.quiet, verbose = a.verbose;
    hooks.after_skeleton = [&](const Dataset& data, const pc::PcConfig& cfg, pc::PcResult& r, mpi::Communicator& c) {
        fci_stages(data, cfg, opt, r, c, quiet, verbose, run_start);
    };
    // --bootstrap: a replicate is a whole run on one process, quiet.
    hooks.replicate.learn = [opt](const Dataset& d, const pc::PcConfig& cfg) {
        return fci_one_process(d, cfg, opt, true, false);
    };
    // Its checkpoints (--bootstrap --checkpoint) name the command and cover FCI's options.
    hooks.replicate.command = "cudag fci --bootstrap";
    hooks.replicate.settings = fci_settings(opt);
    return run_pc(a, command_line, env, comm, hooks);
}

}  // namespace cudag::run
