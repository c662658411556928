// SPDX-License-Identifier: Apache-2.0
#include "skeleton/layout.hpp"

#include <set>

#include "core/error.hpp"

namespace cudag::skeleton::layout {

namespace h5 = io::h5;
namespace {

/// A pair (i, j) read from a file, checked: 0 <= i < j < n.
void check_pair(std::int32_t i, std::int32_t j, std::int64_t n, const std::string& where) {
    if (!(i >= 0 && i < j && j < n))
        throw InputError(where + ": pair (" + std::to_string(i) + ", " + std::to_string(j) + ") is not 0 <= i < j < " +
                         std::to_string(n));
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
    // The records are held flat in pair order (keys, offsets from 0, nodes): only the keys
    // are unpacked; offsets and nodes are written as they are.
    const std::size_t k = s.size();
    const std::int64_t zero = 0;
    const std::int64_t* offsets = s.offsets().empty() ? &zero : s.offsets().data();  // no record: {0}
    CUDAG_ASSERT(s.offsets().size() == k + 1 || (k == 0 && s.offsets().empty()));
    std::vector<std::int32_t> pairs(2 * k);
    for (std::size_t r = 0; r < k; ++r) {
        const auto [i, j] = SepSets::unpack(s.keys()[r]);
        pairs[2 * r] = i;
        pairs[2 * r + 1] = j;
    }
    h5::Handle grp = h5::create_group(root, "sepsets", where);
    h5::write_array(grp.get(), "pairs", pairs, {k, 2}, where);
    h5::write_raw(grp.get(), "offsets", h5::TypeOf<std::int64_t>::mem(), h5::TypeOf<std::int64_t>::file(), offsets,
                  {k + 1}, where);
    h5::write_raw(grp.get(), "nodes", h5::TypeOf<std::int32_t>::mem(), h5::TypeOf<std::int32_t>::file(),
                  s.nodes().empty() ? nullptr : s.nodes().data(), {s.nodes().size()}, where);
}

SepSets read_sepsets(hid_t root, std::int64_t n, const std::string& where) {
    const auto pairs = h5::read_array<std::int32_t>(root, "sepsets/pairs", where);
    const auto offsets = h5::read_array<std::int64_t>(root, "sepsets/offsets", where);
    const auto nodes = h5::read_array<std::int32_t>(root, "sepsets/nodes", where);
    const std::size_t k = pairs.size() / 2;
    if (offsets.size() != k + 1 || offsets.front() != 0 || offsets.back() != static_cast<std::int64_t>(nodes.size()))
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

void write_pmax_pairs(hid_t group, std::span<const PairP> pmax, std::int64_t n, const std::string& where) {
    std::vector<std::int32_t> pairs;
    std::vector<double> values;
    pairs.reserve(2 * pmax.size());
    values.reserve(pmax.size());
    for (const PairP& p : pmax) {
        CUDAG_ASSERT(p.i >= 0 && p.j >= 0 && p.i < n && p.j < n);
        pairs.push_back(p.i);
        pairs.push_back(p.j);
        values.push_back(p.p);
    }
    h5::write_array(group, "pairs", pairs, {pmax.size(), 2}, where);
    h5::write_array(group, "values", values, {values.size()}, where);
}

PairPList read_pmax_pairs(hid_t group, std::int64_t n, const std::string& where) {
    const auto pairs = h5::read_array<std::int32_t>(group, "pairs", where);
    const auto values = h5::read_array<double>(group, "values", where);
    if (pairs.size() != 2 * values.size()) throw InputError(where + ": pmax pairs and values differ in length");
    PairPList out(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        check_pair(pairs[2 * k], pairs[2 * k + 1], n, where);
        out[k] = {pairs[2 * k], pairs[2 * k + 1], values[k]};
    }
    return out;
}

RecordParts record_parts(const SepSets& s, std::size_t pmax_count, mpi::Communicator& comm) {
    const std::int64_t mine[3] = {static_cast<std::int64_t>(s.size()), static_cast<std::int64_t>(s.nodes().size()),
                                  static_cast<std::int64_t>(pmax_count)};
    std::vector<std::int64_t> all(3 * static_cast<std::size_t>(comm.size()));
    comm.allgather(mine, all.data(), 3, mpi::DataType::Int64);
    RecordParts p;
    p.lead = comm.rank() == 0;
    for (int r = 0; r < comm.size(); ++r) {
        const std::int64_t* c = all.data() + 3 * r;
        if (r < comm.rank()) {
            p.pairs_first += static_cast<hsize_t>(c[0]);
            p.nodes_first += static_cast<hsize_t>(c[1]);
            p.pmax_first += static_cast<hsize_t>(c[2]);
        }
        p.pairs_total += static_cast<hsize_t>(c[0]);
        p.nodes_total += static_cast<hsize_t>(c[1]);
        p.pmax_total += static_cast<hsize_t>(c[2]);
    }
    return p;
}

void create_sepsets(hid_t root, const RecordParts& parts, const std::string& where) {
    h5::Handle grp = h5::create_group(root, "sepsets", where);
    h5::create_dataset(grp.get(), "pairs", h5::TypeOf<std::int32_t>::file(), {parts.pairs_total, 2}, where);
    h5::create_dataset(grp.get(), "offsets", h5::TypeOf<std::int64_t>::file(), {parts.pairs_total + 1}, where);
    h5::create_dataset(grp.get(), "nodes", h5::TypeOf<std::int32_t>::file(), {parts.nodes_total}, where);
}

void write_sepsets_part(hid_t root, const SepSets& s, const RecordParts& parts, hid_t xfer, const std::string& where) {
    const std::string what = where + ": cannot write /sepsets";
    const hsize_t k = s.size();
    std::vector<std::int32_t> pairs(2 * k);
    for (hsize_t r = 0; r < k; ++r) {
        const auto [i, j] = SepSets::unpack(s.keys()[r]);
        pairs[2 * r] = i;
        pairs[2 * r + 1] = j;
    }
    // Offsets: the first rank also writes the leading 0, the others start after it.
    const bool lead = parts.lead;
    std::vector<std::int64_t> offsets;
    offsets.reserve(k + 1);
    for (hsize_t r = lead ? 0 : 1; r <= k; ++r)
        offsets.push_back(s.offsets()[r] + static_cast<std::int64_t>(parts.nodes_first));
    const hsize_t off_first = lead ? 0 : parts.pairs_first + 1;
    h5::Handle grp = h5::check_id(H5Gopen2(root, "sepsets", H5P_DEFAULT), what);
    const auto write = [&](const char* name, hid_t type, const void* data, std::vector<hsize_t> start,
                           std::vector<hsize_t> count) {
        h5::Handle ds = h5::check_id(H5Dopen2(grp.get(), name, H5P_DEFAULT), what);
        h5::transfer_block(ds.get(), type, const_cast<void*>(data), start, count, xfer, true, what);
    };
    write("pairs", H5T_NATIVE_INT32, pairs.data(), {parts.pairs_first, 0}, {k, 2});
    // A rank with no records writes no offsets (it would only repeat its predecessor's end)
    // unless it is the lead, which writes offsets[0].
    const hsize_t n_off = (k == 0 && !lead) ? 0 : static_cast<hsize_t>(offsets.size());
    write("offsets", H5T_NATIVE_INT64, offsets.data(), {off_first}, {n_off});
    write("nodes", H5T_NATIVE_INT32, s.nodes().data(), {parts.nodes_first}, {s.nodes().size()});
}

void create_pmax_pairs(hid_t group, const RecordParts& parts, const std::string& where) {
    h5::create_dataset(group, "pairs", h5::TypeOf<std::int32_t>::file(), {parts.pmax_total, 2}, where);
    h5::create_dataset(group, "values", h5::TypeOf<double>::file(), {parts.pmax_total}, where);
}

void write_pmax_pairs_part(hid_t group, std::span<const PairP> pmax, const RecordParts& parts, hid_t xfer,
                           const std::string& where) {
    const std::string what = where + ": cannot write pMax";
    std::vector<std::int32_t> pairs(2 * pmax.size());
    std::vector<double> values(pmax.size());
    for (std::size_t k = 0; k < pmax.size(); ++k) {
        pairs[2 * k] = pmax[k].i;
        pairs[2 * k + 1] = pmax[k].j;
        values[k] = pmax[k].p;
    }
    h5::Handle ds = h5::check_id(H5Dopen2(group, "pairs", H5P_DEFAULT), what);
    h5::transfer_block(ds.get(), H5T_NATIVE_INT32, pairs.data(), {parts.pmax_first, 0}, {pmax.size(), 2}, xfer, true,
                       what);
    ds = h5::check_id(H5Dopen2(group, "values", H5P_DEFAULT), what);
    h5::transfer_block(ds.get(), H5T_NATIVE_DOUBLE, values.data(), {parts.pmax_first}, {pmax.size()}, xfer, true, what);
}

void write_records_part(hid_t root, const SepSets& s, std::span<const PairP> pmax, const RecordParts& parts, hid_t xfer,
                        const std::string& where) {
    write_sepsets_part(root, s, parts, xfer, where);
    h5::Handle g = h5::check_id(H5Gopen2(root, "pmax", H5P_DEFAULT), where + ": no /pmax");
    write_pmax_pairs_part(g.get(), pmax, parts, xfer, where);
}

void write_levels(hid_t root, const std::vector<LevelStats>& levels, const std::string& where) {
    std::vector<std::int32_t> level;
    std::vector<std::int64_t> tests, removed, edges_after;
    std::vector<double> secs, imbalance, tests_imbalance, merge;
    for (const LevelStats& s : levels) {
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

std::vector<LevelStats> read_levels(hid_t root, const std::string& where) {
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
    std::vector<LevelStats> out(k);
    for (std::size_t r = 0; r < k; ++r)
        out[r] = {level[r], tests[r], removed[r], edges_after[r], secs[r], imbalance[r], tests_imbalance[r], merge[r]};
    return out;
}

}  // namespace cudag::skeleton::layout
