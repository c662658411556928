// SPDX-License-Identifier: Apache-2.0
// The interface every skeleton backend implements (CPU threads, CUDA, ...): a few
// required calls (level0, run_level, p_value), plus DeviceResults, an optional extension
// for engines that keep the search's results in their own memory. The level loop
// (skeleton/search.hpp) is written once against it and picks one of two result strategies
// (skeleton/level_results.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/decision.hpp"
#include "core/bulk_vector.hpp"
#include "core/graph.hpp"
#include "core/parallel.hpp"
#include "skeleton/merge.hpp"
#include "skeleton/types.hpp"

namespace cudag::skeleton {

/// How a CI test's outcome is decided and how much of a level is searched.
struct TestPolicy {
    double alpha = 0.01;
    /// false: independent iff p >= alpha (pcalg); true: iff p > alpha (causal-learn).
    bool strict = false;
    /// false: stop an edge's tests at the first separating set (pcalg-stable);
    /// true: test every set of the level and keep the union of the separating
    /// sets' nodes (causal-learn's stable PC).
    bool exhaustive = false;
    /// Compute p-values with causal-learn's arithmetic (see ci::fisher_z_pvalue).
    bool causal_learn_pvalue = false;
    /// Fisher-z's partial correlations tested by the exact Student-t test instead (bnlearn's
    /// "cor": t = r √(df / (1 − r²)), df = m − l − 2, p two-sided; ci::parcorr_p_value). The
    /// CPU engine only.
    bool student_t = false;
    /// Run a pair's tests as bnlearn's pc.stable does (its pc.heuristic), for a test whose
    /// answer for (x, y) and (y, x) may differ (ci::TestTraits::asymmetric, bnlearn's mi-cg):
    /// row i > j skips, at level 1, the set {c} with c adjacent to j, and at level >= 2 every
    /// set when adj(i) \ {j} = adj(j) \ {i} (bnlearn tests those from j's side only). The CPU
    /// row search (search_row); a symmetric test's answers are the same without it (bnlearn's
    /// face sets it for every test: fewer tests, each set of a pair tested once).
    bool bnlearn_pairs = false;

    bool independent(double p) const { return decision().independent(p); }
    ci::Decision decision() const { return {alpha, strict}; }
};

/// Outcome of level 0 for a block of rows.
struct Level0Output {
    std::int64_t tests = 0;
    /// When the engine was asked for dense p-values: p of (i, j), i < j, at
    /// index pair_index(i, j, n) = i*n - i*(i+1)/2 + (j - i - 1) (core/pair_index.hpp).
    BulkVector<double> dense_p;
    /// Otherwise: p-values of the pairs that stay adjacent, any order...
    PairPList kept_p;
    /// ...or, from engines that list them row by row (kept_offsets not empty; then `g`
    /// is left as it came): the kept pairs (i, j > i) as a CSR over all n rows, row i's
    /// at [kept_offsets[i], kept_offsets[i + 1]) of kept_cols (increasing) and
    /// kept_pvals; rows outside the block are empty.
    BulkVector<std::int64_t> kept_offsets;
    BulkVector<std::int32_t> kept_cols;
    BulkVector<double> kept_pvals;
    /// Optional with the kept CSR of every row: the whole adjacency after level 0 as a
    /// symmetric CSR, so that the search needs neither the graph nor a scan of it to
    /// start level 1 (adjacency.n == 0: not given).
    Adjacency adjacency;
    /// In, set by a search running the device-results strategy (DeviceResults) when the
    /// engine runs every row: the p-values (dense_p, or kept_pvals of the kept CSR) may stay
    /// with the engine. Out: the engine left them there (dense_p untouched, kept_pvals
    /// sized but not filled); the search then hands the table over (adopt_pmax) at once.
    bool p_may_stay = false;
    bool p_stayed = false;
    /// In: level 1 starts from level 0's adjacency as the engine found it. False when the
    /// search changes it first (background knowledge): an engine must then not keep its own
    /// copy of `adjacency` to stand for level 1's snapshot.
    bool adjacency_is_next = true;
};

/// Per-entry outcome flags of a level l >= 1 (LevelOutput::flags).
enum EntryFlags : std::uint8_t { kTested = 1, kSeparated = 2 };

/// Outcome of level l >= 1 for the rows [row_begin, row_end) of a snapshot.
/// Entries are indexed like Adjacency::nbrs: entry e = (row i, neighbour nbrs[e]),
/// tested from row i's side with S ⊆ adj(i) \ {j}.
struct LevelOutput {
    BulkVector<std::uint8_t> flags;  ///< EntryFlags
    /// Max p over the tests run from this side (up to the first separating set
    /// unless exhaustive).
    BulkVector<double> pmax;
    /// Nodes per separating set: the level l.
    int set_size = 0;
    /// Not exhaustive: entry e's separating set (sorted nodes, the lexicographically
    /// smallest) at [e * set_size, (e + 1) * set_size), meaningful where kSeparated.
    /// One flat array, so a level with millions of removals allocates nothing per entry.
    BulkVector<std::int32_t> nodes;
    /// Exhaustive: entry e's union of the nodes of all its separating sets.
    std::vector<std::vector<std::int32_t>> unions;
    bool exhaustive = false;
    std::int64_t tests = 0;
    /// Set by reset_packed() for an engine that keeps the level's results itself
    /// (DeviceResults): then only `removal_bits` and `tests` are filled, flags, pmax and
    /// the sets are not.
    bool packed = false;
    /// packed: bit k (byte k / 8, bit k % 8) <=> the block's entry e_begin + k was
    /// separated from its row's side; zero on entry.
    std::vector<std::byte> removal_bits;

