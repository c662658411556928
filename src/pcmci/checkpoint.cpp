// SPDX-License-Identifier: Apache-2.0
#include "pcmci/checkpoint.hpp"

#include <cstring>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "io/hdf5_file.hpp"

namespace cudag::pcmci {

namespace h5 = io::h5;

std::uint64_t query_key(std::int32_t x, std::int32_t y, std::span<const std::int32_t> set) {
    Digest d;
    d.add_value(x).add_value(y).add_value(static_cast<std::uint64_t>(set.size()));
    if (!set.empty()) d.add_bytes(set.data(), set.size_bytes());
    return d.value();
}

AnsweredTests read_checkpoint(const std::string& path, const std::string& config_hash,
                              const io::CheckpointSettings& settings) {
    const io::CheckpointFile file = io::CheckpointFile::open(path, kCheckpointFormat, config_hash, settings);
    AnsweredTests t;
    file.read([&](hid_t root) {
        const std::string& where = file.where();
        t.key = h5::read_array<std::int64_t>(root, "tests/key", where);
        t.statistic = h5::read_array<double>(root, "tests/statistic", where);
        t.p = h5::read_array<double>(root, "tests/p_value", where);
        if (t.statistic.size() != t.key.size() || t.p.size() != t.key.size())
            throw file.corrupt("/tests holds " + std::to_string(t.key.size()) + " keys, " +
                               std::to_string(t.statistic.size()) + " statistics and " + std::to_string(t.p.size()) +
                               " p-values");
        for (std::size_t q = 0; q < t.size(); ++q)
            if (!ci::is_result(t.statistic[q], t.p[q]))
                throw file.corrupt("test " + std::to_string(q) + " holds no result (statistic " +
                                   std::to_string(t.statistic[q]) + ", p-value " + std::to_string(t.p[q]) + ")");
    });
    return t;
}

void write_checkpoint(const std::string& path, const std::string& config_hash, const io::CheckpointSettings& settings,
                      const AnsweredTests& tests) {
    io::CheckpointFile file = io::CheckpointFile::create(path, kCheckpointFormat, config_hash, settings);
    {
        const h5::Handle g = h5::create_group(file.root(), "tests", file.where());
        const std::vector<hsize_t> dims{static_cast<hsize_t>(tests.size())};
        h5::write_array(g.get(), "key", tests.key, dims, file.where());
        h5::write_array(g.get(), "statistic", tests.statistic, dims, file.where());
        h5::write_array(g.get(), "p_value", tests.p, dims, file.where());
    }
    file.commit();
}

namespace {

/// The answered tests as bytes (count, then keys, statistics, p-values) and back.
std::vector<std::byte> to_blob(const AnsweredTests& t) {
    const std::uint64_t n = t.size();
    std::vector<std::byte> blob(sizeof n + n * (sizeof(std::int64_t) + 2 * sizeof(double)));
    std::byte* at = blob.data();
    const auto put = [&at](const void* data, std::size_t bytes) {
        if (bytes) std::memcpy(at, data, bytes);
        at += bytes;
    };
    put(&n, sizeof n);
    put(t.key.data(), n * sizeof(std::int64_t));
    put(t.statistic.data(), n * sizeof(double));
    put(t.p.data(), n * sizeof(double));
    return blob;
}

AnsweredTests from_blob(const std::vector<std::byte>& blob) {
    std::uint64_t n = 0;
    std::memcpy(&n, blob.data(), sizeof n);
    AnsweredTests t;
    t.key.resize(n);
    t.statistic.resize(n);
    t.p.resize(n);
    const std::byte* at = blob.data() + sizeof n;
    const auto get = [&at](void* data, std::size_t bytes) {
        if (bytes) std::memcpy(data, at, bytes);
        at += bytes;
    };
    get(t.key.data(), n * sizeof(std::int64_t));
    get(t.statistic.data(), n * sizeof(double));
    get(t.p.data(), n * sizeof(double));
    return t;
}

std::int64_t key_bits(std::uint64_t key) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &key, sizeof bits);
    return bits;
}

}  // namespace

CheckpointBatch::CheckpointBatch(std::unique_ptr<ci::BatchTest> inner, Options options, mpi::Communicator* comm)
    : inner_(std::move(inner)),
      options_(std::move(options)),
      comm_(comm && comm->size() > 1 ? comm : nullptr),
      last_write_(std::chrono::steady_clock::now()) {
    if (!options_.resume) return;
    const bool root = !comm_ || comm_->rank() == 0;
    agreed([&] {
        if (root) tests_ = read_checkpoint(options_.path, options_.config_hash, options_.settings);
    });
    if (comm_) {
        std::vector<std::byte> blob;
        if (root) blob = to_blob(tests_);
        comm_->bcast_blob(blob, 0);
        if (!root) tests_ = from_blob(blob);
    }
    resumed_ = written_ = tests_.size();
}

void CheckpointBatch::agreed(const std::function<void()>& fn) {
    if (comm_)
        mpi::run_agreed(*comm_, fn);
    else
        fn();
}

void CheckpointBatch::run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) {
    const std::size_t m = queries.size();
    const std::size_t replay = cursor_ < resumed_ ? std::min(m, resumed_ - cursor_) : 0;
    if (replay > 0)
        agreed([&] {
            for (std::size_t q = 0; q < replay; ++q) {
                const std::size_t at = cursor_ + q;
                if (tests_.key[at] != key_bits(query_key(queries.x[q], queries.y[q], queries.set(q))))
                    throw InputError("checkpoint '" + options_.path + "' does not fit this run: its test " +
                                     std::to_string(at) +
                                     " is another than the one asked now (written by another cudag version?); "
                                     "remove it or add --overwrite-checkpoint");
                statistic[q] = tests_.statistic[at];
                p[q] = tests_.p[at];
            }
        });
    if (replay < m) {
        const ci::Queries rest = queries.slice(replay, m);
        inner_->run(rest, statistic.subspan(replay), p.subspan(replay));
        // Here every recorded test has been replayed: the new ones extend the stream.
        for (std::size_t q = 0; q < rest.size(); ++q) {
            tests_.key.push_back(key_bits(query_key(rest.x[q], rest.y[q], rest.set(q))));
            tests_.statistic.push_back(statistic[replay + q]);
            tests_.p.push_back(p[replay + q]);
        }
    }
    cursor_ += m;
    if (replay == m) return;
    const std::optional<std::int64_t> after = options_.stop_after_tests;
    const bool stop = after && *after >= 0 && cursor_ >= static_cast<std::size_t>(*after);
    write_due(stop);
    if (stop) throw StoppedAfterTests(static_cast<std::int64_t>(cursor_));
}

void CheckpointBatch::flush() { write_due(true); }

void CheckpointBatch::write_due(bool force) {
    const bool root = !comm_ || comm_->rank() == 0;
    agreed([&] {
        if (!root || tests_.size() == written_) return;
        const auto now = std::chrono::steady_clock::now();
        if (!force && std::chrono::duration<double>(now - last_write_).count() < options_.every_seconds) return;
        write_checkpoint(options_.path, options_.config_hash, options_.settings, tests_);
        written_ = tests_.size();
        last_write_ = std::chrono::steady_clock::now();
        if (options_.on_write) options_.on_write(static_cast<std::int64_t>(written_));
    });
}

}  // namespace cudag::pcmci
