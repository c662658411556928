// SPDX-License-Identifier: Apache-2.0
#include "io/result_layout.hpp"

#include <set>

#include "core/error.hpp"
#include "io/result_file.hpp"

namespace cudag::io::layout {
namespace {

/// A pair (i, j) read from a file, checked: 0 <= i < j < n.
void check_pair(std::int32_t i, std::int32_t j, std::int64_t n, const std::string& where) {
    if (!(i >= 0 && i < j && j < n))
        throw InputError(where + ": pair (" + std::to_string(i) + ", " + std::to_string(j) +
                         ") is not 0 <= i < j < " + std::to_string(n));
}

}  // namespace

void write_skeleton(hid_t root, const Graph& g, const std::string& where) {
    std::vector<std::int32_t> edges;
    for (std::int64_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (j > i) {
                edges.push_back(static_cast<std::int32_t>(i));
                edges.push_back(j);
            }
    h5::Handle grp = h5::create_group(root, "skeleton", where);
    h5::write_array(grp.get(), "edges", edges, {edges.size() / 2, 2}, where);
}

Graph read_skeleton(hid_t root, std::int64_t n, const std::string& where) {
    const auto edges = h5::read_array<std::int32_t>(root, "skeleton/edges", where);
    Graph g(n);
    for (std::size_t k = 0; k + 1 < edges.size(); k += 2) {
        check_pair(edges[k], edges[k + 1], n, where);
        g.add(edges[k], edges[k + 1]);
    }
    return g;
}

void write_sepsets(hid_t root, const SepSets& s, const std::string& where) {
    std::vector<std::int32_t> pairs;
    std::vector<std::int64_t> offsets = {0};
    std::vector<std::int32_t> nodes;
    for (const auto& [key, set] : s.all()) {
        pairs.push_back(key.first);
        pairs.push_back(key.second);
        nodes.insert(nodes.end(), set.begin(), set.end());
        offsets.push_back(static_cast<std::int64_t>(nodes.size()));
    }
    h5::Handle grp = h5::create_group(root, "sepsets", where);
    h5::write_array(grp.get(), "pairs", pairs, {pairs.size() / 2, 2}, where);
    h5::write_array(grp.get(), "offsets", offsets, {offsets.size()}, where);
    h5::write_array(grp.get(), "nodes", nodes, {nodes.size()}, where);
}

SepSets read_sepsets(hid_t root, std::int64_t n, const std::string& where) {
    const auto pairs = h5::read_array<std::int32_t>(root, "sepsets/pairs", where);
    const auto offsets = h5::read_array<std::int64_t>(root, "sepsets/offsets", where);
    const auto nodes = h5::read_array<std::int32_t>(root, "sepsets/nodes", where);
    const std::size_t k = pairs.size() / 2;
    if (offsets.size() != k + 1 || offsets.front() != 0 ||
        offsets.back() != static_cast<std::int64_t>(nodes.size()))
        throw InputError(where + ": /sepsets/offsets does not match /sepsets/pairs and /sepsets/nodes");
    SepSets s;
    for (std::size_t r = 0; r < k; ++r) {
        check_pair(pairs[2 * r], pairs[2 * r + 1], n, where);
        if (offsets[r + 1] < offsets[r]) throw InputError(where + ": /sepsets/offsets decreases");
        // Written in pair order with sorted sets: appended in O(1) (set() sorts otherwise).
        const std::span<const std::int32_t> set(nodes.data() + offsets[r],
                                                static_cast<std::size_t>(offsets[r + 1] - offsets[r]));
        if (pairs[2 * r] < pairs[2 * r + 1] && std::is_sorted(set.begin(), set.end()))
            s.append_sorted(pairs[2 * r], pairs[2 * r + 1], set);
        else
            s.set(pairs[2 * r], pairs[2 * r + 1], {set.begin(), set.end()});
    }
    return s;
}

void write_pmax_pairs(hid_t group, std::span<const pc::PairP> pmax, std::int64_t n,
                      const std::string& where) {
    std::vector<std::int32_t> pairs;
    std::vector<double> values;
    pairs.reserve(2 * pmax.size());
    values.reserve(pmax.size());
    for (const pc::PairP& p : pmax) {
        CUDAG_ASSERT(p.i >= 0 && p.j >= 0 && p.i < n && p.j < n);
        pairs.push_back(p.i);
        pairs.push_back(p.j);
        values.push_back(p.p);
    }
    h5::write_array(group, "pairs", pairs, {pmax.size(), 2}, where);
    h5::write_array(group, "values", values, {values.size()}, where);
}

pc::PairPList read_pmax_pairs(hid_t group, std::int64_t n, const std::string& where) {
    const auto pairs = h5::read_array<std::int32_t>(group, "pairs", where);
    const auto values = h5::read_array<double>(group, "values", where);
    if (pairs.size() != 2 * values.size())
        throw InputError(where + ": pmax pairs and values differ in length");
    pc::PairPList out(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        check_pair(pairs[2 * k], pairs[2 * k + 1], n, where);
        out[k] = {pairs[2 * k], pairs[2 * k + 1], values[k]};
    }
    return out;
}

void write_levels(hid_t root, const std::vector<pc::LevelStats>& levels, const std::string& where) {
    std::vector<std::int32_t> level;
    std::vector<std::int64_t> tests, removed, edges_after;
    std::vector<double> secs, imbalance, tests_imbalance, merge;
    for (const pc::LevelStats& s : levels) {
        merge.push_back(s.merge_seconds);
        level.push_back(s.level);
        tests.push_back(s.tests);
        removed.push_back(s.removed);
        edges_after.push_back(s.edges_after);
        secs.push_back(s.seconds);
        imbalance.push_back(s.imbalance);
        tests_imbalance.push_back(s.tests_imbalance);
    }
    const std::vector<hsize_t> dims = {levels.size()};
    h5::Handle g = h5::create_group(root, "levels", where);
    h5::write_array(g.get(), "level", level, dims, where);
    h5::write_array(g.get(), "tests", tests, dims, where);
    h5::write_array(g.get(), "removed", removed, dims, where);
    h5::write_array(g.get(), "edges_after", edges_after, dims, where);
    h5::write_array(g.get(), "seconds", secs, dims, where);
    h5::write_array(g.get(), "imbalance", imbalance, dims, where);
    h5::write_array(g.get(), "tests_imbalance", tests_imbalance, dims, where);
    h5::write_array(g.get(), "merge_seconds", merge, dims, where);
}

std::vector<pc::LevelStats> read_levels(hid_t root, const std::string& where) {
    const auto level = h5::read_array<std::int32_t>(root, "levels/level", where);
    const auto tests = h5::read_array<std::int64_t>(root, "levels/tests", where);
    const auto removed = h5::read_array<std::int64_t>(root, "levels/removed", where);
    const auto edges_after = h5::read_array<std::int64_t>(root, "levels/edges_after", where);
    const auto secs = h5::read_array<double>(root, "levels/seconds", where);
    const auto imbalance = h5::read_array<double>(root, "levels/imbalance", where);
    const auto tests_imbalance = h5::read_array<double>(root, "levels/tests_imbalance", where);
    const auto merge = h5::read_array<double>(root, "levels/merge_seconds", where);
    const std::size_t k = level.size();
    if (merge.size() != k || tests.size() != k || removed.size() != k || edges_after.size() != k || secs.size() != k ||
        imbalance.size() != k || tests_imbalance.size() != k)
        throw InputError(where + ": the /levels datasets differ in length");
    std::vector<pc::LevelStats> out(k);
    for (std::size_t r = 0; r < k; ++r)
        out[r] = {level[r], tests[r], removed[r], edges_after[r], secs[r], imbalance[r], tests_imbalance[r],
                  merge[r]};
    return out;
}

void write_config(hid_t root, const std::vector<std::pair<std::string, std::string>>& config,
                  const std::string& where) {
    h5::Handle g = h5::create_group(root, "config", where);
    std::set<std::string> used;
    for (const auto& [key, value] : config) {
        const std::string base = sanitize_attr_name(key);
        std::string name = base;
        for (int k = 2; !used.insert(name).second; ++k) name = base + "_" + std::to_string(k);
        h5::write_string_attr(g.get(), name, value, where);
    }
}

}  // namespace cudag::io::layout
