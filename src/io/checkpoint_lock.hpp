// SPDX-License-Identifier: Apache-2.0
// One run at a time on a checkpoint: an exclusive lock held by the rank that writes it, for
// the run's life, that dies with the process (issue 53 item 2).
//
// The lock is flock(2) on a side file "<checkpoint>.lock" (the checkpoint itself is
// replaced by rename at every write, so a lock on it would not last). The file holds one
// line naming its holder ("cudag checkpoint lock: process P on host H, since T"), so that
// a second run is refused at once naming the first. The holder removes the file when it
// releases the lock; a killed holder leaves it behind, unlocked, and the next run takes it
// over. A run that opened the file just before its holder removed it finds the inode gone
// from the path after its flock and tries again, so two runs never both hold a lock.
//
// Where it holds: local file systems; NFS (Linux emulates flock with NFS byte-range locks,
// so it holds across clients with a lock manager, NFSv4 or NFSv3 with lockd); Lustre and
// GPFS mounted with cluster-wide flock ("-o flock" on Lustre; "localflock" holds on one
// node only). Where the file system refuses flock (ENOLCK, ENOSYS, EOPNOTSUPP) the run
// goes on unlocked with a note. HDF5's own file locking (HDF5_USE_FILE_LOCKING) locks the
// checkpoint and its temporary while HDF5 has them open; this lock is on another file and
// neither waits for the other.
#pragma once

#include <string>

namespace cudag::io {

/// "<checkpoint>.lock".
std::string checkpoint_lock_path(const std::string& checkpoint);

/// The lock of one checkpoint, held until destroyed (or the process ends). Move-only.
class CheckpointLock {
public:
    CheckpointLock() = default;
    CheckpointLock(CheckpointLock&& o) noexcept { *this = static_cast<CheckpointLock&&>(o); }
    CheckpointLock& operator=(CheckpointLock&& o) noexcept;
    CheckpointLock(const CheckpointLock&) = delete;
    CheckpointLock& operator=(const CheckpointLock&) = delete;
    /// Removes the lock file and releases the lock.
    ~CheckpointLock() { release(); }

    /// Take the lock of `checkpoint`. Throws InputError in one line when another run holds
    /// it ("checkpoint 'C' is in use by another cudag run (process P on host H, since T):
    /// wait for it to end, or give another --checkpoint"), when the lock file is a symbolic
    /// link or not a file cudag wrote, or cannot be created. Where the file system cannot
    /// lock, returns an unheld lock and sets `note` to say so.
    static CheckpointLock acquire(const std::string& checkpoint, std::string* note = nullptr);

    bool held() const { return fd_ >= 0; }
    void release() noexcept;

private:
    int fd_ = -1;
    std::string path_;
};

}  // namespace cudag::io
