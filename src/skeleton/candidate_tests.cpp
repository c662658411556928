// SPDX-License-Identifier: Apache-2.0
#include "skeleton/candidate_tests.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "skeleton/merge.hpp"

namespace cudag::skeleton {
namespace {

std::string pair_name(const CandidateEntry& e) { return std::to_string(e.x) + "-" + std::to_string(e.y); }

/// Throws LogicError unless the entries are distinct, x != y, and every node is in range.
void check_entries(std::span<const CandidateEntry> entries, std::int64_t n) {
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> seen;
    const auto in_range = [n](std::int32_t v) { return v >= 0 && v < n; };
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const CandidateEntry& e = entries[k];
        if (!in_range(e.x) || !in_range(e.y) || e.x == e.y)
            throw LogicError("test_candidate_sets: entry " + pair_name(e) + " is not a pair of distinct nodes of " +
                             std::to_string(n));
        if (!seen.emplace(std::pair(e.x, e.y), k).second)
            throw LogicError("test_candidate_sets: entry " + pair_name(e) + " is listed twice");
        std::vector<std::int32_t> c = e.candidates;
        std::sort(c.begin(), c.end());
        if (std::adjacent_find(c.begin(), c.end()) != c.end())
            throw LogicError("test_candidate_sets: entry " + pair_name(e) + " lists a candidate twice");
        if (!c.empty() && (!in_range(c.front()) || !in_range(c.back())))
            throw LogicError("test_candidate_sets: entry " + pair_name(e) + " lists a candidate outside [0, " +
                             std::to_string(n) + ")");
    }
}

/// One entry from its side: the l-subsets of its candidates (less x and y) in lexicographic
/// order of their positions, each tested sorted by node.
CandidateResult::Outcome test_entry(SkeletonEngine& engine, int l, const CandidateEntry& e, const TestPolicy& policy) {
    CandidateResult::Outcome out;
    std::vector<std::int32_t> cand;
    for (const std::int32_t v : e.candidates)
        if (v != e.x && v != e.y) cand.push_back(v);
    const int k = static_cast<int>(cand.size());
    if (k < l) return out;
    std::vector<int> c(static_cast<std::size_t>(l));
    for (int t = 0; t < l; ++t) c[static_cast<std::size_t>(t)] = t;
    std::vector<std::int32_t> s(static_cast<std::size_t>(l));
    do {
        for (int t = 0; t < l; ++t) s[static_cast<std::size_t>(t)] = cand[static_cast<std::size_t>(c[t])];
        std::sort(s.begin(), s.end());
        const double p = engine.p_value(e.x, e.y, s);
        ++out.tests;
        out.pmax = std::max(out.pmax, p);
        if (!policy.independent(p)) continue;
        if (!policy.exhaustive) {
            out.separated = true;
            out.set = s;
            break;
        }
        std::vector<std::int32_t> u;
        std::set_union(out.set.begin(), out.set.end(), s.begin(), s.end(), std::back_inserter(u));
        out.set.swap(u);
        out.separated = true;
    } while (l > 0 && next_combination(c.data(), l, k));
    return out;
}

}  // namespace

CandidateResult test_candidate_sets(SkeletonEngine& engine, int level, std::span<const CandidateEntry> entries,
                                    const TestPolicy& policy) {
    if (level < 0) throw LogicError("test_candidate_sets: level " + std::to_string(level) + " < 0");
    check_entries(entries, engine.n_vars());
    CandidateResult res;
    res.entries.resize(entries.size());
    // Lower sides (x < y) first: a pair they separate skips its upper side unless
    // exhaustive, as a level drops that side's outcome (HostResults::settle).
    std::map<std::pair<std::int32_t, std::int32_t>, bool> lower_separated;
    for (const bool upper : {false, true})
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const CandidateEntry& e = entries[k];
            if ((e.x > e.y) != upper) continue;
            if (upper && !policy.exhaustive) {
                const auto it = lower_separated.find({e.y, e.x});
                if (it != lower_separated.end() && it->second) continue;
            }
            res.entries[k] = test_entry(engine, level, e, policy);
            res.tests += res.entries[k].tests;
            if (!upper) lower_separated[{e.x, e.y}] = res.entries[k].separated;
        }
    // Merged by pair as a level merges its entries.
    std::map<std::pair<std::int32_t, std::int32_t>, double> pmax;
    SepSetLog log;
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const CandidateResult::Outcome& o = res.entries[k];
        if (o.tests == 0) continue;
        const std::int32_t i = std::min(entries[k].x, entries[k].y), j = std::max(entries[k].x, entries[k].y);
        double& p = pmax.try_emplace({i, j}, -1.0).first->second;
        p = std::max(p, o.pmax);
        if (!o.separated) continue;
        log.add(i, j, o.set);
        res.removed.emplace_back(i, j);
    }
    std::sort(res.removed.begin(), res.removed.end());
    res.removed.erase(std::unique(res.removed.begin(), res.removed.end()), res.removed.end());
    res.sepsets = log.to_sepsets();
    res.pmax.reserve(pmax.size());
    for (const auto& [key, p] : pmax) res.pmax.push_back({key.first, key.second, p});
    return res;
}

}  // namespace cudag::skeleton