    /// Size for `entries` entries at `level`, with entries [e0, e1) (all when e1 < 0)
    /// untested; the others keep whatever they held. Filled on `threads` threads.
    void reset(std::size_t entries, int level, bool exhaustive_sets, std::int64_t e0 = 0, std::int64_t e1 = -1,
               int threads = 1) {
        if (e1 < 0) e1 = static_cast<std::int64_t>(entries);
        flags.resize(entries);
        pmax.resize(entries);
        set_size = level;
        exhaustive = exhaustive_sets;
        if (exhaustive) {
            nodes.clear();
            unions.resize(entries);
        } else {
            unions.clear();
            nodes.resize(entries * static_cast<std::size_t>(level));
        }
        constexpr std::int64_t kChunk = 1 << 16;
        parallel_for(0, (e1 - e0 + kChunk - 1) / kChunk, threads, 1, [&](std::int64_t c, int) {
            const std::int64_t b = e0 + c * kChunk, e = std::min(e1, b + kChunk);
            std::fill(flags.begin() + b, flags.begin() + e, std::uint8_t{0});
            std::fill(pmax.begin() + b, pmax.begin() + e, -1.0);
            if (exhaustive)
                for (std::int64_t k = b; k < e; ++k) unions[static_cast<std::size_t>(k)].clear();
        });
        tests = 0;
        packed = false;
    }
    /// For an engine that keeps the results: `block_entries` removal bits, all clear.
    void reset_packed(std::int64_t block_entries, int level) {
        packed = true;
        set_size = level;
        exhaustive = false;
        tests = 0;
        removal_bits.assign(static_cast<std::size_t>((block_entries + 7) / 8), std::byte{0});
    }
    /// Entry e's separating set (or union, when exhaustive).
    std::span<const std::int32_t> set(std::size_t e) const {
        if (exhaustive) return unions[e];
        return {nodes.data() + e * static_cast<std::size_t>(set_size), static_cast<std::size_t>(set_size)};
    }
    /// Where a non-exhaustive engine writes entry e's set_size nodes.
    std::int32_t* set_slot(std::size_t e) { return nodes.data() + e * static_cast<std::size_t>(set_size); }
};

/// The part of a level's work one rank runs: the entries [entry_begin, entry_end) of a
/// snapshot (entry e = (row i, nbrs[e]), rows in order), lying in the rows [row_begin,
/// row_end). Whole rows unless the engine splits rows (SkeletonEngine::splits_rows()): then
/// the first and the last row may be cut, and each of their entries is tested on exactly
/// one rank. An entry's outcome does not depend on which other entries of its row a rank
/// tests (every entry walks the same sets of its row), so the cut changes nothing.
struct LevelBlock {
    std::int64_t row_begin = 0, row_end = 0;
    std::int64_t entry_begin = 0, entry_end = 0;

