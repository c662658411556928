// SPDX-License-Identifier: Apache-2.0
// A learner's checkpoint file in HDF5, independent of the learner: root attributes that
// name the format and the configuration it was written for, an atomic replace on write,
// and the checks on read. The learner writes and reads its own groups below the root.
#pragma once

#include <hdf5.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"
#include "mpi/communicator.hpp"

namespace cudag::io {

class OutputSet;

/// What a learner's checkpoints are called: the root attribute "format" (e.g.
/// "cudag-pc-checkpoint-1") and the learner's name in messages (e.g. "PC").
struct CheckpointFormat {
    const char* name;
    const char* learner;
};

/// One value a checkpoint's configuration hash covers, kept readable in the file so that a
/// refused resume says which differs: `name` an option ("--iterations") or a phrase ("the
/// data"), `value` its text (a digest for data).
struct CheckpointSetting {
    std::string name, value;
};
using CheckpointSettings = std::vector<CheckpointSetting>;

/// The setting naming the command that wrote a checkpoint whose format two commands share
/// ("cudag pc --bootstrap", "cudag mcmc --bootstrap"): a refused resume names it first.
inline constexpr const char* kCheckpointCommand = "the command";

/// A checkpoint that cannot be trusted: "checkpoint '<path>' is corrupt: <what>".
class CorruptCheckpoint : public InputError {
public:
    CorruptCheckpoint(const std::string& path, const std::string& what)
        : InputError("checkpoint '" + path + "' is corrupt: " + what) {}
};

/// Before a run with `--checkpoint path`: throws InputError when `resume` and `overwrite`
/// are both given, or when neither is and `path` exists ("checkpoint '<path>' exists: add
/// --resume to continue it, or remove it"), so that a finished or long run's state is
/// never replaced by accident. `overwrite` (--overwrite-checkpoint) starts afresh.
///
/// `side_files` are files the checkpoint keeps beside it that the user did not name (mcmc's
/// trace log): one that is a symbolic link or not a regular file is refused always (cudag
/// never writes a side file through a link); one that exists is refused unless `resume` or
/// `overwrite` ("'C.traces' exists (...): add --resume ..."), so that an unrelated file of
/// that name is never replaced.
void check_checkpoint_start(const std::string& path, bool resume, bool overwrite,
                            const std::vector<std::string>& side_files = {});

/// One checkpoint file, being written or opened for reading. Layout of the root group:
///   attrs format (the learner's format name), cudag_version, config_hash (strings),
///   setting_names, setting_values (strings, one per CheckpointSetting; absent when none),
/// then whatever groups the learner adds. Move-only.
///
/// Its datasets are written with HDF5's Fletcher32 checksum (h5::ChecksummedWrites), so a
/// flipped bit is caught on read; older checkpoints without it are still read.
///
/// Writing goes to a temporary beside the target (OutputSet::temp_for: registered with the
/// interrupt watcher, so SIGINT/SIGTERM remove it) that commit() renames over the target;
/// a kill or an exception before commit() leaves the previous checkpoint intact and
/// removes the temporary.
class CheckpointFile {
public:
    /// Start writing a checkpoint for `path` with the root attributes of `format` and
    /// `config_hash`. Throws InputError when the directory is not writable.
    static CheckpointFile create(const std::string& path, const CheckpointFormat& format,
                                 const std::string& config_hash, const CheckpointSettings& settings = {});

    /// Open the checkpoint at `path` for reading and check it. Throws InputError in one
    /// line when the file does not exist, when its "format" attribute is not `format`'s
    /// name ("... is not a cudag <learner> checkpoint (<name>)"), or when it was written
    /// for another configuration hash: the first of `settings` whose value differs from the
    /// file's is named ("... was written for other options: --iterations was 1000 in the
    /// checkpoint, 2000 now ..."); a checkpoint without settings (earlier versions) or
    /// whose settings all agree gives the two hashes.
    static CheckpointFile open(const std::string& path, const CheckpointFormat& format, const std::string& config_hash,
                               const CheckpointSettings& settings = {});

    CheckpointFile(CheckpointFile&&) noexcept;
    CheckpointFile& operator=(CheckpointFile&&) noexcept;
    /// Closes the file; a checkpoint being written and not committed is removed.
    ~CheckpointFile();

    /// The root group (the file) for the learner's own groups and datasets.
    hid_t root() const { return file_.get(); }
    /// Run `read(root())`, the learner's reading and checks of its groups: any InputError
    /// it throws (a missing or unreadable dataset, a Fletcher32 checksum that does not
    /// match, a value out of range) becomes CorruptCheckpoint.
    void read(const std::function<void(hid_t)>& read) const;
    /// A CorruptCheckpoint for this file (opened for reading).
    CorruptCheckpoint corrupt(const std::string& what) const { return CorruptCheckpoint(path_, what); }

    /// Context for the learner's error messages: "cannot write checkpoint '<path>'" when
    /// writing, "checkpoint '<path>'" when reading.
    const std::string& where() const { return where_; }

    /// Flush and close the file being written, not yet renamed, and return the temporary's
    /// path: other ranks then add their parts to it (through MPI-IO) before commit().
    std::string close_for_parts();

    /// Flush and close the file being written (unless close_for_parts() did) and rename it
    /// over the target. Every handle the learner opened below root() must be closed by then.
    void commit();

private:
    CheckpointFile() = default;

    std::unique_ptr<OutputSet> out_;  ///< set when writing
    /// Set when writing: the datasets the learner creates carry checksums.
    std::unique_ptr<h5::ChecksummedWrites> checksums_;
    h5::Handle file_;  ///< declared after out_: closed before the temporary goes
    std::string where_;
    std::string temp_;  ///< the temporary being written
    std::string path_;  ///< the checkpoint's path
};

/// A checkpoint written by every rank of `comm` (parallel HDF5): rank 0 creates the
/// temporary with the root attributes and calls `head(root, where)` for the learner's
/// groups (datasets that the ranks fill are created there at their final sizes, see
/// h5::create_dataset); then every rank opens it through MPI-IO and calls
/// `part(file, xfer, where)` to write its own part with the collective transfer list
/// `xfer`; once all have, rank 0 renames it over `path`. Failures are agreed on (every
/// rank throws); the temporary is removed then.
void write_checkpoint_in_parts(const std::string& path, const CheckpointFormat& format, const std::string& config_hash,
                               mpi::Communicator& comm, const std::function<void(hid_t, const std::string&)>& head,
                               const std::function<void(hid_t, hid_t, const std::string&)>& part,
                               const CheckpointSettings& settings = {});

}  // namespace cudag::io
