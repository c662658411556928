// SPDX-License-Identifier: Apache-2.0
#include "bn/mcmc_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/format.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/trace_log.hpp"

namespace cudag::bn {

namespace {

constexpr io::CheckpointFormat mcmc_format{"cudag-mcmc-checkpoint-1", "MCMC"};

/// Chain states as bytes, for the gather to rank 0.
class Packer {
public:
    template <class T>
    void put(const T& v) {
        const auto* p = reinterpret_cast<const std::byte*>(&v);
        bytes.insert(bytes.end(), p, p + sizeof v);
    }
    template <class T>
    void put_vector(const std::vector<T>& v) {
        put(static_cast<std::uint64_t>(v.size()));
        const auto* p = reinterpret_cast<const std::byte*>(v.data());
        bytes.insert(bytes.end(), p, p + v.size() * sizeof(T));
    }
    std::vector<std::byte> bytes;
};

class Unpacker {
public:
    explicit Unpacker(const std::vector<std::byte>& b) : b_(b) {}
    template <class T>
    T get() {
        T v;
        CUDAG_ASSERT(at_ + sizeof v <= b_.size());
        std::memcpy(&v, b_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    template <class T>
    std::vector<T> get_vector() {
        const auto n = static_cast<std::size_t>(get<std::uint64_t>());
        CUDAG_ASSERT(at_ + n * sizeof(T) <= b_.size());
        std::vector<T> v(n);
        if (n) std::memcpy(v.data(), b_.data() + at_, n * sizeof(T));
        at_ += n * sizeof(T);
        return v;
    }
    bool done() const { return at_ == b_.size(); }

private:
    const std::vector<std::byte>& b_;
    std::size_t at_ = 0;
};

/// `with_trace`: the kept traces too (the final gather); a checkpoint's gather leaves them
/// out (gather_tails sends only what the trace log lacks).
std::vector<std::byte> pack(const std::vector<ChainState>& states, bool with_trace) {
    Packer p;
    p.put(static_cast<std::uint64_t>(states.size()));
    for (const ChainState& s : states) {
        p.put(s.chain);
        p.put(s.done);
        p.put(s.accepted);
        p.put(s.score);
        p.put(s.best_score);
        p.put(s.kept);
        p.put_vector(s.order);
        p.put_vector(s.best_order);
        p.put_vector(with_trace ? s.trace : std::vector<double>{});
        p.put_vector(s.edge_sum);
        p.put_vector(s.edge_sumsq);
        p.put_vector(s.since);
    }
    return std::move(p.bytes);
}

void unpack(const std::vector<std::byte>& bytes, std::vector<ChainState>& out) {
    Unpacker u(bytes);
    const auto count = u.get<std::uint64_t>();
    for (std::uint64_t k = 0; k < count; ++k) {
        ChainState s;
        s.chain = u.get<std::int64_t>();
        s.done = u.get<std::int64_t>();
        s.accepted = u.get<std::int64_t>();
        s.score = u.get<double>();
        s.best_score = u.get<double>();
        s.kept = u.get<std::int64_t>();
        s.order = u.get_vector<std::int32_t>();
        s.best_order = u.get_vector<std::int32_t>();
        s.trace = u.get_vector<double>();
        s.edge_sum = u.get_vector<double>();
        s.edge_sumsq = u.get_vector<double>();
        s.since = u.get_vector<std::int64_t>();
        out.push_back(std::move(s));
    }
    CUDAG_ASSERT(u.done());
}

/// Every chain's state on rank 0, in chain order (rank blocks are contiguous); without
/// their traces unless `with_trace` (one rank: the states as they are).
std::vector<ChainState> gather_states(const std::vector<ChainState>& mine, mpi::Communicator& comm, bool with_trace) {
    if (comm.size() == 1) return mine;
    const auto blobs = comm.gatherv(pack(mine, with_trace), 0);
    std::vector<ChainState> all;
    for (const auto& b : blobs) unpack(b, all);
    return all;
}

/// Every chain's kept iterations from `from` on, on rank 0 in chain order: what a
/// checkpoint appends to the trace log (the other ranks get nothing).
std::vector<std::vector<double>> gather_tails(const std::vector<ChainState>& mine, std::int64_t from,
                                              mpi::Communicator& comm) {
    std::vector<std::vector<double>> tails;
    for (const ChainState& s : mine) tails.emplace_back(s.trace.begin() + from, s.trace.end());
    if (comm.size() == 1) return tails;
    Packer p;
    p.put(static_cast<std::uint64_t>(tails.size()));
    for (const auto& t : tails) p.put_vector(t);
    const auto blobs = comm.gatherv(p.bytes, 0);
    std::vector<std::vector<double>> all;
    for (const auto& b : blobs) {
        Unpacker u(b);
        const auto count = u.get<std::uint64_t>();
        for (std::uint64_t k = 0; k < count; ++k) all.push_back(u.get_vector<double>());
    }
    return all;
}

template <class T>
std::vector<T> stacked(const std::vector<ChainState>& s, const std::vector<T> ChainState::*field) {
    std::vector<T> out;
    for (const ChainState& c : s) out.insert(out.end(), (c.*field).begin(), (c.*field).end());
    return out;
}

/// /chains of a checkpoint: one dataset per ChainState field, a row per chain. Created at
/// its final shapes first, then filled by blocks of chains (all of them on rank 0, or
/// each rank its own through MPI-IO).
class ChainsLayout {
public:
    /// `chains` chains of `n` nodes. Their traces are in the trace log (io/trace_log.hpp).
    ChainsLayout(std::int64_t chains, std::int64_t n) : chains_(static_cast<hsize_t>(chains)) {
        const auto un = static_cast<hsize_t>(n);
        using I64 = io::h5::TypeOf<std::int64_t>;
        using I32 = io::h5::TypeOf<std::int32_t>;
        using F64 = io::h5::TypeOf<double>;
        fields_ = {{"chain", I64::file(), I64::mem(), {}},          {"done", I64::file(), I64::mem(), {}},
                   {"accepted", I64::file(), I64::mem(), {}},       {"kept", I64::file(), I64::mem(), {}},
                   {"score", F64::file(), F64::mem(), {}},          {"best_score", F64::file(), F64::mem(), {}},
                   {"order", I32::file(), I32::mem(), {un}},        {"best_order", I32::file(), I32::mem(), {un}},
                   {"edge_sum", F64::file(), F64::mem(), {un, un}}, {"edge_sumsq", F64::file(), F64::mem(), {un, un}},
                   {"since", I64::file(), I64::mem(), {un}}};
    }

    /// The group and its datasets, unwritten, and /chains/trace_log: the trace log's run id
    /// and valid length (`log`).
    void create(hid_t root, const io::TraceLog& log, const std::string& where) const {
        io::h5::Handle g = io::h5::create_group(root, "chains", where);
        std::int64_t id = 0;
        const std::uint64_t run_id = log.run_id();
        std::memcpy(&id, &run_id, sizeof id);
        io::h5::write_array(g.get(), "trace_log", std::vector<std::int64_t>{id, static_cast<std::int64_t>(log.bytes())},
                            {2}, where);
        for (const Field& f : fields_) {
            std::vector<hsize_t> dims{chains_};
            dims.insert(dims.end(), f.row.begin(), f.row.end());
            io::h5::create_dataset(g.get(), f.name, f.file_type, dims, where);
        }
    }

    /// The rows [first, first + states.size()) of every dataset, from `states`.
    void write(hid_t root, const std::vector<ChainState>& states, std::int64_t first, hid_t xfer,
               const std::string& where) const {
        std::vector<std::int64_t> chain, done, accepted, kept;
        std::vector<double> score, best;
        for (const ChainState& s : states) {
            chain.push_back(s.chain);
            done.push_back(s.done);
            accepted.push_back(s.accepted);
            kept.push_back(s.kept);
            score.push_back(s.score);
            best.push_back(s.best_score);
        }
        const auto order = stacked(states, &ChainState::order), best_order = stacked(states, &ChainState::best_order);
        const auto edge_sum = stacked(states, &ChainState::edge_sum);
        const auto edge_sumsq = stacked(states, &ChainState::edge_sumsq);
        const auto since = stacked(states, &ChainState::since);
        const void* data[] = {chain.data(),    done.data(),       accepted.data(), kept.data(),
                              score.data(),    best.data(),       order.data(),    best_order.data(),
                              edge_sum.data(), edge_sumsq.data(), since.data()};
        io::h5::Handle g = io::h5::check_id(H5Gopen2(root, "chains", H5P_DEFAULT), where);
        for (std::size_t k = 0; k < fields_.size(); ++k) {
            const Field& f = fields_[k];
            std::vector<hsize_t> start{static_cast<hsize_t>(first)}, count{states.size()};
            for (hsize_t d : f.row) start.push_back(0), count.push_back(d);
            io::h5::Handle ds = io::h5::check_id(H5Dopen2(g.get(), f.name, H5P_DEFAULT), where);
            io::h5::transfer_block(ds.get(), f.mem_type, const_cast<void*>(data[k]), start, count, xfer, true,
                                   where + ": cannot write /chains/" + f.name);
        }
    }

private:
    /// A dataset: name, file and memory type, the shape of one chain's row.
    struct Field {
        const char* name;
        hid_t file_type, mem_type;
        std::vector<hsize_t> row;
    };
    hsize_t chains_;
    std::vector<Field> fields_;
};

void write_checkpoint(const std::vector<ChainState>& states, const McmcRunConfig& cfg, std::int64_t n,
                      const io::TraceLog& log) {
    io::CheckpointFile file = io::CheckpointFile::create(cfg.checkpoint, mcmc_format, cfg.config_hash, cfg.settings);
    const ChainsLayout layout(static_cast<std::int64_t>(states.size()), n);
    layout.create(file.root(), log, file.where());
    layout.write(file.root(), states, 0, H5P_DEFAULT, file.where());
    file.commit();
}

/// The collective form (parallel HDF5): rank 0 creates /chains at its final shapes, then
/// every rank writes its chains [first, first + mine.size()) as rows of each dataset. The
/// same file as write_checkpoint of every chain's state, without gathering them.
void write_checkpoint_parts(const std::vector<ChainState>& mine, std::int64_t first, const McmcRunConfig& cfg,
                            std::int64_t n, const io::TraceLog* log, mpi::Communicator& comm) {
    const ChainsLayout layout(cfg.opts.chains, n);
    io::write_checkpoint_in_parts(
        cfg.checkpoint, mcmc_format, cfg.config_hash, comm,
        [&](hid_t root, const std::string& where) { layout.create(root, *log, where); },
        [&](hid_t file, hid_t xfer, const std::string& where) { layout.write(file, mine, first, xfer, where); },
        cfg.settings);
}

/// Whether `v` is a permutation of 0..v.size()-1.
bool is_permutation(std::span<const std::int32_t> v) {
    std::vector<char> seen(v.size(), 0);
    for (const std::int32_t x : v) {
        if (x < 0 || static_cast<std::size_t>(x) >= v.size() || seen[static_cast<std::size_t>(x)]) return false;
        seen[static_cast<std::size_t>(x)] = 1;
    }
    return true;
}

/// Throws file.corrupt(...) unless `s` (chain s.chain of a run on n nodes) is a state that
/// the chains of `opts` can have reached.
void check_state(const ChainState& s, const OrderMcmcOptions& opts, std::int64_t n, const io::CheckpointFile& file) {
    const std::string chain = "chain " + std::to_string(s.chain) + ": ";
    const auto fail = [&](const std::string& what) { throw file.corrupt(chain + what); };
    if (s.done < 0 || s.done > opts.iterations)
        fail("done = " + std::to_string(s.done) + " is not within [0, " + std::to_string(opts.iterations) + "]");
    if (s.accepted < 0 || s.accepted > s.done)
        fail("accepted = " + std::to_string(s.accepted) + " is not within [0, done = " + std::to_string(s.done) + "]");
    const std::int64_t kept = s.done > opts.burn_in ? (s.done - opts.burn_in) / opts.thin : 0;
    if (s.kept != kept)
        fail("kept = " + std::to_string(s.kept) + ", but " + std::to_string(s.done) + " iterations keep " +
             std::to_string(kept));
    if (!is_permutation(s.order)) fail("/chains/order is not a permutation of the variables");
    if (!is_permutation(s.best_order)) fail("/chains/best_order is not a permutation of the variables");
    if (!std::isfinite(s.score) || !std::isfinite(s.best_score)) fail("a score is not finite");
    for (const double t : s.trace)
        if (!std::isfinite(t)) fail("/chains/trace holds a value that is not finite");
    const auto un = static_cast<std::size_t>(n);
    for (std::size_t v = 0; v < un; ++v) {
        const std::int64_t since = s.since[v];
        if (since < 0 || since > s.kept)
            fail("since = " + std::to_string(since) + " is not within [0, kept = " + std::to_string(s.kept) + "]");
        // Each of `since` kept iterations added a value in [0, 1] to p --> v.
        for (std::size_t p = 0; p < un; ++p)
            for (const double x : {s.edge_sum[p * un + v], s.edge_sumsq[p * un + v]})
                if (!(x >= 0.0 && x <= static_cast<double>(since)))
                    fail("an edge sum is not within [0, " + std::to_string(since) + "]");
    }
}

/// Throws CorruptCheckpoint unless each resumed chain's score and best score are its order's
/// and best order's scores under `table` (recomputed; a chain's score is kept up to date move
/// by move, so it may differ from a fresh sum by rounding: 1e-9 relative is allowed).
void check_scores(const std::vector<ChainState>& states, const ScoreTable& table, const OrderMcmcOptions& opts,
                  const std::string& checkpoint) {
    const auto score_of = [&](const std::vector<std::int32_t>& order) {
        return opts.mode == OrderScoreMode::Sum ? order_score_sum(table, order, false).total
                                                : order_score_max(table, order).total;
    };
    const auto off = [](double stored, double fresh) {
        return !(std::fabs(stored - fresh) <= 1e-9 * std::max(1.0, std::fabs(fresh)));
    };
    for (const ChainState& s : states) {
        const double score = score_of(s.order), best = score_of(s.best_order);
        const std::string chain = "chain " + std::to_string(s.chain) + ": ";
        if (off(s.score, score))
            throw io::CorruptCheckpoint(checkpoint, chain + "its score " + exact_number(s.score) +
                                                        " is not its order's, " + exact_number(score));
        if (off(s.best_score, best))
            throw io::CorruptCheckpoint(checkpoint, chain + "its best score " + exact_number(s.best_score) +
                                                        " is not its best order's, " + exact_number(best));
        if (s.best_score < s.score && off(s.best_score, s.score))
            throw io::CorruptCheckpoint(checkpoint, chain + "its best score is below its score");
    }
}

/// What a resumed run starts from: its chains, and the trace log the checkpoint records.
struct Resumed {
    std::vector<ChainState> states;
    bool has_log = false;  ///< false: a checkpoint of a version before the logs (/chains/trace)
    std::uint64_t run_id = 0, log_bytes = 0;
};

/// Chains [first, last) from the checkpoint, each checked (check_state); their traces from
/// its trace log (or /chains/trace of a checkpoint from before the logs).
Resumed read_checkpoint(const McmcRunConfig& cfg, std::int64_t n, std::int64_t first, std::int64_t last) {
    const io::CheckpointFile file =
        io::CheckpointFile::open(cfg.checkpoint, mcmc_format, cfg.config_hash, cfg.settings);
    Resumed r;
    std::vector<ChainState>& out = r.states;
    file.read([&](hid_t root) {
        const std::string& where = file.where();
        const auto chain = io::h5::read_array<std::int64_t>(root, "chains/chain", where);
        const auto c = static_cast<std::int64_t>(chain.size());
        const auto done = io::h5::read_array<std::int64_t>(root, "chains/done", where);
        const auto accepted = io::h5::read_array<std::int64_t>(root, "chains/accepted", where);
        const auto kept = io::h5::read_array<std::int64_t>(root, "chains/kept", where);
        const auto score = io::h5::read_array<double>(root, "chains/score", where);
        const auto best = io::h5::read_array<double>(root, "chains/best_score", where);
        const auto order = io::h5::read_array<std::int32_t>(root, "chains/order", where);
        const auto best_order = io::h5::read_array<std::int32_t>(root, "chains/best_order", where);
        const auto edge_sum = io::h5::read_array<double>(root, "chains/edge_sum", where);
        const auto edge_sumsq = io::h5::read_array<double>(root, "chains/edge_sumsq", where);
        const auto since = io::h5::read_array<std::int64_t>(root, "chains/since", where);
        const std::int64_t k = c > 0 ? kept[0] : 0;
        const auto nn = n * n;
        const auto sized = [](const auto& v, std::int64_t want) { return static_cast<std::int64_t>(v.size()) == want; };
        if (c != cfg.opts.chains || !sized(done, c) || !sized(accepted, c) || !sized(kept, c) || !sized(score, c) ||
            !sized(best, c) || !sized(order, c * n) || !sized(best_order, c * n) || !sized(since, c * n) ||
            !sized(edge_sum, c * nn) || !sized(edge_sumsq, c * nn) || k < 0)
            throw file.corrupt("the /chains datasets do not have the sizes of " + std::to_string(cfg.opts.chains) +
                               " chains of " + std::to_string(n) + " variables");
        for (std::int64_t i = 0; i < c; ++i)
            if (chain[i] != i || done[i] != done[0] || kept[i] != k)
                throw file.corrupt("the chains are not numbered 0.." + std::to_string(c - 1) +
                                   " or not at one iteration");
        std::vector<std::vector<double>> traces;
        r.has_log = !H5Lexists(root, "chains/trace", H5P_DEFAULT);
        if (r.has_log) {
            const auto log = io::h5::read_array<std::int64_t>(root, "chains/trace_log", where);
            if (log.size() != 2 || log[1] < 0) throw file.corrupt("/chains/trace_log is not (run id, length)");
            std::memcpy(&r.run_id, &log[0], sizeof r.run_id);
            r.log_bytes = static_cast<std::uint64_t>(log[1]);
            traces = io::read_trace_log(cfg.checkpoint, r.run_id, r.log_bytes, c, k, first, last);
        } else {
            const auto trace = io::h5::read_array<double>(root, "chains/trace", where);
            if (!sized(trace, c * k))
                throw file.corrupt("/chains/trace does not hold " + std::to_string(k) +
                                   " kept iterations of each chain");
            for (std::int64_t i = first; i < last; ++i)
                traces.emplace_back(trace.begin() + i * k, trace.begin() + (i + 1) * k);
        }
        for (std::int64_t i = first; i < last; ++i) {
            ChainState s;
            s.chain = i;
            s.done = done[i];
            s.accepted = accepted[i];
            s.kept = kept[i];
            s.score = score[i];
            s.best_score = best[i];
            s.order.assign(order.begin() + i * n, order.begin() + (i + 1) * n);
            s.best_order.assign(best_order.begin() + i * n, best_order.begin() + (i + 1) * n);
            s.trace = std::move(traces[static_cast<std::size_t>(i - first)]);
            s.edge_sum.assign(edge_sum.begin() + i * nn, edge_sum.begin() + (i + 1) * nn);
            s.edge_sumsq.assign(edge_sumsq.begin() + i * nn, edge_sumsq.begin() + (i + 1) * nn);
            s.since.assign(since.begin() + i * n, since.begin() + (i + 1) * n);
            check_state(s, cfg.opts, n, file);
            out.push_back(std::move(s));
        }
    });
    return r;
}

}  // namespace

std::pair<std::int64_t, std::int64_t> chain_block(std::int64_t chains, int rank, int size) {
    return {chains * rank / size, chains * (rank + 1) / size};
}

OrderMcmcResult run_mcmc(const ScoreTable& table, const McmcRunConfig& cfg, mpi::Communicator& comm) {
    const OrderMcmcOptions& opts = cfg.opts;
    check_options(opts);
    const std::int64_t n = table.n_nodes();
    const auto [first, last] = chain_block(opts.chains, comm.rank(), comm.size());
    std::vector<ChainState> states;
    // The trace log (rank 0 appends to it), and how many kept iterations of every chain it
    // holds (every rank): a checkpoint appends only the iterations kept since.
    std::optional<io::TraceLog> log;
    std::int64_t logged = 0;
    mpi::run_agreed(comm, [&] {
        if (cfg.resume) {
            Resumed r = read_checkpoint(cfg, n, first, last);
            check_scores(r.states, table, opts, cfg.checkpoint);
            states = std::move(r.states);
            if (r.has_log && !states.empty()) logged = states[0].kept;
            if (r.has_log && comm.rank() == 0)
                log = io::TraceLog::reopen(cfg.checkpoint, r.run_id, r.log_bytes, opts.chains, logged);
        } else {
            states.resize(static_cast<std::size_t>(last - first));
            parallel_for(0, last - first, resolve_threads(opts.threads), 1,
                         [&](std::int64_t c, int) { states[c] = start_chain(table, opts, first + c); });
        }
    });
    // Every rank's chains are at the same iteration (a checkpoint holds one).
    std::int64_t done = states.empty() ? 0 : states[0].done;
    done = comm.allreduce(done, mpi::ReduceOp::Max);
    if (cfg.resume && cfg.on_resume) cfg.on_resume(done);

    // Segments: about 64 per run for progress, cut at the checkpoint grid too, and shorter
    // when one takes more than a quarter of a second (rank 0's clock, so that every rank cuts
    // alike), so that progress and an interrupt are heard within about a second. The chains
    // are the same however they are cut (as a resumed checkpoint's are).
    const std::int64_t longest = std::max<std::int64_t>(1, (opts.iterations + 63) / 64);
    std::int64_t segment = std::min<std::int64_t>(longest, 16);  // doubled while quick
    using clock = std::chrono::steady_clock;
    auto last_checkpoint = clock::now();
    while (done < opts.iterations) {
        const auto segment_start = clock::now();
        std::int64_t until = std::min(opts.iterations, done + segment);
        if (cfg.checkpoint_every > 0) until = std::min(until, (done / cfg.checkpoint_every + 1) * cfg.checkpoint_every);
        if (cfg.stop_after && *cfg.stop_after > done) until = std::min(until, *cfg.stop_after);
        if (cfg.advance)
            cfg.advance(states, until);
        else
            advance_chains(table, opts, states, until);
        const std::int64_t advanced = until - done;
        done = until;
        if (cfg.on_progress) {
            // The next segment: about 0.25 s at this one's pace, never longer than `longest`.
            const double took = std::chrono::duration<double>(clock::now() - segment_start).count();
            std::int64_t next = segment;
            if (took > 0.25)
                next =
                    std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(advanced) * 0.25 / took));
            else if (took < 0.1 && advanced == segment)
                next = std::min(longest, 2 * segment);
            comm.bcast(std::span<std::int64_t>(&next, 1), 0);
            segment = next;
            std::int64_t accepted = 0;
            double best = -std::numeric_limits<double>::infinity();
            for (const ChainState& s : states) accepted += s.accepted, best = std::max(best, s.best_score);
            McmcProgress p;
            p.done = done;
            p.total = opts.iterations;
            p.chains = opts.chains;
            p.accepted = comm.allreduce(accepted, mpi::ReduceOp::Sum);
            p.best_score = comm.allreduce(best, mpi::ReduceOp::Max);
            cfg.on_progress(p);
        }
        if (cfg.checkpoint.empty()) continue;
        // The finished chains are checkpointed too: what follows (gathering, diagnostics,
        // writing the result) can take a while, and a stop there must not lose the chains
        // (issue 33 item 1); --keep-checkpoint then keeps the final state.
        bool due = (cfg.checkpoint_every > 0 && done % cfg.checkpoint_every == 0) || done == cfg.stop_after ||
                   done == opts.iterations;
        if (cfg.checkpoint_seconds > 0.0) {
            // Rank 0's clock decides, so every rank takes the same branch.
            std::int64_t by_time =
                std::chrono::duration<double>(clock::now() - last_checkpoint).count() >= cfg.checkpoint_seconds;
            comm.bcast(std::span<std::int64_t>(&by_time, 1), 0);
            due = due || by_time;
        }
        if (!due) continue;
        // The kept iterations since the last checkpoint go to the trace log first, then the
        // state that records the log's new length replaces the checkpoint (a kill between
        // the two leaves the previous state, which ignores the appended bytes).
        const std::vector<std::vector<double>> tails = gather_tails(states, logged, comm);
        mpi::run_agreed(comm, [&] {
            if (comm.rank() != 0) return;
            if (!log) log = io::TraceLog::create(cfg.checkpoint, opts.chains);
            log->append(tails);
            log->publish();
        });
        if (cfg.collective_checkpoints && comm.size() > 1) {
            write_checkpoint_parts(states, first, cfg, n, log ? &*log : nullptr, comm);
        } else {
            const std::vector<ChainState> all = gather_states(states, comm, false);
            mpi::run_agreed(comm, [&] {
                if (comm.rank() == 0) write_checkpoint(all, cfg, n, *log);
            });
        }
        if (log) log->state_committed();
        logged = comm.allreduce(states.empty() ? std::int64_t{0} : states[0].kept, mpi::ReduceOp::Max);
        last_checkpoint = clock::now();
        if (comm.rank() == 0 && cfg.on_checkpoint) cfg.on_checkpoint(done);
        if (done == cfg.stop_after && done < opts.iterations) throw StoppedAtIteration(done);
    }
    std::vector<ChainState> all = gather_states(states, comm, true);
    if (comm.rank() != 0) return {};
    return finish_chains(table, opts, std::move(all));
}

void remove_checkpoint(const std::string& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::filesystem::remove(io::trace_log_path(path), ec);
}

std::int64_t kept_iterations(const OrderMcmcOptions& opts) {
    return opts.thin > 0 ? std::max<std::int64_t>(0, opts.iterations - opts.burn_in) / opts.thin : 0;
}

ChainMemory chain_memory(const OrderMcmcOptions& opts, std::int64_t n, std::int64_t local_chains, bool combines) {
    const double kept = static_cast<double>(kept_iterations(opts));
    const double nn = static_cast<double>(n), local = static_cast<double>(local_chains);
    ChainMemory m;
    // edge_sum + edge_sumsq per chain; trace, since, order + best_order per chain
    m.edge_sums = local * 16.0 * nn * nn + (combines ? 16.0 * nn * nn : 0.0);
    m.traces = local * (8.0 * kept + 8.0 * nn + 8.0 * nn) +
               (combines ? 2.0 * 8.0 * kept * static_cast<double>(opts.chains) : 0.0);
    return m;
}

}  // namespace cudag::bn
