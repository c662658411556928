// SPDX-License-Identifier: Apache-2.0
// The local-score table split over ranks (issue 32): every rank computes the entries (and,
// for max mode, the score-sorted lists) of one contiguous block of nodes, the blocks
// balanced by entries. Sum mode then makes the table whole on every rank (one allgatherv),
// bit for bit the table one process builds; max mode shares only the dominance-pruned
// sorted lists, which carry their scores (a few thousand entries where the table has
// billions), and each rank keeps the entries of its own block alone. The chains then run
// over the table (bn/mcmc_run.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "bn/score.hpp"
#include "bn/score_table.hpp"
#include "mpi/communicator.hpp"
#include "mpi/partition.hpp"

namespace cudag::bn {

/// The nodes each of `parts` (>= 1) ranks computes: contiguous blocks of about equal
/// entry counts (node_entries[v], every node's; mpi::partition_rows over them). A pure
/// function of its input, so every rank computes the same cut; with more parts than nodes
/// some blocks are empty.
mpi::RowPartition table_node_blocks(std::span<const std::int64_t> node_entries, int parts);
/// The same for the nodes of `table`.
mpi::RowPartition table_node_blocks(const ScoreTable& table, int parts);
/// Part `part`'s nodes.
NodeRange node_block(const mpi::RowPartition& blocks, int part);

/// What fill_table_split did on this rank.
struct TableShare {
    NodeRange nodes;            ///< the nodes this rank computed
    std::int64_t entries = 0;   ///< their entries
    std::int64_t heaviest = 0;  ///< the most entries any rank computed
    int ranks = 1;
    double seconds_own = 0.0;    ///< this rank computing its nodes
    double seconds_total = 0.0;  ///< until the table was whole here (waits and the gather included)
};

/// Whether fill_table_split makes the table whole on every rank.
enum class TableGather { Whole, OwnBlock };

/// Collective over `comm`: `table` (laid out alike on every rank, ScoreTable::layout)
/// gets every entry, each rank computing those of its block (table_node_blocks; with
/// `scorer`, after `filler` when given, ScoreTable::fill_nodes), then, with
/// TableGather::Whole, one allgatherv of the blocks' entries. With OwnBlock (and more than
/// one rank) the table holds this rank's block only (ScoreTable::hold_only) until
/// gather_table_split. A failure on one rank (agreed, mpi::run_agreed) ends every rank.
TableShare fill_table_split(ScoreTable& table, const LocalScorer& scorer, int threads, const ScoreTable::Filler& filler,
                            mpi::Communicator& comm, TableGather gather = TableGather::Whole);
/// Collective: a table filled with TableGather::OwnBlock made whole on every rank (one
/// allgatherv); nothing when it is whole already (on every rank alike). Returns seconds.
double gather_table_split(ScoreTable& table, mpi::Communicator& comm);

/// Collective ScoreTable::build_sorted over `comm`: each rank sorts the nodes of its block
/// (with `sorter` when given), then allgathervs share the lists (offsets, parents and
/// scores; the table need hold only this rank's block). `budget_bytes` (< 0: no
/// limit) is taken as its smallest over the ranks, so the answer (built or not) and the
/// lists are the same on every rank and equal to one process's.
bool build_sorted_split(ScoreTable& table, int threads, double budget_bytes, const ScoreTable::Filler& sorter,
                        mpi::Communicator& comm);

}  // namespace cudag::bn
