// SPDX-License-Identifier: Apache-2.0
#include "io/trace_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "core/error.hpp"
#include "io/output_set.hpp"

namespace cudag::io {

namespace {

constexpr char kMagic[8] = {'C', 'U', 'D', 'A', 'G', 'T', 'R', 'C'};
constexpr std::uint64_t kVersion = 1;
constexpr std::uint64_t kHeaderBytes = 32;       // magic, version, run id, chains
constexpr std::uint64_t kBlockHeaderBytes = 24;  // from, to, checksum

std::uint64_t fnv1a(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = 14695981039346656037ull;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

void put(std::vector<unsigned char>& buf, std::uint64_t v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    buf.insert(buf.end(), p, p + sizeof v);
}

std::uint64_t fresh_run_id() {
    std::random_device rd;
    std::uint64_t id = 0;
    while (id == 0) id = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    return id;
}

}  // namespace

std::string trace_log_path(const std::string& checkpoint) { return checkpoint + ".traces"; }

TraceLog::TraceLog(TraceLog&& o) noexcept { *this = std::move(o); }

TraceLog& TraceLog::operator=(TraceLog&& o) noexcept {
    if (this == &o) return *this;
    if (fd_ >= 0) ::close(fd_);
    out_ = std::move(o.out_);
    checkpoint_ = std::move(o.checkpoint_);
    path_ = std::move(o.path_);
    fd_ = o.fd_;
    run_id_ = o.run_id_;
    bytes_ = o.bytes_;
    chains_ = o.chains_;
    kept_ = o.kept_;
    created_ = o.created_;
    committed_ = o.committed_;
    o.fd_ = -1;
    o.created_ = false;
    return *this;
}

TraceLog::~TraceLog() {
    if (fd_ >= 0) ::close(fd_);
    // A published log no state ever recorded would be a stray file beside the checkpoint.
    if (created_ && !out_ && !committed_) ::unlink(path_.c_str());
}

void TraceLog::write_all(const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t w = ::write(fd_, p, size);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0)
            throw InputError("cannot write checkpoint '" + checkpoint_ + "' (its trace log): " + std::strerror(errno));
        p += w;
        size -= static_cast<std::size_t>(w);
        bytes_ += static_cast<std::uint64_t>(w);
    }
}

TraceLog TraceLog::create(const std::string& checkpoint, std::int64_t chains) {
    TraceLog log;
    log.out_ = std::make_unique<OutputSet>();
    log.checkpoint_ = checkpoint;
    log.path_ = log.out_->temp_for(trace_log_path(checkpoint));
    log.fd_ = ::open(log.path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log.fd_ < 0)
        throw InputError("cannot write checkpoint '" + checkpoint + "' (its trace log): " + std::strerror(errno));
    log.created_ = true;
    log.run_id_ = fresh_run_id();
    log.chains_ = chains;
    std::vector<unsigned char> head(kMagic, kMagic + 8);
    put(head, kVersion);
    put(head, log.run_id_);
    put(head, static_cast<std::uint64_t>(chains));
    log.write_all(head.data(), head.size());
    return log;
}

