// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace cudag::io {

namespace {

constexpr const char* kHead = "cudag checkpoint lock: ";

std::string read_all(int fd) {
    std::string text;
    char buf[512];
    if (::lseek(fd, 0, SEEK_SET) < 0) return text;
    for (ssize_t got; (got = ::read(fd, buf, sizeof buf)) > 0 && text.size() < 4096;)
        text.append(buf, static_cast<std::size_t>(got));
    return text;
}

/// "process P on host H, since T" for this process.
std::string holder_line() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
    char when[64] = {};
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return "process " + std::to_string(static_cast<long>(::getpid())) + " on host " + host + ", since " + when;
}

}  // namespace

std::string checkpoint_lock_path(const std::string& checkpoint) { return checkpoint + ".lock"; }

CheckpointLock& CheckpointLock::operator=(CheckpointLock&& o) noexcept {
    if (this != &o) {
        release();
        fd_ = o.fd_;
        path_ = std::move(o.path_);
        o.fd_ = -1;
        o.path_.clear();
    }
    return *this;
}

void CheckpointLock::release() noexcept {
    if (fd_ < 0) return;
    // Unlinked while still held: a run waiting on this inode sees it gone and retries.
    ::unlink(path_.c_str());
    interrupt::forget_temporary(path_);
    ::close(fd_);
    fd_ = -1;
}

CheckpointLock CheckpointLock::acquire(const std::string& checkpoint, std::string* note) {
    const std::string path = checkpoint_lock_path(checkpoint);
    const std::string what = "'" + path + "' (the lock cudag keeps beside --checkpoint '" + checkpoint + "')";
    for (int attempt = 0; attempt < 100; ++attempt) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            throw InputError(what + (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not a regular file") +
                             ": remove it, or give another --checkpoint");
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) throw InputError("cannot create " + what + ": " + std::strerror(errno));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err == EWOULDBLOCK) {
                std::string holder = read_all(fd);
                ::close(fd);
                if (holder.compare(0, std::strlen(kHead), kHead) == 0) holder = holder.substr(std::strlen(kHead));
                while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
                throw InputError("checkpoint '" + checkpoint + "' is in use by another cudag run" +
                                 (holder.empty() ? std::string() : " (" + holder + ")") +
                                 ": wait for it to end, or give another --checkpoint");
            }
            ::close(fd);
            if (err == ENOLCK || err == ENOSYS || err == EOPNOTSUPP || err == EINVAL) {
                ::unlink(path.c_str());
                if (note)
                    *note = "the file system of --checkpoint '" + checkpoint + "' cannot lock files (" +
                            std::strerror(err) + "): a second run on the same checkpoint is not refused";
                return {};
            }
            throw InputError("cannot lock " + what + ": " + std::strerror(err));
        }
        // Locked; but the holder before may have removed the file after this open: then
        // the lock is on an inode no longer at `path`, and another run may lock a new one.
        struct stat held {
        }, now{};
        if (::fstat(fd, &held) != 0 || ::stat(path.c_str(), &now) != 0 || held.st_ino != now.st_ino ||
            held.st_dev != now.st_dev) {
            ::close(fd);
            continue;
        }
        const std::string before = read_all(fd);
        if (!before.empty() && before.compare(0, std::strlen(kHead), kHead) != 0) {
            ::close(fd);  // not ours: left as it was
            throw InputError(what + " exists and is not a lock cudag wrote: remove it, or give another --checkpoint");
        }
        const std::string line = kHead + holder_line() + "\n";
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
            const std::string why = std::strerror(errno);
            ::unlink(path.c_str());
            ::close(fd);
            throw InputError("cannot write " + what + ": " + why);
        }
        CheckpointLock lock;
        lock.fd_ = fd;
        lock.path_ = path;
        interrupt::add_temporary(path);
        return lock;
    }
    throw InputError("cannot lock " + what + ": it was removed and created again 100 times");
}

}  // namespace cudag::io
