// SPDX-License-Identifier: Apache-2.0
#include "run/fci.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "fci/tester.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/progress.hpp"
#include "run/context.hpp"

namespace cudag::run {

namespace {

fci::FciOptions fci_options(const FciJob& job) {
    fci::FciOptions o = job.fci;
    if (job.variant == "fci")
        o.variant = fci::Variant::Fci;
    else if (job.variant == "rfci")
        o.variant = fci::Variant::Rfci;
    else
        throw InputError("unknown --variant '" + job.variant + "' (available: fci, rfci)");
    if (job.type == "normal")
        o.type = fci::FciType::Normal;
    else if (job.type == "anytime")
        o.type = fci::FciType::Anytime;
    else if (job.type == "adaptive")
        o.type = fci::FciType::Adaptive;
    else
        throw InputError("unknown --type '" + job.type + "' (available: normal, anytime, adaptive)");
    o.max_level = job.pc.cfg.max_level;
    o.causal_learn = job.pc.compat == "causal-learn";
    if (job.no_selection_bias) o.rules.no_selection_bias();
    fci::validate(o);
    return o;
}

void check_fci_job(const FciJob& job) {
    const PcJob& a = job.pc;
    if (a.bootstrap > 0) throw InputError("--bootstrap is not available with cudag fci yet (cudag pc has it)");
    if (!a.write_resample.empty()) throw InputError("--write-resample belongs to cudag pc");
    if (a.uc_rule != -2 || a.uc_priority != -2)
        throw InputError("--uc-rule / --uc-priority are PC's collider rules; FCI orients with R0-R10");
    if (!a.knowledge.files.tiers.empty() || !a.knowledge.values.tiers.empty())
        throw InputError(
            "--tiers orients edges; cudag fci takes adjacency knowledge only (--forbid / --require "
            "pairs, pcalg's fixedGaps / fixedEdges)");
    if (a.compat == "causal-learn" && (!a.knowledge.files.require.empty() || !a.knowledge.values.require.empty()))
        throw InputError(
            "--require with --compat causal-learn: causal-learn's fci orients required edges (pcalg's "
            "fixedEdges keep an adjacency: --compat pcalg)");
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

}  // namespace

PcRun run_fci(const FciJob& job, const std::string& command_line, const mpi::Environment& env,
              std::unique_ptr<mpi::Communicator>& comm, PcHooks hooks) {
    check_fci_job(job);
    const fci::FciOptions opt = fci_options(job);
    PcJob a = job.pc;
    a.learner = "fci";
    a.cfg.orient = false;
    hooks.whole_result = true;  // the FCI stages need every separating set on rank 0
    const bool quiet = a.quiet, verbose = a.verbose;
    hooks.after_skeleton = [&](const Dataset& data, const pc::PcConfig& cfg, pc::PcResult& r, mpi::Communicator& c) {
        mpi::run_agreed(c, [&] {
            if (c.rank() != 0) return;
            if (cfg.knowledge.has_directions())
                throw InputError(
                    "background knowledge with directions: cudag fci takes adjacency knowledge only "
                    "(pcalg's fixedGaps / fixedEdges)");
            skeleton::Progress progress(progress_mode(quiet, verbose, true), "cudag fci");
            const auto t0 = std::chrono::steady_clock::now();
            const skeleton::TestSpec spec = pc::resolve_test(cfg, data);
            const skeleton::Compat compat = cfg.compat;
            // Fisher-z tests share one correlation matrix (computed here on every thread);
            // the others are made per worker.
            const int threads = resolve_threads(cfg.backend.threads);  // 0: every hardware thread
            fci::Tester tester(skeleton::ci_test_factory(data, spec, compat, threads), threads,
                               ci::Decision{cfg.alpha, compat == skeleton::Compat::CausalLearn});
            fci::FciOptions o = opt;
            o.skeleton_max_level = r.levels.empty() ? 0 : r.levels.back().level;
            for (const auto& [i, j] : cfg.knowledge.required_pairs()) o.fixed_edges.emplace_back(i, j);
            if (o.causal_learn) o.names = data.names;
            std::sort(o.fixed_edges.begin(), o.fixed_edges.end());
            fci::FciOutcome out = fci::learn_pag(std::move(r.skeleton), std::move(r.sepsets), tester, o);
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
            os << "orientation " << st.orient_seconds << " s";
            if (verbose) progress.note(os.str());
        });
    };
    return run_pc(a, command_line, env, comm, hooks);
}

}  // namespace cudag::run
