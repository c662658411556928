// SPDX-License-Identifier: Apache-2.0
// Order MCMC over ranks and time (issue 21): the chains split into contiguous blocks over
// the communicator's ranks, run in segments, checkpointed (every rank's chain states
// gathered to rank 0, which writes one HDF5 file) and resumed exactly.
//
// Every chain's trajectory depends on (seed, chain) alone (bn/order_mcmc.hpp), and a chain
// cut into segments ends bit for bit as an uncut one, so the result is the same on any
// number of ranks and threads, with or without checkpoints, and after a resume.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "bn/order_mcmc.hpp"
#include "core/error.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"

namespace cudag::bn {

/// Where the chains are: reported on every rank after each segment.
struct McmcProgress {
    std::int64_t done = 0;      ///< iterations done by every chain
    std::int64_t total = 0;     ///< iterations asked for
    std::int64_t accepted = 0;  ///< summed over all chains
    std::int64_t chains = 0;
    double best_score = 0.0;  ///< the best order score any chain has visited
};

struct McmcRunConfig {
    OrderMcmcOptions opts;
    /// HDF5 file replaced at checkpoints, with the kept traces appended to its trace log
    /// beside it (io/trace_log.hpp); empty: none.
    std::string checkpoint;
    bool resume = false;                ///< start from `checkpoint`
    std::int64_t checkpoint_every = 0;  ///< iterations between checkpoints (0: by time only)
    double checkpoint_seconds = 0.0;    ///< seconds between checkpoints (0: by count only)
    std::string config_hash;            ///< what a checkpoint must have been written for
    /// The values config_hash covers, by option, so that a refused resume names the one
    /// that differs (io::CheckpointFile::open).
    io::CheckpointSettings settings;
    std::optional<std::int64_t> stop_after;  ///< testing: stop after the checkpoint at this iteration
    /// Several ranks: every rank writes its own chains' states into the checkpoint
    /// (parallel HDF5, io::write_checkpoint_in_parts) instead of gathering them on rank 0.
    /// The same file either way.
    bool collective_checkpoints = false;
    std::function<void(const McmcProgress&)> on_progress;
    std::function<void(std::int64_t done)> on_checkpoint;  ///< after one is written (rank 0)
    std::function<void(std::int64_t done)> on_resume;      ///< after a checkpoint is read
    /// Runs this rank's chains on (a GPU engine, bn/engines.hpp); empty: advance_chains.
    std::function<void(std::span<ChainState>, std::int64_t until)> advance;
};

/// Thrown on every rank after the checkpoint at McmcRunConfig::stop_after: a simulated kill.
class StoppedAtIteration : public Error {
public:
    explicit StoppedAtIteration(std::int64_t it)
        : Error("stopped at iteration " + std::to_string(it) + " as asked (--stop-after)") {}
};

/// Runs cfg.opts.chains chains to cfg.opts.iterations. Rank 0 returns the combined result
/// (finish_chains); the other ranks an empty one. InputError (agreed across ranks) on a
/// checkpoint that cannot be read or was written for another configuration, and
/// io::CorruptCheckpoint on one whose values no run of `cfg` can have written (orders
/// that are not permutations, counters out of range, sizes that disagree, a failed
/// checksum).
OrderMcmcResult run_mcmc(const ScoreTable& table, const McmcRunConfig& cfg, mpi::Communicator& comm);

/// Remove the checkpoint at `path` and its trace log (io/trace_log.hpp), if they exist.
void remove_checkpoint(const std::string& path);

/// Host memory of `local_chains` chains' states and kept traces over `n` variables, in its
/// two parts: the n x n edge sums (edge_sum and edge_sumsq of each chain, and, on the rank
/// that combines the result (`combines`), one pair more), which --iterations does not
/// change; and the kept traces (each chain's, and on that rank every chain's twice more:
/// gathered, then the result's), with the orders. An estimate made before the score table
/// is built (run/mcmc.cpp's memory plan).
struct ChainMemory {
    double edge_sums = 0.0;
    double traces = 0.0;
    double total() const { return edge_sums + traces; }
};
ChainMemory chain_memory(const OrderMcmcOptions& opts, std::int64_t n, std::int64_t local_chains, bool combines);

/// The iterations each chain keeps: (iterations - burn_in) / thin.
std::int64_t kept_iterations(const OrderMcmcOptions& opts);

/// The contiguous block of chains rank `rank` of `size` runs: [first, last).
std::pair<std::int64_t, std::int64_t> chain_block(std::int64_t chains, int rank, int size);

}  // namespace cudag::bn