TraceLog TraceLog::reopen(const std::string& checkpoint, std::uint64_t run_id, std::uint64_t bytes, std::int64_t chains,
                          std::int64_t kept) {
    TraceLog log;
    log.checkpoint_ = checkpoint;
    log.path_ = trace_log_path(checkpoint);
    log.fd_ = ::open(log.path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (log.fd_ < 0 || ::ftruncate(log.fd_, static_cast<off_t>(bytes)) != 0 ||
        ::lseek(log.fd_, static_cast<off_t>(bytes), SEEK_SET) < 0)
        throw InputError("cannot write checkpoint '" + checkpoint + "' (its trace log '" + log.path_ +
                         "'): " + std::strerror(errno));
    log.run_id_ = run_id;
    log.bytes_ = bytes;
    log.chains_ = chains;
    log.kept_ = kept;
    return log;
}

void TraceLog::append(const std::vector<std::vector<double>>& tails) {
    CUDAG_ASSERT(static_cast<std::int64_t>(tails.size()) == chains_);
    const std::size_t m = tails.empty() ? 0 : tails[0].size();
    if (m == 0) return;
    std::vector<unsigned char> buf;
    buf.reserve(kBlockHeaderBytes + tails.size() * m * sizeof(double));
    put(buf, static_cast<std::uint64_t>(kept_));
    put(buf, static_cast<std::uint64_t>(kept_) + m);
    put(buf, 0);  // the checksum, below
    for (const auto& t : tails) {
        CUDAG_ASSERT(t.size() == m);
        const auto* p = reinterpret_cast<const unsigned char*>(t.data());
        buf.insert(buf.end(), p, p + m * sizeof(double));
    }
    const std::uint64_t sum = fnv1a(buf.data() + kBlockHeaderBytes, buf.size() - kBlockHeaderBytes);
    std::memcpy(buf.data() + 16, &sum, sizeof sum);
    write_all(buf.data(), buf.size());
    kept_ += static_cast<std::int64_t>(m);
}

void TraceLog::publish() {
    if (!out_) return;
    out_->commit();
    out_.reset();
    path_ = trace_log_path(checkpoint_);
}

std::vector<std::vector<double>> read_trace_log(const std::string& checkpoint, std::uint64_t run_id,
                                                std::uint64_t bytes, std::int64_t chains, std::int64_t kept,
                                                std::int64_t first, std::int64_t last) {
    const std::string path = trace_log_path(checkpoint);
    const std::string where = "its trace log '" + path + "'";
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(where + " cannot be read (" + std::strerror(errno) +
                         "; it is written beside the checkpoint: keep the two together)");
    const auto read_u64 = [&](std::uint64_t& v) { return static_cast<bool>(in.read(reinterpret_cast<char*>(&v), 8)); };
    char magic[8] = {};
    std::uint64_t version = 0, id = 0, n_chains = 0;
    if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 8) != 0 || !read_u64(version) || version != kVersion ||
        !read_u64(id) || !read_u64(n_chains))
        throw InputError(where + " is not a cudag trace log");
    if (id != run_id)
        throw InputError(where + " belongs to another run (run id " + std::to_string(id) + ", the checkpoint's " +
                         std::to_string(run_id) + ")");
    if (static_cast<std::int64_t>(n_chains) != chains)
        throw InputError(where + " holds " + std::to_string(n_chains) + " chains, not " + std::to_string(chains));
    std::vector<std::vector<double>> out(static_cast<std::size_t>(last - first));
    for (auto& t : out) t.reserve(static_cast<std::size_t>(kept));
    std::uint64_t at = kHeaderBytes, to_prev = 0;
    std::vector<double> payload;
    while (at < bytes) {
        std::uint64_t from = 0, to = 0, sum = 0;
        if (bytes - at < kBlockHeaderBytes || !read_u64(from) || !read_u64(to) || !read_u64(sum))
            throw InputError(where + " ends inside a block header at byte " + std::to_string(at));
        if (from == to_prev && to > static_cast<std::uint64_t>(kept))
            throw InputError(where + " holds iterations beyond the " + std::to_string(kept) +
                             " kept ones the checkpoint records");
        if (from != to_prev || to <= from)
            throw InputError(where + " has a block of iterations [" + std::to_string(from) + ", " + std::to_string(to) +
                             ") at byte " + std::to_string(at) + ", out of sequence");
        const std::uint64_t size = static_cast<std::uint64_t>(chains) * (to - from) * sizeof(double);
        if (bytes - at - kBlockHeaderBytes < size)
            throw InputError(where + " ends inside the block at byte " + std::to_string(at));
        payload.resize(size / sizeof(double));
        if (!in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(size)))
            throw InputError(where + " is shorter than the " + std::to_string(bytes) + " bytes the checkpoint records");
        if (fnv1a(payload.data(), size) != sum)
            throw InputError(where + ": the block at byte " + std::to_string(at) + " fails its checksum");
        const std::size_t m = to - from;
        for (std::int64_t c = first; c < last; ++c) {
            const double* p = payload.data() + static_cast<std::size_t>(c) * m;
            out[static_cast<std::size_t>(c - first)].insert(out[static_cast<std::size_t>(c - first)].end(), p, p + m);
        }
        at += kBlockHeaderBytes + size;
        to_prev = to;
    }
    if (at != bytes || to_prev != static_cast<std::uint64_t>(kept))
        throw InputError(where + " holds " + std::to_string(to_prev) + " kept iterations, the checkpoint " +
                         std::to_string(kept));
    return out;
}

}  // namespace cudag::io
