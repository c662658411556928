// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/scheduler.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>

#include "core/error.hpp"
#include "io/hdf5_file.hpp"
#include "skeleton/skeleton.hpp"

namespace cudag::bootstrap {

namespace {

/// Pair (i, j), i < j, as one sortable key.
std::uint64_t pair_key(std::int32_t i, std::int32_t j) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
}

/// The most kinds of an adjacent pair a table counts (a PAG's nine).
constexpr int kMaxKinds = kPagKinds - 1;

/// Replicates adjacent by kind (PC's: i --> j, j --> i, i --- j, i <-> j, the others 0; a
/// PAG's: edge_kinds()' order), per pair key.
using PairCounts = std::unordered_map<std::uint64_t, std::array<std::int32_t, kMaxKinds>>;

void count_edges(const ReplicateEdges& edges, PairCounts& counts) {
    for (const PairKind& e : edges) {
        CUDAG_ASSERT(e.i < e.j && e.kind >= 1 && e.kind <= kMaxKinds);
        ++counts[pair_key(e.i, e.j)][static_cast<std::size_t>(e.kind) - 1];
    }
}

/// One record of a rank's counts on the wire.
struct CountRecord {
    std::uint64_t key;
    std::int32_t c[kMaxKinds];
};

std::vector<std::byte> pack(const PairCounts& counts) {
    std::vector<std::byte> blob(counts.size() * sizeof(CountRecord));
    std::size_t at = 0;
    for (const auto& [key, c] : counts) {
        CountRecord rec{key, {}};
        for (int k = 0; k < kMaxKinds; ++k) rec.c[k] = c[static_cast<std::size_t>(k)];
        std::memcpy(blob.data() + at, &rec, sizeof rec);
        at += sizeof rec;
    }
    return blob;
}

void unpack_into(const std::vector<std::byte>& blob, PairCounts& counts) {
    CUDAG_ASSERT(blob.size() % sizeof(CountRecord) == 0);
    for (std::size_t at = 0; at < blob.size(); at += sizeof(CountRecord)) {
        CountRecord rec{};
        std::memcpy(&rec, blob.data() + at, sizeof rec);
        auto& c = counts[rec.key];
        for (int k = 0; k < kMaxKinds; ++k) c[static_cast<std::size_t>(k)] += rec.c[k];
    }
}

/// Seconds between two checkpoints of a bootstrap run (at round boundaries).
constexpr double kCheckpointSeconds = 30.0;

/// The totals of replicates 0 .. done-1 in checkpoint_format(kind) (its layout there).
void write_checkpoint(const Checkpoint& ckpt, TableKind kind, std::int64_t done, const PairCounts& all,
                      const Provenance& provenance) {
    namespace h5 = io::h5;
    io::CheckpointFile file = io::CheckpointFile::create(ckpt.path, checkpoint_format(kind), ckpt.hash, ckpt.settings);
    const std::string& where = file.where();
    std::vector<std::uint64_t> keys;
    for (const auto& kv : all) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    const int kinds = columns(kind) - 1;
    std::vector<std::int32_t> pairs, adjacent;
    for (std::uint64_t key : keys) {
        pairs.push_back(static_cast<std::int32_t>(key >> 32));
        pairs.push_back(static_cast<std::int32_t>(key & 0xFFFFFFFFu));
        const auto& c = all.at(key);
        adjacent.insert(adjacent.end(), c.begin(), c.begin() + kinds);
    }
    {
        h5::Handle g = h5::create_group(file.root(), "bootstrap", where);
        h5::write_array(g.get(), "done", std::vector<std::int64_t>{done}, {1}, where);
        h5::write_array(g.get(), "pairs", pairs, {keys.size(), 2}, where);
        h5::write_array(g.get(), "adjacent", adjacent, {keys.size(), static_cast<hsize_t>(kinds)}, where);
    }
    {
        std::vector<std::string> k, v;
        for (const auto& [key, value] : provenance) {
            k.push_back(key);
            v.push_back(value);
        }
        h5::Handle g = h5::create_group(file.root(), "provenance", where);
        h5::write_strings(g.get(), "keys", k, where);
        h5::write_strings(g.get(), "values", v, where);
    }
    file.commit();
}

/// Reads write_checkpoint's file, of a run of `replicates` replicates, into `all` and
/// `provenance`; returns done (at most `replicates`: a kept checkpoint holds them all).
std::int64_t read_checkpoint(const Checkpoint& ckpt, TableKind kind, std::int64_t replicates, PairCounts& all,
                             Provenance& provenance) {
    namespace h5 = io::h5;
    const io::CheckpointFile file =
        io::CheckpointFile::open(ckpt.path, checkpoint_format(kind), ckpt.hash, ckpt.settings);
    const int kinds = columns(kind) - 1;
    std::int64_t done = 0;
    file.read([&](hid_t root) {
        const std::string& where = file.where();
        h5::Handle g = h5::check_id(H5Gopen2(root, "bootstrap", H5P_DEFAULT), where + ": no /bootstrap");
        const auto d = h5::read_array<std::int64_t>(g.get(), "done", where);
        const auto pairs = h5::read_array<std::int32_t>(g.get(), "pairs", where);
        const auto adjacent = h5::read_array<std::int32_t>(g.get(), "adjacent", where);
        if (d.size() != 1 || d[0] < 0 || pairs.size() % 2 != 0 ||
            adjacent.size() != static_cast<std::size_t>(kinds) * (pairs.size() / 2))
            throw InputError("its /bootstrap datasets do not fit together");
        done = d[0];
        if (done > replicates)
            throw InputError("/bootstrap/done = " + std::to_string(done) + " is not within [0, --bootstrap " +
                             std::to_string(replicates) + "]");
        for (std::size_t e = 0; e < pairs.size() / 2; ++e) {
            const std::int32_t i = pairs[2 * e], j = pairs[2 * e + 1];
            if (i < 0 || i >= j || j >= ckpt.n_vars)
                throw InputError("pair (" + std::to_string(i) + ", " + std::to_string(j) + ") is out of range");
            auto& c = all[pair_key(i, j)];
            std::int64_t sum = 0;
            for (int k = 0; k < kinds; ++k) {
                c[static_cast<std::size_t>(k)] =
                    adjacent[static_cast<std::size_t>(kinds) * e + static_cast<std::size_t>(k)];
                sum += c[static_cast<std::size_t>(k)];
                if (c[static_cast<std::size_t>(k)] < 0) throw InputError("a negative count");
            }
            if (sum > done) throw InputError("a pair counted in more replicates than done");
        }
        h5::Handle p = h5::check_id(H5Gopen2(root, "provenance", H5P_DEFAULT), where + ": no /provenance");
        const auto keys = h5::read_strings(p.get(), "keys", where);
        const auto values = h5::read_strings(p.get(), "values", where);
        if (keys.size() != values.size()) throw InputError("its provenance keys and values differ in number");
        for (std::size_t k = 0; k < keys.size(); ++k) provenance.emplace_back(keys[k], values[k]);
    });
    return done;
}

/// Rank 0 reads checkpoint `ckpt`'s totals into `all` (its provenance into `kept`); every
/// rank gets the number of replicates they hold.
std::int64_t resume_counts(mpi::Communicator& comm, const Checkpoint& ckpt, TableKind kind, std::int64_t replicates,
                           PairCounts& all, Provenance& kept) {
    std::int64_t resumed = 0;
    mpi::run_agreed(comm, [&] {
        if (comm.rank() == 0) resumed = read_checkpoint(ckpt, kind, replicates, all, kept);
    });
    comm.bcast(std::span<std::int64_t>(&resumed, 1), 0);
    return resumed;
}

/// The rounds from replicate `resumed` on, rank 0's totals in `all` (holding the resumed
/// ones), with checkpoints when `ckpt` is given.
Table count_rounds(const Options& b, TableKind kind, const Schedule& rb, mpi::Communicator& comm,
                   const ReplicateFn& replicate, const RoundCallback& on_round, std::int64_t resumed, PairCounts& all,
                   const Checkpoint* ckpt) {
    const int threads = rb.threads, kinds = columns(kind) - 1;
    // What a checkpoint keeps as provenance, asked when it is written (rank 0).
    const auto provenance = [ckpt] { return ckpt && ckpt->provenance ? ckpt->provenance() : Provenance{}; };
    const int size = comm.size(), rank = comm.rank();
    PairCounts counts;  // this rank's counts since the last merge
    // Rank 0 merges every rank's counts into its totals.
    const auto merge = [&] {
        std::vector<std::vector<std::byte>> blobs = comm.gatherv(pack(counts), 0);
        counts.clear();
        for (const auto& blob : blobs) unpack_into(blob, all);
    };
    auto last_checkpoint = std::chrono::steady_clock::now();
    // Round k: rank p runs the replicates resumed + [(k size + p) batch, + batch), then the
    // ranks agree on their errors. Which rank counts a replicate changes no sum.
    const std::int64_t batch = rb.per_round;
    const std::int64_t per_round = static_cast<std::int64_t>(size) * batch;
    const std::int64_t left = b.replicates - resumed;
    const std::int64_t rounds = (left + per_round - 1) / per_round;
    const auto range = [=](std::int64_t k) {
        const std::int64_t lo = resumed + std::min(left, (k * size + rank) * batch);
        return std::pair<std::int64_t, std::int64_t>{lo, std::min(b.replicates, lo + batch)};
    };
    // Replicates run at once: by a team of workers that runs ahead of the rounds (the
    // threads shared among them; a graph does not depend on its threads), or one at a
    // time on this thread.
    std::optional<BasicReplicatePipeline<ReplicateEdges>> pipeline;
    if (rb.concurrent > 1 && rounds > 0) {
        const int each = std::max(1, threads / rb.concurrent);
        // Enough rounds ahead that every worker has a replicate while a round is counted.
        const int window = 2 + static_cast<int>((rb.concurrent + batch - 1) / batch);
        pipeline.emplace(replicate, range, rounds, batch, rb.concurrent, each, window);
    }
    for (std::int64_t k = 0; k < rounds; ++k) {
        std::exception_ptr err;
        try {
            std::vector<ReplicateEdges> graphs;
            if (pipeline) {
                graphs = pipeline->take(k);
            } else {
                const auto [lo, hi] = range(k);
                for (std::int64_t r = lo; r < hi; ++r) graphs.push_back(replicate(r, threads, 0));
            }
            for (const ReplicateEdges& g : graphs) count_edges(g, counts);
        } catch (...) {
            err = std::current_exception();
        }
        mpi::agree(comm, err);
        const std::int64_t done = resumed + std::min(left, (k + 1) * per_round);
        if (on_round && rank == 0) on_round(done, b.replicates);
        if (!ckpt) continue;
        // A checkpoint at this round's boundary: every kCheckpointSeconds, and before a
        // stop asked for testing (--stop-after-level N: after N replicates or more).
        const std::optional<std::int64_t> after = ckpt->stop_after;
        const bool stop = after && *after >= 0 && done >= *after && done < b.replicates;
        const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_checkpoint).count();
        // The same decision on every rank: rank 0's clock.
        std::int64_t write = !ckpt->path.empty() && done < b.replicates && (stop || since >= kCheckpointSeconds);
        comm.bcast(std::span<std::int64_t>(&write, 1), 0);
        if (write) {
            merge();
            mpi::run_agreed(comm, [&] {
                if (rank == 0) write_checkpoint(*ckpt, kind, done, all, provenance());
            });
            if (ckpt->on_checkpoint) ckpt->on_checkpoint(static_cast<int>(done));
            last_checkpoint = std::chrono::steady_clock::now();
        }
        if (stop) throw skeleton::StoppedAfterLevel(static_cast<int>(done));
    }
    Table t;
    t.replicates = b.replicates;
    t.resample = to_string(b.resample);
    t.seed = b.seed;
    t.consensus = b.consensus;
    t.pag = kind == TableKind::Pag;
    // The sums over the ranks on rank 0 (integers: any order gives the same counts).
    merge();
    // --keep-checkpoint: the finished run's totals (done = B), which a resume reports as they are.
    if (ckpt && ckpt->keep && !ckpt->path.empty()) {
        mpi::run_agreed(comm, [&] {
            if (rank == 0) write_checkpoint(*ckpt, kind, b.replicates, all, provenance());
        });
        if (ckpt->on_checkpoint) ckpt->on_checkpoint(static_cast<int>(b.replicates));
    }
    if (rank != 0) return t;
    std::vector<std::uint64_t> keys;
    keys.reserve(all.size());
    for (const auto& kv : all) keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    t.pairs.reserve(2 * keys.size());
    t.counts.reserve(t.columns() * keys.size());
    for (std::uint64_t key : keys) {
        const auto& c = all[key];
        t.pairs.push_back(static_cast<std::int32_t>(key >> 32));
        t.pairs.push_back(static_cast<std::int32_t>(key & 0xFFFFFFFFu));
        std::int64_t adjacent = 0;
        for (const std::int32_t x : c) adjacent += x;
        t.counts.push_back(static_cast<std::int32_t>(b.replicates - adjacent));
        t.counts.insert(t.counts.end(), c.begin(), c.begin() + kinds);
    }
    return t;
}

}  // namespace

