// SPDX-License-Identifier: Apache-2.0
// The groups a PC result file and a PC checkpoint share (layout in io/result_file.hpp),
// written and read in one place.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/hdf5_file.hpp"
#include "pc/result.hpp"

namespace cudag::io::layout {

/// /skeleton/edges: int32 E×2, rows (i, j), i < j, sorted.
void write_skeleton(hid_t root, const Graph& g, const std::string& where);
/// The graph on n nodes whose edges /skeleton/edges lists.
Graph read_skeleton(hid_t root, std::int64_t n, const std::string& where);

/// /sepsets/{pairs (int32 K×2), offsets (int64 K+1), nodes (int32)}.
void write_sepsets(hid_t root, const SepSets& s, const std::string& where);
SepSets read_sepsets(hid_t root, std::int64_t n, const std::string& where);

/// {pairs (int32 P×2), values (float64 P)} in `group`.
void write_pmax_pairs(hid_t group, std::span<const pc::PairP> pmax, std::int64_t n,
                      const std::string& where);
pc::PairPList read_pmax_pairs(hid_t group, std::int64_t n, const std::string& where);

/// /levels/{level (int32), tests, removed, edges_after (int64), seconds, imbalance,
/// tests_imbalance (float64)}.
void write_levels(hid_t root, const std::vector<pc::LevelStats>& levels, const std::string& where);
std::vector<pc::LevelStats> read_levels(hid_t root, const std::string& where);

/// /config: one string attribute per (key, value), keys mapped by sanitize_attr_name
/// (io/result_file.hpp; a repeated key gets _2, _3, ...).
void write_config(hid_t root, const std::vector<std::pair<std::string, std::string>>& config,
                  const std::string& where);

}  // namespace cudag::io::layout