    /// The whole rows [rb, re) of `snap`.
    static LevelBlock rows(const Adjacency& snap, std::int64_t rb, std::int64_t re) {
        return {rb, re, snap.offsets[static_cast<std::size_t>(rb)], snap.offsets[static_cast<std::size_t>(re)]};
    }
    /// The block's positions [first, second) in row i (0 .. degree(i)); empty when the row
    /// has none of its entries.
    std::pair<std::int64_t, std::int64_t> positions(const Adjacency& snap, std::int64_t i) const {
        const std::int64_t o = snap.offsets[static_cast<std::size_t>(i)];
        const std::int64_t b = std::max(entry_begin, o) - o;
        const std::int64_t e = std::min(entry_end, snap.offsets[static_cast<std::size_t>(i) + 1]) - o;
        return {b, std::max(b, e)};
    }
    bool whole_rows(const Adjacency& snap) const {
        return entry_begin == snap.offsets[static_cast<std::size_t>(row_begin)] &&
               entry_end == snap.offsets[static_cast<std::size_t>(row_end)];
    }
};

/// Optional extension of a SkeletonEngine that keeps the search's results where it runs
/// (a GPU: pMax, the levels' separating sets and the adjacency snapshots stay in device
/// memory, and the host handles O(removals) per level, not O(entries)). The level loop asks
/// for it through SkeletonEngine::device_results() and, for searches that stop at an
/// edge's first separating set (not exhaustive), runs the device-results strategy; without
/// it (or when exhaustive) the host-results strategy. Per search, the loop:
///  - level 0: may let the p-values stay with the engine (Level0Output::p_may_stay) and
///    then calls adopt_pmax() at once;
///  - calls adopt_pmax() once before the first level >= 1 otherwise;
///  - hands run_level() a LevelOutput reset with reset_packed(): the engine fills
///    removal_bits and tests only;
///  - after merging the level's removal map over all ranks (entry e of row a was separated
///    from a's side when bit bit0[a] + (e - snap.offsets[a]) of `removal` is set, bit k in
///    byte k / 8, bit k % 8; a row cut between ranks has its entries' bits in a row, since
///    such cuts lie on multiples of 8 entries), calls settle_level(), then next_snapshot();
///  - at gathers (checkpoints, the end) reduces the tables over ranks in place
///    (pmax_buffer()) or calls return_pmax(), and at the end takes the pairs from
///    pmax_pairs() when the engine's table is the answer.
class DeviceResults {
public:
    virtual ~DeviceResults() = default;

    /// Take over `pmax` as the engine's table. `from_level0`: the table is exactly the
    /// one the engine's last level0() call (over every row) produced and nothing has
    /// changed it since, so an engine may keep its own copy instead of reading it.
    virtual void adopt_pmax(const PmaxTable& pmax, bool from_level0) = 0;
    /// After a level run with a packed LevelOutput, given the merged removal map: (1) raise
    /// the pMax of the pair {a, b} to the level's pMax of every entry (a, b) of the block the
    /// engine tested at this level (the maximum p of the tests run from a's side; the
    /// winning set's p when separated), except an entry with b < a whose mirror (b, a) was
    /// separated, and (2) append to `log` the separating set of every entry (a, b) of the
    /// block that was separated, as pair (min, max), except again when b < a and (b, a) was
    /// separated too (the lower endpoint's set wins).
    virtual void settle_level(const Adjacency& snap, std::span<const std::byte> removal,
                              std::span<const std::int64_t> bit0, SepSetLog& log) = 0;
    /// The next level's snapshot, built by the engine from the snapshot `snap` of the level
    /// it just ran and that level's merged removal map (settle_level's layout): a pair goes
    /// when either of its entries was separated. Fills `next` (every row) and returns the
    /// pairs removed, or -1 when the engine leaves this level's snapshot to the host.
    virtual std::int64_t next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                                       std::span<const std::int64_t> bit0, Adjacency& next) = 0;
    /// Bring `pmax` up to the engine's table. `overwrite`: `pmax` has not changed since
    /// adopt_pmax() (nor since the last return): its values become the engine's; otherwise
    /// each is raised to the engine's.
    virtual void return_pmax(PmaxTable& pmax, bool overwrite) = 0;
    /// The engine's table as PmaxTable::pairs() lists it (the pairs with a value, sorted),
    /// for a search whose host table has not changed since adopt_pmax() (one rank), or
    /// whose ranks reduced the engines' tables in place (pmax_buffer()).
    virtual PairPList pmax_pairs() = 0;

    /// The adopted table's values (slot order, as PmaxTable::values()) where a collective
    /// can reduce them in place, or an empty span when the engine does not offer them.
    /// `device`: they live in the memory of the engine's GPU (only a communicator with
    /// device_buffers() takes them). The engine's work on them has finished when this
    /// returns. Several ranks then reduce the tables by max over ranks in place, instead
    /// of return_pmax() and an allreduce of the host tables; afterwards every engine holds
    /// the maximum over all ranks, which the host tables never exceed.
    struct PmaxBuffer {
        std::span<double> values;
        bool device = false;
    };
    virtual PmaxBuffer pmax_buffer() { return {}; }
};

