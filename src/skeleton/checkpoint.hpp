// SPDX-License-Identifier: Apache-2.0
// Level checkpoints of the skeleton search: its state after a level (SkeletonState), in
// HDF5, written and checked through io::CheckpointFile (io/checkpoint_file.hpp). The file's
// format name is the learner's (PC's: pc::checkpoint_format), so that one learner's
// checkpoint is never resumed by another.
#pragma once

#include <cstdint>
#include <string>

#include "io/checkpoint_file.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag::skeleton {

/// Write `s` to `path` as a checkpoint of `format`: to a temporary in the same directory, renamed over `path` when
/// complete, so a kill mid-write leaves the previous checkpoint intact. Layout:
///   /                  attrs format (format.name), cudag_version, config_hash (CheckpointFile's)
///   /state/next_level  int64[1]; /state/n_vars int64[1]
///   /skeleton, /sepsets, /levels   as in PC's result file (skeleton/layout.hpp)
///   /pmax/{pairs, values}          the merged pMax so far
void write_checkpoint(const io::CheckpointFormat& format, const SkeletonState& s, const std::string& config_hash,
                      const std::string& path, const io::CheckpointSettings& settings = {});

/// The collective form, for a run that keeps its records distributed (s.record_rows):
/// every rank of `comm` calls it with its state. Rank 0 writes the temporary with
/// everything but the records, every rank then writes its separating sets and pMax into
/// it through MPI-IO (collectively), and rank 0 renames it over `path` once all have
/// written. The same file as write_checkpoint of the gathered state. Failures are agreed
/// on (every rank throws).
void write_checkpoint(const io::CheckpointFormat& format, const SkeletonState& s, const std::string& config_hash,
                      const std::string& path, mpi::Communicator& comm, const io::CheckpointSettings& settings = {});

/// Read the checkpoint of `format` at `path` for a run on `n_vars` variables whose configuration
/// hashes to `config_hash`. Throws InputError when the file is missing or is not a
/// checkpoint of `format`, or when it was written for other data or options; CorruptCheckpoint
/// (io/checkpoint_file.hpp) when a dataset is missing, fails its checksum or holds values
/// that no search can have reached (next_level outside [1, n], levels, sepsets or pMax
/// that disagree with the skeleton or are out of range).
SkeletonState read_checkpoint(const io::CheckpointFormat& format, const std::string& path,
                              const std::string& config_hash, std::int64_t n_vars,
                              const io::CheckpointSettings& settings = {});

}  // namespace cudag::skeleton