const io::CheckpointFormat& checkpoint_format(TableKind kind) {
    // A CPDAG table's name is cudag pc's since its first bootstrap (cudag mcmc's share it).
    static const io::CheckpointFormat cpdag{"cudag-pc-bootstrap-checkpoint-1", "PC bootstrap"};
    static const io::CheckpointFormat pag{"cudag-pag-bootstrap-checkpoint-1", "PAG bootstrap"};
    return kind == TableKind::Pag ? pag : cpdag;
}

Schedule agree_schedule(mpi::Communicator& comm, int per_round, int concurrent, int threads) {
    Schedule s;
    s.per_round = comm.allreduce(std::max(1, per_round), mpi::ReduceOp::Min);
    s.concurrent = std::max(1, concurrent);
    s.threads = std::max(1, threads);
    return s;
}

Table count_replicates(const Options& b, TableKind kind, mpi::Communicator& comm, const ReplicateFn& replicate,
                       const Schedule& schedule, const RoundCallback& on_round, const Checkpoint* ckpt) {
    mpi::run_agreed(comm, [&] { validate(b, std::numeric_limits<std::int64_t>::max()); });
    PairCounts all;  // rank 0's totals of the replicates merged so far (at checkpoints, and resumed)
    if (ckpt == nullptr || ckpt->path.empty())
        return count_rounds(b, kind, schedule, comm, replicate, on_round, 0, all, nullptr);
    std::int64_t resumed = 0;  // replicates 0 .. resumed-1 counted in a resumed checkpoint
    if (ckpt->resume) {
        Provenance kept;
        resumed = resume_counts(comm, *ckpt, kind, b.replicates, all, kept);
        if (ckpt->on_resume) ckpt->on_resume(static_cast<int>(resumed), std::move(kept));
    }
    return count_rounds(b, kind, schedule, comm, replicate, on_round, resumed, all, ckpt);
}

}  // namespace cudag::bootstrap
