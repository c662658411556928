// SPDX-License-Identifier: Apache-2.0
#include "bn/table_split.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"

namespace cudag::bn {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Each part's share of per-node amounts `per_node` (by node id), in elements of `scale` each.
std::vector<std::size_t> block_counts(const mpi::RowPartition& blocks, std::span<const std::int64_t> per_node,
                                      std::size_t scale) {
    std::vector<std::size_t> counts(static_cast<std::size_t>(blocks.parts()), 0);
    for (int r = 0; r < blocks.parts(); ++r)
        for (std::int64_t v = blocks.begin(r); v < blocks.end(r); ++v)
            counts[static_cast<std::size_t>(r)] +=
                static_cast<std::size_t>(per_node[static_cast<std::size_t>(v)]) * scale;
    return counts;
}

/// Where part `part`'s elements start in an allgatherv of `counts`.
std::size_t displacement(const std::vector<std::size_t>& counts, int part) {
    std::size_t at = 0;
    for (int r = 0; r < part; ++r) at += counts[static_cast<std::size_t>(r)];
    return at;
}

}  // namespace

mpi::RowPartition table_node_blocks(std::span<const std::int64_t> node_entries, int parts) {
    CUDAG_ASSERT(parts >= 1);
    // Entry counts are exact in a double up to 2^53, far beyond any table that fits.
    std::vector<double> work(node_entries.size());
    std::transform(node_entries.begin(), node_entries.end(), work.begin(),
                   [](std::int64_t e) { return static_cast<double>(e); });
    return mpi::partition_rows(work, parts);
}

mpi::RowPartition table_node_blocks(const ScoreTable& table, int parts) {
    std::vector<std::int64_t> entries(static_cast<std::size_t>(table.n_nodes()));
    for (std::int32_t v = 0; v < table.n_nodes(); ++v) entries[static_cast<std::size_t>(v)] = table.node_entries(v);
    return table_node_blocks(entries, parts);
}

NodeRange node_block(const mpi::RowPartition& blocks, int part) {
    return {static_cast<std::int32_t>(blocks.begin(part)), static_cast<std::int32_t>(blocks.end(part))};
}

TableShare fill_table_split(ScoreTable& table, const LocalScorer& scorer, int threads, const ScoreTable::Filler& filler,
                            mpi::Communicator& comm, TableGather gather) {
    const auto t0 = std::chrono::steady_clock::now();
    const int ranks = comm.size();
    const mpi::RowPartition blocks = table_node_blocks(table, ranks);
    TableShare share;
    share.ranks = ranks;
    share.nodes = node_block(blocks, comm.rank());
    share.entries = table.block_entries(share.nodes);
    for (int r = 0; r < ranks; ++r)
        share.heaviest = std::max(share.heaviest, table.block_entries(node_block(blocks, r)));
    mpi::run_agreed(comm, [&] {
        table.fill_nodes(scorer, share.nodes, threads, filler);
        share.seconds_own = seconds_since(t0);
    });
    if (ranks > 1) {
        // Every rank learns how many entries each node's rank scored (pruning may skip some).
        std::vector<std::size_t> node_counts(static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r) {
            const NodeRange b = node_block(blocks, r);
            node_counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(b.end - b.begin);
        }
        const std::span<std::int64_t> all = table.mutable_scored(table.all_nodes());
        comm.allgatherv(all.data() + share.nodes.begin, all.data(), node_counts, mpi::DataType::Int64);
        table.hold_only(share.nodes);
        if (gather == TableGather::Whole) gather_table_split(table, comm);
    }
    share.seconds_total = seconds_since(t0);
    return share;
}

