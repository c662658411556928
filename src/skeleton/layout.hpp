// SPDX-License-Identifier: Apache-2.0
// The HDF5 groups of a skeleton search's results (/skeleton, /sepsets, /pmax, /levels),
// written and read in one place: a learner's result file (PC's, pc/result_file.hpp) and the
// search's checkpoint (skeleton/checkpoint.hpp) share them.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.hpp"
#include "core/sepsets.hpp"
#include "io/hdf5_file.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/types.hpp"

namespace cudag::skeleton::layout {

/// /skeleton/edges: int32 E×2, rows (i, j), i < j, sorted.
void write_skeleton(hid_t root, const Graph& g, const std::string& where);
/// The graph on n nodes whose edges /skeleton/edges lists.
Graph read_skeleton(hid_t root, std::int64_t n, const std::string& where);

/// /sepsets/{pairs (int32 K×2), offsets (int64 K+1), nodes (int32)}.
void write_sepsets(hid_t root, const SepSets& s, const std::string& where);
SepSets read_sepsets(hid_t root, std::int64_t n, const std::string& where);

/// {pairs (int32 P×2), values (float64 P)} in `group`.
void write_pmax_pairs(hid_t group, std::span<const PairP> pmax, std::int64_t n, const std::string& where);
PairPList read_pmax_pairs(hid_t group, std::int64_t n, const std::string& where);

/// Where a rank's part of the distributed records (RecordRows: SkeletonResult::record_rows, PcResult::record_rows) lies
/// in the record datasets, and their sizes: from every rank's counts (one allgather).
struct RecordParts {
    hsize_t pairs_first = 0, pairs_total = 0;  ///< separating sets (pairs) before this rank, in all
    hsize_t nodes_first = 0, nodes_total = 0;  ///< their nodes
    hsize_t pmax_first = 0, pmax_total = 0;    ///< pMax pairs
    bool lead = true;                          ///< rank 0 (writes the leading offset 0)
};
/// Collective: every rank of `comm` calls it with its records.
RecordParts record_parts(const SepSets& s, std::size_t pmax_count, mpi::Communicator& comm);

/// The written-in-parts form of write_sepsets / write_pmax_pairs: create_* (one rank,
/// any driver) makes the datasets at their final sizes, unwritten; write_*_part (every
/// rank, the file opened through MPI-IO, `xfer` collective) writes this rank's records
/// into them. The file then holds what write_sepsets / write_pmax_pairs write for the
/// records of all ranks laid end to end.
void create_sepsets(hid_t root, const RecordParts& parts, const std::string& where);
void write_sepsets_part(hid_t root, const SepSets& s, const RecordParts& parts, hid_t xfer, const std::string& where);
void create_pmax_pairs(hid_t group, const RecordParts& parts, const std::string& where);
void write_pmax_pairs_part(hid_t group, std::span<const PairP> pmax, const RecordParts& parts, hid_t xfer,
                           const std::string& where);
/// write_sepsets_part, then write_pmax_pairs_part into /pmax.
void write_records_part(hid_t root, const SepSets& s, std::span<const PairP> pmax, const RecordParts& parts, hid_t xfer,
                        const std::string& where);

/// /levels/{level (int32), tests, removed, edges_after (int64), seconds, imbalance,
/// tests_imbalance (float64)}.
void write_levels(hid_t root, const std::vector<LevelStats>& levels, const std::string& where);
std::vector<LevelStats> read_levels(hid_t root, const std::string& where);

}  // namespace cudag::skeleton::layout
