// SPDX-License-Identifier: Apache-2.0
// PC's bootstrap (issue 38), a client of the bootstrap layer (src/bootstrap/): a replicate
// is an ordinary PC-stable run on its resample (replicate_data, which `cudag pc
// --write-resample` writes out), placed on the ranks, workers and GPUs by the layer's
// scheduler and counted in its table; another learner's replicates (cudag fci's PAGs) run
// through the same placement with a ReplicateLearner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bootstrap/resample.hpp"
#include "bootstrap/result.hpp"
#include "bootstrap/scheduler.hpp"
#include "bootstrap/table.hpp"
#include "core/dataset.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"
#include "pc/result.hpp"
#include "pc/run.hpp"

namespace cudag::pc {

/// The data set replicate `replicate` runs on: bootstrap::resample_data of its rows, less
/// (for every test but CMIknn, which tests a constant column itself) the columns constant
/// in the resample, which have no variance to test and are isolated in the replicate's
/// graph (a discrete variable rare levels of which the resample misses; the whole data's
/// constant columns are refused before any replicate). `kept` gets the indices, in the
/// data, of the columns kept. This is what `cudag pc --write-resample` writes.
Dataset replicate_data(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate,
                       std::vector<std::int32_t>& kept);

/// replicate_data into `d`, whose memory is reused where it has the size already (a
/// worker's replicates one after another), copying the columns on `threads` threads (the
/// same values on any number).
void replicate_data_into(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate,
                         std::vector<std::int32_t>& kept, Dataset& d, int threads);

/// Another learner's replicates on PC's placement (cudag fci's skeleton and FCI stages,
/// the PAG in PcResult::pag): bootstrap_pag counts the PAGs.
struct ReplicateLearner {
    /// A replicate's result on one process from its data set (the resample) and
    /// configuration (the run's, less its callbacks and checkpoint).
    std::function<PcResult(const Dataset& d, const PcConfig& cfg)> learn;
    /// The command its checkpoints name ("cudag fci --bootstrap").
    std::string command;
    /// What decides its graphs besides the PcConfig (its own options, by name): the
    /// checkpoint's hash covers them, and a refused resume names the one that differs.
    io::CheckpointSettings settings;

    explicit operator bool() const { return static_cast<bool>(learn); }
};

/// The graph of replicate `replicate` (on all the data's variables): pc::run_pc on one
/// process on replicate_data, with `cfg` less its callbacks and checkpoint; the columns
/// left out are isolated. Its errors name the replicate.
Pdag run_replicate(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, std::int64_t replicate);

/// The bootstrap's table (bootstrap::count_replicates with PC's replicates): on rank 0 the
/// per-pair counts (sorted by pair); other ranks get an empty one with the options filled
/// in. With cfg.checkpoint, its checkpoints and resume (cfg.resume).
bootstrap::Table run_bootstrap(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b,
                               mpi::Communicator& comm, const bootstrap::RoundCallback& on_round = {});

/// The whole run as a result: on rank 0 the consensus graph (cpdag and skeleton), the table
/// (PcResult::bootstrap), the names and the provenance (replicate 0's, with the bootstrap's
/// options added); on other ranks the names and an empty table. No separating sets, pMax
/// or levels.
PcResult bootstrap_pc(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, mpi::Communicator& comm,
                      const bootstrap::RoundCallback& on_round = {});

/// bootstrap_pc with each replicate learned by `learn` (FCI, RFCI) and its PAG counted (the
/// table's 10 columns, Table::pag): on rank 0 the consensus PAG (bootstrap::consensus_pag;
/// PcResult::pag and its skeleton, an empty CPDAG), the table, the names and the
/// provenance. The replicates are placed as bootstrap_pc places them; with cfg.checkpoint,
/// checkpoints in the PAG table's format under `learn`'s command and settings.
PcResult bootstrap_pag(const Dataset& data, const PcConfig& cfg, const bootstrap::Options& b, mpi::Communicator& comm,
                       const ReplicateLearner& learn, const bootstrap::RoundCallback& on_round = {});

/// A bootstrap result (cudag mcmc --bootstrap's) in a PC result's layout, as its result file
/// (write_result_hdf5) and the Python module take it: the consensus graph as the CPDAG and
/// its skeleton, the table, the names and the provenance.
PcResult as_pc_result(bootstrap::Result r);

}  // namespace cudag::pc
