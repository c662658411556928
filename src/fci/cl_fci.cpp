// SPDX-License-Identifier: Apache-2.0
#include "fci/cl_fci.hpp"

#include <chrono>
#include <string>

#include "core/error.hpp"
#include "fci/cl_graph.hpp"
#include "fci/cl_pdsep.hpp"
#include "fci/cl_pyhash.hpp"
#include "fci/cl_rules.hpp"
#include "fci/triples.hpp"

namespace cudag::fci {

namespace {
double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void refuse(const char* option) {
    std::string msg = option;
    msg += " is pcalg's; causal-learn's fci has no such option (drop it, or use --compat pcalg)";
    throw InputError(msg);
}
}  // namespace

void validate_causal_learn(const FciOptions& opt) {
    if (opt.variant == Variant::Rfci)
        throw InputError("--variant rfci: causal-learn has no rfci; --compat causal-learn runs its fci only");
    if (opt.type == FciType::Anytime) refuse("--type anytime");
    if (opt.type == FciType::Adaptive) refuse("--type adaptive");
    if (opt.pdsep_max >= 0) refuse("--pdsep-max");
    if (!opt.pdsep) refuse("--no-pdsep");
    if (opt.conservative) refuse("--conservative");
    if (opt.majority) refuse("--majority-rule");
    for (const bool r : opt.rules.rules)
        if (!r) refuse("--no-selection-bias");
    if (opt.python_hash_seed < -1 || opt.python_hash_seed > 4294967295LL)
        throw InputError(
            "--python-hash-seed must be in 0 .. 4294967295 (PYTHONHASHSEED's range), or -1 for node order");
}

FciOutcome learn_pag_causal_learn(Graph skeleton, SepSets sepsets, Tester& tester, const FciOptions& opt) {
    validate(opt);
    if (static_cast<std::int64_t>(opt.names.size()) != skeleton.n())
        throw Error("fci (causal-learn): the variable names are needed, one per variable");
    FciOutcome out;
    const Graph fas = skeleton;
    cl::SepSetLookup seps(fas, sepsets);
    const auto t0 = std::chrono::steady_clock::now();
    Pag g = Pag::circles(skeleton);
    cl::rule0(g, seps, opt.knowledge);
    std::function<void(std::int64_t, std::int64_t)> progress;
    if (opt.on_progress) progress = [&](std::int64_t d, std::int64_t t) { opt.on_progress("edges in causal-learn's order", d, t); };
    std::vector<std::int64_t> hashes;  // empty: node order
    if (opt.python_hash_seed >= 0)
        for (const std::string& name : opt.names)
            hashes.push_back(cl::python_str_hash(name, static_cast<std::uint32_t>(opt.python_hash_seed)));
    cl::ClPdsepResult pr = cl::remove_by_possible_dsep(g, seps, tester, opt.names, hashes, progress);
    out.stats.pdsep_tests = pr.tests;
    out.stats.pdsep_removed = static_cast<std::int64_t>(pr.removed.size());
    out.stats.pdsep_max_order = pr.max_order;
    out.stats.pdsep_seconds = since(t0);
    out.pmax = std::move(pr.pmax);

    const auto t1 = std::chrono::steady_clock::now();
    g = Pag::circles(g.skeleton());
    cl::rule0(g, seps, opt.knowledge);
    cl::DdpContext ddp{tester, seps, opt.max_path_length, 0, opt.knowledge};
    // causal-learn runs R4B in its first round even without a change when the knowledge has
    // forbidden edges, required edges and tiers, all three.
    const Knowledge* bk = opt.knowledge;
    bool first_time = bk && bk->has_forbidden() && bk->has_required_directions() && bk->has_tiers();
    bool change = true;
    std::int64_t rounds = 0;
    while (change) {
        if (++rounds > 1000000) throw Error("fci (causal-learn): the orientation rules did not settle");
        change = cl::rules_r1_r2(g, bk, false);
        change = cl::rule_r3(g, seps, bk, change);
        if (change || first_time) {
            change = cl::rule_r4b(g, ddp, change);
            first_time = false;
        }
        change = cl::rule_r5(g, change);
        change = cl::rule_r6(g, change);
        change = cl::rule_r7(g, change);
        change = cl::rule8(g, change);
        change = cl::rule9(g, change);
        change = cl::rule10(g, hashes, change);
    }
    out.stats.triple_tests = ddp.tests;  // R4's tests
    out.stats.orient_seconds = since(t1);
    out.skeleton = g.skeleton();
    out.pag = std::move(g);
    out.sepsets = update_sepsets(sepsets, std::move(pr.removed));
    return out;
}

}  // namespace cudag::fci
