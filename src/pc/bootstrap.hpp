// SPDX-License-Identifier: Apache-2.0
// Edge confidence by resampling (issue 38): PC-stable run on B resamples of the rows
// (bootstrap or half-sampling), each drawn from the counter-based generator keyed by
// (seed, replicate), the replicates spread over the ranks, their graphs counted per pair
// by edge kind and merged by sums, so that the counts do not depend on the rank count or
// the backend. A replicate is an ordinary run on its resample (resample_data), which
// `cudag pc --write-resample` writes out.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "core/pag.hpp"
#include "core/pdag.hpp"
#include "io/checkpoint_file.hpp"
#include "mpi/communicator.hpp"
#include "pc/replicate_pipeline.hpp"
#include "pc/result.hpp"
#include "pc/run.hpp"

namespace cudag::pc {

/// How a replicate's rows are drawn from the m rows of the data.
enum class Resample {
    Bootstrap,  ///< m rows with replacement (Efron's bootstrap; bnlearn's boot.strength)
    Half,       ///< floor(m/2) rows without replacement (stability selection's subsamples)
};

/// "bootstrap" or "half".
const char* to_string(Resample r);
/// --resample's value; InputError for another.
Resample parse_resample(const std::string& s);

/// What a bootstrap run is asked.
struct BootstrapOptions {
    std::int64_t replicates = 0;  ///< B >= 1
    Resample resample = Resample::Bootstrap;
    double consensus = 0.5;   ///< adjacency frequency an edge needs in the consensus graph, in (0, 1]
    std::uint64_t seed = 42;  ///< key of the resamples (--seed)
};

/// InputError (one line, naming the option) for B < 1, a consensus outside (0, 1], or data
/// of fewer rows than a resample needs (2 for half-sampling).
void validate(const BootstrapOptions& b, std::int64_t n_samples);

/// The rows of replicate `replicate` of data with `n_samples` rows, in increasing order
/// (repeated rows adjacent): n_samples draws with replacement (Resample::Bootstrap) or
/// floor(n_samples / 2) distinct rows (Resample::Half), from CounterRng keyed by b.seed
/// (mixed with a bootstrap tag) and stream `replicate`. A pure function of its arguments.
std::vector<std::int64_t> resample_rows(std::int64_t n_samples, const BootstrapOptions& b, std::int64_t replicate);

/// The data set of the rows `rows` of `data`, as reading its written form back gives it
/// (io::write_dataset, then the same read): the values copied; for discrete data the
/// levels no row of the resample holds dropped and the codes renumbered, keeping the
/// levels' order. `source` names it in messages.
Dataset resample_data(const Dataset& data, std::span<const std::int64_t> rows, const std::string& source);

/// The data set replicate `replicate` runs on: resample_data of its rows, less (for every
/// test but CMIknn, which tests a constant column itself) the columns constant in the
/// resample, which have no variance to test and are isolated in the replicate's graph
/// (a discrete variable rare levels of which the resample misses; the whole data's
/// constant columns are refused before any replicate). `kept` gets the indices, in the
/// data, of the columns kept. This is what `cudag pc --write-resample` writes.
Dataset replicate_data(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate,
                       std::vector<std::int32_t>& kept);

/// replicate_data into `d`, whose memory is reused where it has the size already (a
/// worker's replicates one after another), copying the columns on `threads` threads (the
/// same values on any number).
void replicate_data_into(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate,
                         std::vector<std::int32_t>& kept, Dataset& d, int threads);

/// `d` less its constant columns; `kept` gets the indices of the columns kept.
Dataset drop_constant_columns(Dataset d, std::vector<std::int32_t>& kept);

/// `k` over the variables `kept` only (renumbered in their order): the constraints among
/// them, the others dropped (a replicate that left constant columns out).
Knowledge knowledge_on(const Knowledge& k, const std::vector<std::int32_t>& kept);

/// The index of a pair's edge kind in a BootstrapTable row (i < j).
enum BootstrapKind : int {
    kNoEdge = 0,      ///< not adjacent
    kForward = 1,     ///< i --> j
    kBackward = 2,    ///< j --> i
    kUndirected = 3,  ///< i --- j
    kBidirected = 4,  ///< i <-> j
    kBootstrapKinds = 5,
};

/// The kind of pair (i, j), i < j, in `g` (kNoEdge when not adjacent).
BootstrapKind bootstrap_kind(const Pdag& g, std::int32_t i, std::int32_t j);

/// A PAG bootstrap's table columns: "none", then the nine edge kinds of edge_kinds()
/// (read from i to j, i < j) in their order.
constexpr int kPagKinds = 10;

/// The column of pair (i, j), i < j, in a PAG bootstrap's table: 0 when not adjacent, else
/// 1 + the place of edge_string(g, i, j) in edge_kinds().
int pag_kind(const Pag& g, std::int32_t i, std::int32_t j);

/// One adjacent pair of a replicate's graph: i < j and its table column (>= 1).
struct PairKind {
    std::int32_t i, j, kind;
};
/// A replicate's adjacent pairs, as the bootstrap counts them.
using ReplicateEdges = std::vector<PairKind>;

/// What learns a replicate's result on one process from its data set (the resample) and
/// configuration (the run's, less its callbacks and checkpoint): cudag fci's skeleton and
/// FCI stages, the PAG in PcResult::pag. bootstrap_pag counts the PAGs.
using ReplicateLearner = std::function<PcResult(const Dataset& d, const PcConfig& cfg)>;

/// The graph of replicate `replicate` (on all the data's variables): pc::run_pc on one
/// process on replicate_data, with `cfg` less its callbacks and checkpoint; the columns
/// left out are isolated. Its errors name the replicate.
Pdag run_replicate(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, std::int64_t replicate);

/// Called on rank 0 after each round of replicates (one per rank): replicates done of B
/// over all ranks.
using ReplicateCallback = std::function<void(std::int64_t done, std::int64_t total)>;

/// The bootstrap: replicate r runs on rank r mod size (whole, on that rank's engine), in
/// rounds of one replicate per rank whose errors are agreed on; the per-pair counts are
/// summed on rank 0, which gets the table (sorted by pair); other ranks get an empty one
/// with the options filled in.
BootstrapTable run_bootstrap(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b,
                             mpi::Communicator& comm, const ReplicateCallback& on_round = {});

/// Replicate `replicate`'s graph over the data's variables, run by worker `worker` (0 ..
/// concurrent - 1 of count_bootstrap: which GPU it runs on follows from it) on `threads`
/// threads (ReplicatePipeline's WorkerGraph).
using ReplicateGraph = WorkerGraph;

/// count_bootstrap's checkpoints (`cudag mcmc --bootstrap --checkpoint`): the totals at
/// round boundaries (every 30 s) in PC's bootstrap checkpoint format, under `hash` (what
/// decides the counts) and `settings` (named, to say which differs on a refused resume).
struct BootstrapCheckpoint {
    std::string path;
    std::string hash;
    io::CheckpointSettings settings;
    bool resume = false;      ///< continue from `path`'s totals (any rank count)
    bool keep = false;        ///< --keep-checkpoint: the finished run's totals saved too
    std::int64_t n_vars = 0;  ///< the data's variables (the checkpoint's pairs are checked)
    std::int64_t stop_after =
        -1;  ///< testing: stop (skeleton::StoppedAfterLevel) after a checkpoint of this many replicates
    std::vector<std::pair<std::string, std::string>> provenance;  ///< kept in the file
    std::function<void(int done)> on_checkpoint, on_resume;       ///< rank 0's notes
};

/// run_bootstrap's counting for any learner's replicates (order MCMC's MAP DAGs): a rank's
/// replicates `concurrent` at a time (workers 0 .. concurrent - 1, threads / concurrent
/// threads each; all `threads` when one at a time), in rounds of the least `concurrent`
/// over the ranks, errors agreed per round, the counts summed on rank 0 (the table there;
/// elsewhere empty); with `ckpt`, its checkpoints and resume (the counts equal an
/// uninterrupted run's, whatever the ranks and workers).
BootstrapTable count_bootstrap(const BootstrapOptions& b, mpi::Communicator& comm, const ReplicateGraph& replicate,
                               const ReplicateCallback& on_round, int threads, int concurrent = 1,
                               const BootstrapCheckpoint* ckpt = nullptr);

/// The whole run as a result: on rank 0 the consensus graph (cpdag and skeleton), the table
/// (PcResult::bootstrap), the names and the provenance (replicate 0's, with the bootstrap's
/// options added); on other ranks the names and an empty table. No separating sets, pMax
/// or levels.
PcResult bootstrap_pc(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, mpi::Communicator& comm,
                      const ReplicateCallback& on_round = {});

/// bootstrap_pc with each replicate learned by `learn` (FCI, RFCI) and its PAG counted (the
/// table's 10 columns, BootstrapTable::pag): on rank 0 the consensus PAG (consensus_pag;
/// PcResult::pag and its skeleton, an empty CPDAG), the table, the names and the
/// provenance. The replicates are placed as bootstrap_pc places them; no checkpoints.
PcResult bootstrap_pag(const Dataset& data, const PcConfig& cfg, const BootstrapOptions& b, mpi::Communicator& comm,
                       const ReplicateLearner& learn, const ReplicateCallback& on_round = {});

/// The consensus PAG on `n` nodes of a PAG bootstrap's table: pair (i, j) is adjacent when
/// its adjacency frequency is at least t.consensus, with the edge kind counted most often
/// among the replicates where it is adjacent; ties go to the less committal kind, in the
/// order o-o, o->, <-o, -->, <--, <->, ---, o--, --o (circles before arrowheads and tails).
Pag consensus_pag(const BootstrapTable& t, std::int64_t n);

/// A PAG bootstrap's edge list with frequencies, as write_frequencies_tsv: header "source
/// target adjacency none o-> <-o o-o --> <-- <-> --- o-- --o consensus" (edge_kinds(), read
/// from source to target), the consensus PAG's edge string last ("" when not adjacent).
void write_pag_frequencies_tsv(const BootstrapTable& t, const Pag& consensus, const std::vector<std::string>& names,
                               const std::string& path);

/// The consensus graph on `n` nodes: pair (i, j) is adjacent when its adjacency frequency
/// (replicates adjacent / B) is at least t.consensus, with the kind counted most often
/// among the replicates where it is adjacent; ties go to the less committal kind, in the
/// order i --- j, i --> j, j --> i, i <-> j.
Pdag consensus_graph(const BootstrapTable& t, std::int64_t n);

/// The edge list with frequencies (Tetrad's bootstrap style), tab-separated: header
/// "source target adjacency none --> <-- --- <-> consensus", then one line per pair
/// adjacent in at least one replicate (the table's rows), the frequencies of the kinds
/// (for source --> target, target --> source, ...) to 6 significant digits, and the
/// consensus graph's mark ("" when the pair is not in it). Names tsv_escape'd.
void write_frequencies_tsv(const BootstrapTable& t, const Pdag& consensus, const std::vector<std::string>& names,
                           const std::string& path);

}  // namespace cudag::pc
