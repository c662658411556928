// SPDX-License-Identifier: Apache-2.0
#include "fci/fci.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/choice.hpp"
#include "core/error.hpp"
#include "fci/cl_fci.hpp"
#include "fci/rfci.hpp"
#include "fci/triples.hpp"

namespace cudag::fci {

namespace {
constexpr Choice<Variant> kVariants[] = {{"fci", Variant::Fci}, {"rfci", Variant::Rfci}};
constexpr Choice<FciType> kTypes[] = {
    {"normal", FciType::Normal}, {"anytime", FciType::Anytime}, {"adaptive", FciType::Adaptive}};
}  // namespace

std::string to_string(Variant v) { return choice_word(kVariants, v); }
std::string to_string(FciType t) { return choice_word(kTypes, t); }
Variant parse_variant(const std::string& name) { return parse_choice(kVariants, "--variant", name); }
FciType parse_fci_type(const std::string& name) { return parse_choice(kTypes, "--type", name); }

void validate(const FciOptions& opt) {
    if (opt.conservative && opt.majority)
        throw InputError("--conservative and --majority-rule exclude each other (pcalg: choose one)");
    if (opt.pdsep_max < -1)
        throw InputError("--pdsep-max must be >= 0 (or -1 for no cap), got " + std::to_string(opt.pdsep_max));
    if (opt.max_level < -1) throw InputError("--max-level must be >= 0 (or -1 for no cap)");
    if (opt.type == FciType::Anytime && opt.max_level < 0)
        throw InputError("--type anytime needs --max-level (pcalg: the Anytime FCI needs a finite m.max)");
    if (opt.type == FciType::Adaptive && opt.max_level >= 0)
        throw InputError("--type adaptive takes no --max-level (pcalg: the Adaptive Anytime FCI has no m.max)");
    if (opt.max_path_length < -1)
        throw InputError("--max-path-length must be >= 0 (or -1 for no cap), got " +
                         std::to_string(opt.max_path_length));
    if (opt.causal_learn)
        validate_causal_learn(opt);
    else if (opt.max_path_length != -1)
        throw InputError("--max-path-length is causal-learn's (--compat causal-learn); pcalg's fci has none");
    else if (opt.python_hash_seed != -1)
        throw InputError("--python-hash-seed is for --compat causal-learn (its Python sets); pcalg's fci has none");
    if (opt.variant == Variant::Rfci) {
        if (opt.type != FciType::Normal) throw InputError("--type " + to_string(opt.type) + " is fci's; rfci has none");
        if (!opt.pdsep) throw InputError("--no-pdsep is fci's; rfci has no Possible-D-SEP stage");
        if (opt.pdsep_max >= 0) throw InputError("--pdsep-max is fci's; rfci has no Possible-D-SEP stage");
    }
}

namespace {
double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int pcalg_max_order(const Graph& skeleton, const SepSets& sepsets, int last_level, int max_level,
                    const std::vector<std::pair<std::int32_t, std::int32_t>>& fixed_edges) {
    if (last_level < 0 || (max_level >= 0 && last_level + 1 > max_level)) return std::max(last_level, 0);
    if (skeleton.n_edges() == 0) return last_level;  // pcalg: while (... any(G))
    const std::int64_t n = skeleton.n();
    // The last level's snapshot: the edges left and the pairs that level removed.
    std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) adj[static_cast<std::size_t>(v)] = skeleton.neighbours(v);
    std::vector<std::pair<SepSets::Key, std::span<const std::int32_t>>> removed;
    for (const auto& [key, set] : sepsets.all())
        if (static_cast<int>(set.size()) == last_level) {
            removed.emplace_back(key, set);
            adj[static_cast<std::size_t>(key.first)].push_back(key.second);
            adj[static_cast<std::size_t>(key.second)].push_back(key.first);
        }
    for (auto& a : adj) std::sort(a.begin(), a.end());
    const auto many = [&](std::int32_t v) {
        return static_cast<std::int64_t>(adj[static_cast<std::size_t>(v)].size()) - 1 > last_level;
    };
    // Every edge of the snapshot, visited from its lower end first (pcalg's order by row).
    for (std::int64_t a = 0; a < n; ++a)
        for (const std::int32_t b : skeleton.neighbours(a)) {
            const std::pair<std::int32_t, std::int32_t> pair{static_cast<std::int32_t>(a), b};
            if (a < b && !std::binary_search(fixed_edges.begin(), fixed_edges.end(), pair) &&
                (many(static_cast<std::int32_t>(a)) || many(b)))
                return last_level + 1;
        }
    for (const auto& [key, set] : removed) {
        const auto [a, b] = key;
        if (many(a)) return last_level + 1;
        // the upper end is visited only when the lower end's sets did not separate the pair:
        // the set is then not within adj(a) \ {b}
        const auto& na = adj[static_cast<std::size_t>(a)];
        const bool from_a = std::all_of(set.begin(), set.end(), [&](std::int32_t s) {
            return s != b && std::binary_search(na.begin(), na.end(), s);
        });
        if (!from_a && many(b)) return last_level + 1;
    }
    return last_level;
}

FciOutcome learn_pag(Graph skeleton, SepSets sepsets, Tester& tester, const FciOptions& opt) {
    if (opt.causal_learn) return learn_pag_causal_learn(std::move(skeleton), std::move(sepsets), tester, opt);
    validate(opt);
    FciOutcome out;
    TripleSet unf;
    const std::int64_t tests0 = tester.tests();
    if (opt.variant == Variant::Rfci) {
        const auto t0 = std::chrono::steady_clock::now();
        RfciOptions ro;
        ro.rules = opt.rules;
        ro.conservative = opt.conservative;
        ro.majority = opt.majority;
        out.pag = rfci_orient(skeleton, sepsets, tester, ro);
        out.skeleton = out.pag.skeleton();
        out.sepsets = std::move(sepsets);
        out.stats.triple_tests = tester.tests() - tests0;
        out.stats.orient_seconds = since(t0);
        return out;
    }
    if (opt.pdsep) {
        const auto t0 = std::chrono::steady_clock::now();
        PdsepOptions po;
        po.max_level = opt.type == FciType::Adaptive ? opt.skeleton_max_level : opt.max_level;
        po.pdsep_max = opt.pdsep_max;
        po.fixed_edges = opt.fixed_edges;
        if (opt.on_progress)
            po.on_progress = [&](const char* what, std::int64_t d, std::int64_t t, std::int64_t) {
                opt.on_progress(what, d, t);
            };
        PdsepResult pr = pdsep(skeleton, sepsets, tester, po);
        out.stats.pdsep_tests = pr.tests;
        out.stats.pdsep_removed = static_cast<std::int64_t>(pr.removed.size());
        out.stats.pdsep_max_order = pr.max_order;
        out.stats.pdsep_seconds = since(t0);
        out.pmax = std::move(pr.pmax);
        out.pdsep = std::move(pr.pdsep);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (opt.conservative || opt.majority) {
        ConsOptions co;
        co.unseparated_ambiguous = !opt.pdsep;  // pcalg: version.unf = c(2, 1) without pdsep
        co.majority = opt.majority;
        const std::int64_t before = tester.tests();
        unf = conservative_triples(skeleton, tester, co, sepsets);
        out.stats.triple_tests = tester.tests() - before;
        out.stats.ambiguous_triples = static_cast<std::int64_t>(unf.size());
    }
    out.pag = Pag::circles(skeleton);
    udag2pag(out.pag, sepsets, unf, opt.rules);
    out.stats.orient_seconds = since(t1);
    out.skeleton = std::move(skeleton);
    out.sepsets = std::move(sepsets);
    return out;
}

}  // namespace cudag::fci