/// A skeleton backend. Engines hold the sufficient statistics (e.g. the
/// correlation matrix) and run one level over a block of rows at a time.
/// Tests laid flat (ci/batch.hpp): query q is x[q] ⟂ y[q] given its set.
using FlatQueries = ci::Queries;

class SkeletonEngine {
public:
    virtual ~SkeletonEngine() = default;

    virtual std::string name() const = 0;
    virtual std::int64_t n_vars() const = 0;
    /// A line for the start-up report on how the engine holds its statistics (e.g. where
    /// the correlation matrix lives and why); empty when there is nothing to say.
    virtual std::string setup_note() const { return {}; }

    /// Level 0 for rows [row_begin, row_end): test every pair (i, j), i < j, i in
    /// the block, and add the dependent ones to `g` (both directions; `g` arrives
    /// without edges in those rows) or list them in Level0Output's kept CSR.
    /// `dense` asks for every p-value in Level0Output::dense_p (sized by the caller).
    virtual void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) = 0;

    /// True when running all of level 0 on every rank costs less than sharing its
    /// outcome (a GPU tests the n²/2 pairs in milliseconds; the kept pairs would have
    /// to cross the network and be merged on every rank anyway). The outcome must then
    /// be the same on every rank, which holds for the deterministic engines here.
    virtual bool level0_on_every_rank() const { return false; }

    /// Level l >= 1 on the snapshot `snap` for the entries of `block` (whole rows unless
    /// splits_rows()). `out` has been reset to snap.nbrs.size() entries (write only the
    /// block's entries), or, by a search running the device-results strategy, with
    /// reset_packed() (see DeviceResults; bit k <=> entry block.entry_begin + k).
    virtual void run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) = 0;

    /// Whether run_level() takes blocks that cut rows (LevelBlock): then the ranks of a
    /// distributed search share a hub row's entries instead of one rank running it alone.
    virtual bool splits_rows() const { return false; }

    /// One test, p-value of i ⟂ j | s (used by orientation rules and checks).
    virtual double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) = 0;

    /// Many Fisher-z tests at once (FCI's stages after the skeleton): r[q], the partial
    /// correlation of query q as p_value computes it (bit for bit the CPU's), for every
    /// query. False, doing nothing, where the engine has no such path (the caller tests
    /// one by one); an empty batch asks which, without testing.
    virtual bool partial_correlations(const FlatQueries& /*queries*/, std::span<double> /*r*/) { return false; }

    /// Many tests at once (FCI's stages after the skeleton, citest's batches): statistic[q]
    /// and p[q] of query q, bit for bit what p_value and the CPU test give (the statistic as
    /// ci::CiOutcome::statistic), for every query. False, doing nothing, where the engine has
    /// no batch path; an empty batch asks which, without testing. A non-finite statistic or
    /// p-value is an InputError naming the query's variables.
    virtual bool test_batch(const FlatQueries& /*queries*/, std::span<double> /*statistic*/, std::span<double> /*p*/) {
        return false;
    }

    /// The optional extension that keeps results with the engine; nullptr: the search
    /// keeps them on the host.
    virtual DeviceResults* device_results() { return nullptr; }

    /// One level run by run_levels().
    struct ResidentLevel {
        LevelPlan plan;  ///< what the level loop's on_level_start would have been told
        std::int64_t tests = 0, removed = 0, edges_after = 0;
        double seconds = 0.0;
    };
    /// Optional, for an engine with DeviceResults whose table the search has adopted, on one
    /// rank, in a search that stops at each edge's first separating set, with no background
    /// knowledge, checkpoint or stop: levels first, first + 1, ... up to `last`, run one after
    /// another by the engine with no host step between them, from `snap`, level first's
    /// snapshot. Each level's pMax raises the adopted table and its separating sets are
    /// appended to `log`, as the level loop's settle_level() does; `levels` gets each level
    /// run and `next` the snapshot after the last. The engine stops before a level whose rows
    /// have too few neighbours, or that the level loop would run faster. Returns the levels
    /// run; 0 (nothing changed): the engine declines, and the loop runs level `first`.
    virtual int run_levels(int /*first*/, int /*last*/, const Adjacency& /*snap*/, SepSetLog& /*log*/,
                           std::vector<ResidentLevel>& /*levels*/, Adjacency& /*next*/) {
        return 0;
    }
};

}  // namespace cudag::skeleton
