// SPDX-License-Identifier: Apache-2.0
// The kept-iteration traces of an MCMC checkpoint, appended to a file beside it instead of
// rewritten with every checkpoint (issue 33 item 5: rewriting every trace so far made
// checkpoint I/O quadratic in the iterations).
//
// The checkpoint itself (small: orders, counters, edge sums) is still replaced atomically
// (io/checkpoint_file.hpp); it records the log's run id and how many of its bytes are
// valid. A checkpoint appends the new kept iterations to the log first and then commits
// the state, so a kill at any point leaves a state whose recorded length the log holds
// whole; bytes beyond it (an append the state never recorded) are ignored on resume and
// cut off before the next append.
//
// Layout (little-endian, as the hosts cudag runs on):
//   header  "CUDAGTRC" (8 bytes), version u64 (1), run id u64, chains u64
//   blocks  from u64, to u64, checksum u64 (FNV-1a 64 of the payload), then the payload:
//           chains x (to - from) doubles, chain-major (chain 0's iterations from..to-1 first)
// Block k's `from` is block k-1's `to` (the first's is 0), so the log holds every chain's
// kept iterations 0..to-1 of its last block.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cudag::io {

class OutputSet;

/// The trace log of the checkpoint at `checkpoint`: "<checkpoint>.traces".
std::string trace_log_path(const std::string& checkpoint);

/// A trace log being appended to (rank 0 of a run with --checkpoint). Move-only.
class TraceLog {
public:
    /// A new log for `chains` chains with a fresh run id, written under a temporary beside
    /// trace_log_path(checkpoint) (removed on SIGINT/SIGTERM or an exception) until
    /// publish(). Throws InputError when the directory is not writable.
    static TraceLog create(const std::string& checkpoint, std::int64_t chains);

    /// The log of a checkpoint being resumed, whose state recorded `run_id` and `bytes`
    /// holding `kept` kept iterations of every chain (read_trace_log has checked them):
    /// cut to `bytes` (dropping an append the state never recorded) and appended to.
    static TraceLog reopen(const std::string& checkpoint, std::uint64_t run_id, std::uint64_t bytes,
                           std::int64_t chains, std::int64_t kept);

    TraceLog(TraceLog&&) noexcept;
    TraceLog& operator=(TraceLog&&) noexcept;
    /// A log this run created whose state was never committed is removed.
    ~TraceLog();

    /// Append every chain's kept iterations kept()..kept()+m-1: `tails[c]` (m values each,
    /// one vector per chain in chain order). The bytes are handed to the kernel before it
    /// returns (a killed process loses none of them). Throws InputError "cannot write
    /// checkpoint '<checkpoint>': <reason>" (the disk full, a file-size limit ...).
    void append(const std::vector<std::vector<double>>& tails);

    /// Move a created log onto trace_log_path (no-op once done, or for a reopened log).
    /// Call after append() and before committing the state that records bytes().
    void publish();

    /// A state recording this log has been committed: the log is the checkpoint's now.
    void state_committed() { committed_ = true; }

    std::uint64_t run_id() const { return run_id_; }
    std::uint64_t bytes() const { return bytes_; }  ///< the log's length
    std::int64_t kept() const { return kept_; }     ///< kept iterations it holds per chain

private:
    TraceLog() = default;
    void write_all(const void* data, std::size_t size);

    std::unique_ptr<OutputSet> out_;  ///< set while a created log is under its temporary
    std::string checkpoint_, path_;   ///< path_: the file being written (temporary or final)
    int fd_ = -1;
    std::uint64_t run_id_ = 0, bytes_ = 0;
    std::int64_t chains_ = 0, kept_ = 0;
    bool created_ = false, committed_ = false;
};

/// Chains [first, last) of the trace log of `checkpoint`, each `kept` values, reading its
/// first `bytes` bytes (what the checkpoint's state recorded). Throws InputError in one
/// line (the caller makes it a CorruptCheckpoint) when the log is missing, belongs to
/// another run (`run_id`) or chain count, is shorter than `bytes`, or a block is out of
/// sequence or fails its checksum.
std::vector<std::vector<double>> read_trace_log(const std::string& checkpoint, std::uint64_t run_id,
                                                std::uint64_t bytes, std::int64_t chains, std::int64_t kept,
                                                std::int64_t first, std::int64_t last);

}  // namespace cudag::io
