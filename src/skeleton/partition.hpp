// SPDX-License-Identifier: Apache-2.0
// A level's rank partition: which entries of the snapshot each rank tests, and where their
// bits lie in the level's removal map (LevelFrame). Internal to the level loop
// (skeleton/search.hpp).
#pragma once

#include <vector>

#include "core/graph.hpp"
#include "skeleton/level_results.hpp"

namespace cudag::skeleton::detail {

/// Rank `me` of `parts`'s part of level `f.level` on `snap`, from each row's estimated work
/// (row_work), and the layout of the level's removal map, into `f` (rb, re, eb, ee, counts,
/// first_byte, total, bit0, by_entry, entry_cut); returns the estimated imbalance (busiest
/// part over the mean). `split_rows` (an engine that splits rows, on several ranks): parts
/// of equal estimated work by entry (a hub row's entries spread over the ranks; the merged
/// map is then laid out by entry: bit e <=> entry e); otherwise contiguous whole rows of
/// equal work (row a's entries from bit bit0[a] of its owner's block). The same cut on
/// every rank.
double cut_level(const Adjacency& snap, const std::vector<double>& work, int parts, int me, bool split_rows,
                 LevelFrame& f);

}  // namespace cudag::skeleton::detail