double gather_table_split(ScoreTable& table, mpi::Communicator& comm) {
    const auto t0 = std::chrono::steady_clock::now();
    if (table.holds_all()) return 0.0;  // alike on every rank: fill_table_split decided it
    const int ranks = comm.size();
    const mpi::RowPartition blocks = table_node_blocks(table, ranks);
    std::vector<std::size_t> counts(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(table.block_entries(node_block(blocks, r)));
    // In place: this rank's block already sits at its slot of the whole table.
    const NodeRange mine = node_block(blocks, comm.rank());
    double* all = table.mutable_block_scores(table.all_nodes()).data();
    comm.allgatherv(all + table.node_offset(mine.begin), all, counts, mpi::DataType::Float64);
    table.hold_all();
    return seconds_since(t0);
}

bool build_sorted_split(ScoreTable& table, int threads, double budget_bytes, const ScoreTable::Filler& sorter,
                        mpi::Communicator& comm) {
    const int ranks = comm.size();
    if (ranks == 1) {
        bool built = false;
        mpi::run_agreed(comm, [&] { built = table.build_sorted(threads, budget_bytes, sorter); });
        return built;
    }
    // The smallest budget of all ranks (no limit counts as infinite), so that every rank
    // decides alike: build_sorted's answer depends on the table and the budget alone.
    const double inf = std::numeric_limits<double>::infinity();
    const double budget = comm.allreduce(budget_bytes < 0.0 ? inf : budget_bytes, mpi::ReduceOp::Min);
    const mpi::RowPartition blocks = table_node_blocks(table, ranks);
    const NodeRange mine = node_block(blocks, comm.rank());
    const std::int64_t n = table.n_nodes();
    const auto w = static_cast<std::size_t>(std::max(table.max_parents(), 1));
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(n), 0);  // list length by node
    bool built = false;
    mpi::run_agreed(comm, [&] {
        built = table.build_sorted(threads, std::isinf(budget) ? -1.0 : budget, sorter, mine);
        for (std::int32_t v = mine.begin; built && v < mine.end; ++v)
            lengths[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(table.sorted_offsets(v).size());
    });
    if (!built) return false;  // the same on every rank (see above)

    const std::vector<std::int64_t> ones(static_cast<std::size_t>(n), 1);
    const std::vector<std::size_t> node_counts = block_counts(blocks, ones, 1);
    comm.allgatherv(lengths.data() + mine.begin, lengths.data(), node_counts, mpi::DataType::Int64);
    const std::vector<std::size_t> entry_counts = block_counts(blocks, lengths, 1);
    const std::vector<std::size_t> parent_bytes = block_counts(blocks, lengths, w * sizeof(std::uint16_t));
    const std::size_t at = displacement(entry_counts, comm.rank());
    std::vector<std::uint32_t> offsets;
    std::vector<std::uint16_t> parents;
    std::vector<double> scores;
    mpi::run_agreed(comm, [&] {
        offsets.resize(displacement(entry_counts, ranks));
        parents.resize(offsets.size() * w);
        scores.resize(offsets.size());
        std::size_t i = at;
        for (std::int32_t v = mine.begin; v < mine.end; ++v) {
            const auto o = table.sorted_offsets(v);
            const auto p = table.sorted_parents(v);
            const auto sc = table.sorted_scores(v);
            std::copy(o.begin(), o.end(), offsets.begin() + static_cast<std::ptrdiff_t>(i));
            std::copy(p.begin(), p.end(), parents.begin() + static_cast<std::ptrdiff_t>(i * w));
            std::copy(sc.begin(), sc.end(), scores.begin() + static_cast<std::ptrdiff_t>(i));
            i += o.size();
        }
    });
    // Offsets travel as Int32 and parents as bytes: an allgatherv copies bits unchanged.
    comm.allgatherv(offsets.data() + at, offsets.data(), entry_counts, mpi::DataType::Int32);
    comm.allgatherv(reinterpret_cast<const std::byte*>(parents.data() + at * w), parents.data(), parent_bytes,
                    mpi::DataType::Byte);
    comm.allgatherv(scores.data() + at, scores.data(), entry_counts, mpi::DataType::Float64);
    mpi::run_agreed(comm, [&] {
        std::size_t i = 0;
        for (std::int32_t v = 0; v < n; ++v) {
            const auto len = static_cast<std::size_t>(lengths[static_cast<std::size_t>(v)]);
            const auto b = static_cast<std::ptrdiff_t>(i), e = static_cast<std::ptrdiff_t>(i + len);
            const auto bw = static_cast<std::ptrdiff_t>(i * w), ew = static_cast<std::ptrdiff_t>((i + len) * w);
            if (!mine.contains(v))
                table.set_sorted(v, std::vector<std::uint32_t>(offsets.begin() + b, offsets.begin() + e),
                                 std::vector<std::uint16_t>(parents.begin() + bw, parents.begin() + ew),
                                 std::vector<double>(scores.begin() + b, scores.begin() + e));
            i += len;
        }
    });
    return true;
}

}  // namespace cudag::bn
