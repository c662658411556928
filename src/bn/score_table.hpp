// SPDX-License-Identifier: Apache-2.0
// The local-score table of order MCMC (issue 21; digest §4): the local score of every node
// given every allowed parent set of size <= max_parents, and the scores of topological
// orders computed from it.
//
// Each node v has a sorted list of candidate parents (every other node, or a restricted
// space). A parent set of size k is a k-subset of those candidates, written as positions
// i_0 < ... < i_{k-1} in the list; its entry is found by (v, k, combination_rank of the
// positions among the m_v candidates) (core/combinations.hpp). A node's entries are stored
// by size, then by rank: offset(v, k) + rank.
//
// A node may also have "extra" parents (BiDAG's plus1 space): nodes outside its candidates
// that may join a set of at most max_parents - 1 candidates, one extra at a time. Their
// entries follow the candidates' ones, one block per extra (in increasing node id), each
// laid out like the candidates' block with the limit max_parents - 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "bn/score.hpp"
#include "bn/subset_rows.hpp"
#include "core/bulk_vector.hpp"
#include "core/error.hpp"

namespace cudag::bn {

/// Nodes [begin, end) of a table: the share of its entries one rank computes
/// (bn/table_split.hpp). Empty when begin == end.
struct NodeRange {
    std::int32_t begin = 0;
    std::int32_t end = 0;
    bool empty() const { return end <= begin; }
    bool contains(std::int32_t v) const { return v >= begin && v < end; }
};

class ScoreTable {
public:
    /// Computes some of the table's entries of the nodes `nodes` another way (a GPU), and
    /// says node by node what it wrote through report_filled: the scorer then computes every
    /// entry of a node not reported and the NaN entries of a node reported Written, and
    /// checks that the others are finite (not those of a node reported Finite). The entries
    /// are not initialised when it comes. It must give the scorer's values bit for bit and
    /// write no other node's entries. build_sorted's `sorter` has the same type: it builds
    /// the lists of the nodes `nodes` through set_sorted.
    using Filler = std::function<void(ScoreTable&, NodeRange nodes)>;
    /// A phase's progress: `what` ("local-score table", "score-sorted lists"), the work done
    /// and planned (entries, or nodes). Called on the thread that called fill_nodes or
    /// build_sorted, about four times a second while its host threads work (not while a
    /// Filler or a sorter runs); it may throw to stop the phase (an interrupt).
    using Progress = std::function<void(const char* what, std::int64_t done, std::int64_t total)>;
    /// What a Filler did with one node's entries (report_filled).
    enum class NodeFill : std::uint8_t {
        None,     ///< nothing written (the default): the scorer computes every entry
        Written,  ///< every entry written, NaN where the scorer is to compute it
        Finite,   ///< every entry written and finite: the scorer has nothing to compute or check
        /// Every entry computed and finite where the Filler ran (a GPU), mandatory parents'
        /// -inf included, and the node's sorted lists built there from them (set_sorted):
        /// none is written here, the table does not hold the node (holds) and build_sorted
        /// keeps its lists. Only while sort_on_fill().
        Sorted,
    };
    /// Where the fill_nodes calls of this table spent their time (summed over calls), for -v.
    struct FillTimes {
        double filler = 0.0;            ///< wall seconds in the Filler
        double device_kernels = 0.0;    ///< of which the Filler's kernels ran (its report)
        double device_copies = 0.0;     ///< its device-to-host copies
        double host_copies = 0.0;       ///< its host threads' copies into the table
        double host_waits = 0.0;        ///< its host thread's waits for the device
        double host_pass = 0.0;         ///< wall seconds of the scorer's pass (all of a CPU fill)
        std::int64_t host_nodes = 0;    ///< nodes that pass computed or checked
        std::int64_t sorted_nodes = 0;  ///< nodes the Filler reported Sorted (their lists built where it ran)
        double device_sort = 0.0;       ///< its device's seconds building those lists
    };

    /// The table over every parent set drawn from the other nodes. Throws OutOfMemory (one
    /// line: what it needs, what is free) before allocating when it will not fit, InputError
    /// when max_parents < 0. `threads` <= 0: all hardware threads. The entries do not
    /// depend on `threads`. layout() and fill_nodes() in one call.
    static ScoreTable build(const LocalScorer& scorer, int max_parents, int threads, const Filler& filler = {});
    /// The table over a restricted space: candidates[v] lists the allowed parents of v
    /// (distinct node ids, not v, any order; stored sorted). InputError when a list is
    /// malformed or there is not one list per node.
    /// extras[v] (empty, or one list per node) lists nodes, outside v's candidates, each of
    /// which may be added as the one extra parent to a set of at most max_parents - 1
    /// candidates (BiDAG's plus1 space).
    static ScoreTable build(const LocalScorer& scorer, std::vector<std::vector<std::int32_t>> candidates,
                            int max_parents, int threads, std::vector<std::vector<std::int32_t>> extras = {},
                            const Filler& filler = {});

    /// The table of n nodes laid out (candidates, extras, offsets; the same checks and
    /// OutOfMemory as build) with every entry still to compute: fill_nodes computes them, a
    /// block of nodes at a time (bn/table_split.hpp splits them over ranks). The first form
    /// is the space of every other node.
    static ScoreTable layout(std::int64_t n, int max_parents);
    static ScoreTable layout(std::int64_t n, std::vector<std::vector<std::int32_t>> candidates, int max_parents,
                             std::vector<std::vector<std::int32_t>> extras = {});
    /// Computes the entries of the nodes `nodes` with `scorer` (over the table's n nodes;
    /// InputError otherwise), `filler` first when given; no other node's entries are
    /// written. The entries equal build's bit for bit, whatever the blocks and `threads`.
    void fill_nodes(const LocalScorer& scorer, NodeRange nodes, int threads, const Filler& filler = {});
    /// For a Filler within fill_nodes: what it wrote of node v (one of its nodes).
    void report_filled(std::int32_t v, NodeFill how) {
        CUDAG_ASSERT(filling_.contains(v) && (how != NodeFill::Sorted || sort_on_fill_));
        node_fill_[static_cast<std::size_t>(v)] = how;
    }
    /// For a Filler within fill_nodes: the threads its host work may take (fill_nodes's).
    int fill_threads() const { return fill_threads_; }
    /// For a Filler within fill_nodes: its device's and host threads' seconds (FillTimes).
    void add_filler_times(double device_kernels, double device_copies, double host_copies, double host_waits) {
        fill_times_.device_kernels += device_kernels;
        fill_times_.device_copies += device_copies;
        fill_times_.host_copies += host_copies;
        fill_times_.host_waits += host_waits;
    }
    /// For a Filler within fill_nodes: the seconds its device spent building lists (Sorted).
    void add_filler_sort_time(double device_sort) { fill_times_.device_sort += device_sort; }
    const FillTimes& fill_times() const { return fill_times_; }
    /// The progress of fill_nodes' and build_sorted's host passes (empty: none).
    void set_progress(Progress progress) { progress_ = std::move(progress); }
    /// Max mode, when the sorted lists are sure to be built (decided before the fill, issue
    /// 37): a Filler may build a node's lists right after computing its entries, without
    /// writing them here, and report it NodeFill::Sorted. build_sorted then builds only the
    /// other nodes' lists, with no budget check: the caller checked sorted_bytes() against
    /// its budget before (build_sorted_split's other checks hold for any table that fits).
    /// Call before fill_nodes; never in sum mode, which reads every entry.
    void set_sort_on_fill(bool on);
    bool sort_on_fill() const { return sort_on_fill_; }
    /// Whether build_sorted will build lists for this table whatever its budget: n and every
    /// node's entry count within the lists' limits (see build_sorted).
    bool sortable() const;
    /// Mandatory parents (--require, issue 37): every parent set of v must hold each node of
    /// required[v] (empty, or one list per node). The sets of v lacking one score -inf:
    /// excluded from v's max (they are dominated by construction, so the sorted lists keep
    /// only v's empty set of them, last) and from its log-sum (weight 0). An order placing a
    /// required parent after its child then scores -inf: the chains never accept it, and
    /// start_chain draws orders that respect the requirements. InputError when a required
    /// parent is not a candidate of v (not an extra), v has more required parents than
    /// max_parents, or the requirements form a directed cycle. Call before fill_nodes.
    void require_parents(std::vector<std::vector<std::int32_t>> required);
    bool has_required() const { return !required_.empty(); }
    /// v's mandatory parents, increasing; empty without them.
    std::span<const std::int32_t> required(std::int32_t v) const {
        return required_.empty() ? std::span<const std::int32_t>() : std::span<const std::int32_t>(required_[v]);
    }

    /// Max mode's pruned table (issue 37; docs/mcmc.md): fill_nodes scores the sets in order
    /// of size and, when the scorer's bound (LocalScorer::local_bounded) proves that no strict
    /// superset of a set can score above the best of that set's subsets, scores none of its
    /// supersets: they hold -inf. Such a superset is dominated (a subset scores at least as
    /// high), so build_sorted's lists, and every max-mode answer, equal the full table's bit
    /// for bit. Sum mode needs every entry: never set it there. Call before fill_nodes; a
    /// Filler (a GPU) computes every entry regardless.
    void set_pruning(bool on) { prune_ = on; }
    /// Sum mode's opt-in pruning (issue 37, sumu's idea): every held entry scoring more than
    /// `delta` below the best of its proper subsets (entries of v too, consistent with every
    /// order the set is) becomes -inf, i.e. weight 0 in every order's sum. Each such set
    /// weighs less than e^-delta of a kept subset that any order allowing it also allows.
    /// Returns the entries dropped (per node: sum_pruned()); InputError unless delta is a
    /// finite number >= 0. The same entries on every engine and thread count.
    std::int64_t prune_sum(double delta, int threads);
    /// Entries prune_sum dropped, by node (empty before it ran).
    const std::vector<std::int64_t>& sum_pruned() const { return sum_pruned_; }
    bool pruning() const { return prune_; }
    /// BiDAG's iterative search space re-scores a growing table each round (issue 37): a
    /// table that keeps what a later table needs (keep_for_reuse, before fill_nodes: each
    /// pruned node's record of which sets were closed, 1 byte an entry) lends its entries to
    /// the next one. With reuse_from(prev) set (prev over the same scorer and parent limit,
    /// alive until fill_nodes returns; nullptr ends it), fill_nodes takes each entry that
    /// prev holds, finite, for the same node and parent set, instead of scoring it, and, when
    /// pruning, prev's record of it (a set's closure depends on the set alone, so the same
    /// sets are scored and pruned as without reuse). Entries equal a fresh fill's bit for
    /// bit; scored() counts reused entries as scored. A node with other mandatory parents in
    /// prev, or that prev did not hold or (when pruning here) did not prune, is scored anew.
    void keep_for_reuse(bool on) { keep_closed_ = on; }
    void reuse_from(const ScoreTable* prev) { reuse_ = prev; }
    /// Entries of v that the last fill_nodes took from reuse_from's table.
    std::int64_t reused(std::int32_t v) const { return reused_.empty() ? 0 : reused_[v]; }
    std::int64_t reused_entries() const;
    /// Entries of v the last fill_nodes scored (pruned and required-lacking sets are not).
    std::int64_t scored(std::int32_t v) const { return scored_[v]; }
    /// The scored counts of the nodes `nodes`, for a split table to share.
    std::span<std::int64_t> mutable_scored(NodeRange nodes) {
        return {scored_.data() + nodes.begin, static_cast<std::size_t>(nodes.end - nodes.begin)};
    }
    std::int64_t scored_entries() const;

    /// Every node.
    NodeRange all_nodes() const { return {0, static_cast<std::int32_t>(n_nodes())}; }

    /// Bytes the table takes for nodes with `candidate_counts[v]` candidates each
    /// (entries, offsets and candidate lists); a double, as it may exceed 64 bits.
    /// extra_counts (empty or one per node): the number of extra parents of each node.
    static double estimate_bytes(std::span<const std::int64_t> candidate_counts, int max_parents,
                                 std::span<const std::int64_t> extra_counts = {});

    std::int64_t n_nodes() const { return static_cast<std::int64_t>(candidates_.size()); }
    int max_parents() const { return max_parents_; }
    /// v's candidate parents, increasing.
    std::span<const std::int32_t> candidates(std::int32_t v) const { return candidates_[v]; }
    /// v's extra parents (plus1), increasing; empty without them.
    std::span<const std::int32_t> extras(std::int32_t v) const {
        return extras_.empty() ? std::span<const std::int32_t>() : std::span<const std::int32_t>(extras_[v]);
    }
    /// Number of parent sets of v of size k drawn from its candidates: C(m_v, k) for
    /// k <= max_parents, else 0.
    std::int64_t count(std::int32_t v, int k) const;
    /// Number of sets of k candidates that one extra parent may join: C(m_v, k) for
    /// k <= max_parents - 1, else 0.
    std::int64_t extra_count(std::int32_t v, int k) const;
    /// Entries of v (all sizes).
    std::int64_t node_entries(std::int32_t v) const { return node_offset_[v + 1] - node_offset_[v]; }
    /// Entries of the nodes `nodes` (all sizes).
    std::int64_t block_entries(NodeRange nodes) const { return node_offset_[nodes.end] - node_offset_[nodes.begin]; }
    std::int64_t total_entries() const { return node_offset_.back(); }

    /// The local score of v given the k-set of candidate positions of lexicographic rank `rank`.
    double score(std::int32_t v, int k, std::int64_t rank) const {
        return scores_[static_cast<std::size_t>(node_offset_[v] + size_offset_[v][k] + rank)];
    }
    /// The local score of v given extra parent extras(v)[e] and the k-set of candidate
    /// positions of rank `rank` (k <= max_parents - 1).
    double extra_score(std::int32_t v, std::int64_t e, int k, std::int64_t rank) const {
        return scores_[static_cast<std::size_t>(node_offset_[v] + size_offset_[v].back() + e * extra_offset_[v].back() +
                                                extra_offset_[v][k] + rank)];
    }
    /// The local score of v given `parents` (node ids, any order); InputError when a parent
    /// is neither a candidate of v nor (one of them at most) an extra, or there are more
    /// than max_parents.
    double lookup(std::int32_t v, std::span<const std::int32_t> parents) const;
    /// The parents (node ids, increasing) of the k-set of rank `rank` of v.
    std::vector<std::int32_t> parent_set(std::int32_t v, int k, std::int64_t rank) const;
    /// The parents (node ids, increasing) of extra e's entry (k, rank) of v.
    std::vector<std::int32_t> extra_parent_set(std::int32_t v, std::int64_t e, int k, std::int64_t rank) const;
    /// Where v's entries start in the flat table, and where size k starts within v's
    /// candidates' block (k = 0..max_parents + 1) and within each extra's block
    /// (k = 0..max_parents).
    std::int64_t node_offset(std::int32_t v) const { return node_offset_[v]; }
    std::int64_t size_offset(std::int32_t v, int k) const { return size_offset_[v][k]; }
    std::int64_t extra_offset(std::int32_t v, int k) const { return extra_offset_[v][k]; }
    /// Whether v's entries are held here: every node's, unless the table was filled split
    /// over ranks and not gathered (bn/table_split.hpp: max mode keeps only the sorted
    /// lists of the other ranks' nodes). node_scores, score, extra_score and lookup of a
    /// node not held are programming errors.
    /// A node a Filler reported NodeFill::Sorted is never held.
    bool holds(std::int32_t v) const {
        return (held_all_ || held_.contains(v)) && node_fill_[static_cast<std::size_t>(v)] != NodeFill::Sorted;
    }
    /// Whether v's lists were built where the Filler ran (NodeFill::Sorted).
    bool sorted_on_fill(std::int32_t v) const { return node_fill_[static_cast<std::size_t>(v)] == NodeFill::Sorted; }
    bool holds_all() const { return held_all_ && sorted_on_fill_nodes_ == 0; }
    /// Marks only the entries of `nodes` as held (the others were never computed here).
    void hold_only(NodeRange nodes) { held_all_ = false, held_ = nodes; }
    /// Marks every entry as held (a split table gathered).
    void hold_all() { held_all_ = true; }
    /// v's entries for a Filler to write.
    std::span<double> mutable_node_scores(std::int32_t v) {
        return {scores_.data() + node_offset_[v], static_cast<std::size_t>(node_entries(v))};
    }
    /// The entries of the nodes `nodes`, contiguous (node_scores of each in turn): what a
    /// rank shares of a table split over ranks.
    std::span<double> mutable_block_scores(NodeRange nodes) {
        return {scores_.data() + node_offset_[nodes.begin], static_cast<std::size_t>(block_entries(nodes))};
    }
    /// All entries of v, candidates' block first then each extra's: the flat layout a GPU
    /// copy takes.
    std::span<const double> node_scores(std::int32_t v) const {
        CUDAG_ASSERT(holds(v));
        return {scores_.data() + node_offset_[v], static_cast<std::size_t>(node_entries(v))};
    }

    /// Max mode's shortcut (issue 21: "parent sets kept sorted by score so the best
    /// consistent one is found early"): each node's undominated entries (no subset scores as
    /// high: dominated_sets) sorted by score, highest first, ties by the smaller offset in
    /// node_scores(v) (the enumeration order), each with its parents' node ids (increasing,
    /// max_parents per entry, kNoParent after the last). node_score_max then takes the first
    /// consistent entry: the enumeration's answer. Each entry carries its score
    /// (sorted_scores), so that the lists alone answer max mode: a table split over ranks
    /// shares only them (bn/table_split.hpp). Returns false and builds nothing when
    /// n > 65535, a node has 2^32 entries or more, or `budget_bytes` (>= 0) is below
    /// sorted_bytes(). `sorter`, when given, builds the lists instead (a GPU) through
    /// set_sorted, with the same result. `nodes`: only those nodes' lists are built, the
    /// others left empty for set_sorted (bn/table_split.hpp gathers them from the ranks
    /// that built them); the answer does not depend on `nodes`.
    bool build_sorted(int threads, double budget_bytes = -1.0, const Filler& sorter = {},
                      std::optional<NodeRange> nodes = std::nullopt);
    bool has_sorted() const { return has_sorted_; }
    static constexpr std::uint16_t kNoParent = 0xffff;
    /// The most the lists can take (every set undominated).
    double sorted_bytes() const {
        return static_cast<double>(total_entries()) * (4.0 + 8.0 + 2.0 * std::max(max_parents_, 1));
    }
    /// Entries kept in the lists, all nodes.
    std::int64_t sorted_entries() const;
    std::span<const std::uint32_t> sorted_offsets(std::int32_t v) const { return sorted_off_[v]; }
    std::span<const std::uint16_t> sorted_parents(std::int32_t v) const { return sorted_par_[v]; }
    /// The score of each of v's sorted entries: node_scores(v)[sorted_offsets(v)[i]].
    std::span<const double> sorted_scores(std::int32_t v) const { return sorted_score_[v]; }
    void set_sorted(std::int32_t v, std::vector<std::uint32_t> offsets, std::vector<std::uint16_t> parents,
                    std::vector<double> scores);
    /// The parents of v's entry at `offset` in node_scores(v), node ids increasing.
    std::vector<std::int32_t> entry_parents(std::int32_t v, std::int64_t offset) const;

    /// Sum mode's subset rows (bn/subset_rows.hpp; issue 37): rows for the nodes with at
    /// most kMaxRowBits candidates, the smallest first while the rows of all nodes stay
    /// within `budget_bytes`; node_score_sum (and every sum-mode score, on every engine) reads
    /// a node's row where it has one instead of enumerating its sets. The rows do not depend
    /// on `threads`. Needs the whole table (holds_all). Returns the nodes given rows; calling
    /// it again rebuilds them.
    std::int64_t build_subset_rows(int threads, double budget_bytes = kDefaultRowBudgetBytes);
    bool has_rows(std::int32_t v) const { return !row_offset_.empty() && row_offset_[v] >= 0; }
    bool has_any_rows() const { return !rows_.empty(); }
    /// Values per mask of v's rows: 1 + its extra count.
    std::int64_t row_width(std::int32_t v) const { return 1 + static_cast<std::int64_t>(extras(v).size()); }
    /// Where v's rows start in the flat rows (-1: none) and all rows, mask by mask.
    std::int64_t row_offset(std::int32_t v) const { return row_offset_.empty() ? -1 : row_offset_[v]; }
    std::span<const double> all_rows() const { return {rows_.data(), rows_.size()}; }
    /// v's row for the mask of candidate positions `mask` (row_width values).
    const double* subset_row(std::int32_t v, std::uint32_t mask) const {
        return rows_.data() + row_offset_[v] + static_cast<std::int64_t>(mask) * row_width(v);
    }

private:
    ScoreTable() = default;
    /// The entries of `nodes` from the scorer. After a filler, by node_fill_: every entry
    /// of a node it did not write, the NaN ones of a node it wrote, none of a finite one
    /// (mandatory parents aside); the written entries are checked.
    void fill(const LocalScorer& scorer, NodeRange nodes, int threads, bool after_filler);

    int max_parents_ = 0;
    std::vector<std::vector<std::int32_t>> candidates_;
    std::vector<std::vector<std::int32_t>> extras_;        ///< empty, or one list per node
    std::vector<std::vector<std::int32_t>> required_;      ///< empty, or one list per node (require_parents)
    std::vector<std::vector<std::int64_t>> size_offset_;   ///< per node, max_parents + 2 entries
    std::vector<std::vector<std::int64_t>> extra_offset_;  ///< per node, max_parents + 1 entries (limit s - 1)
    std::vector<std::int64_t> node_offset_;                ///< n + 1 entries
    BulkVector<double> scores_;
    bool has_sorted_ = false;
    std::vector<std::vector<std::uint32_t>> sorted_off_;  ///< by node, see build_sorted
    std::vector<std::vector<std::uint16_t>> sorted_par_;  ///< max(max_parents, 1) per entry
    std::vector<std::vector<double>> sorted_score_;       ///< by node, one per entry
    bool prune_ = false;                                  ///< see set_pruning
    std::vector<std::int64_t> sum_pruned_;                ///< see prune_sum
    bool sort_on_fill_ = false;                           ///< see set_sort_on_fill
    std::int64_t sorted_on_fill_nodes_ = 0;               ///< nodes reported NodeFill::Sorted
    std::vector<std::int64_t> scored_;                    ///< by node, see scored()
    bool keep_closed_ = false;                            ///< see keep_for_reuse
    std::vector<std::vector<char>> closed_;               ///< by node: the pruned fill's closed flags
    const ScoreTable* reuse_ = nullptr;                   ///< see reuse_from
    std::vector<std::int64_t> reused_;                    ///< by node, see reused()
    std::vector<NodeFill> node_fill_;                     ///< by node, the filler's report
    NodeRange filling_;                                   ///< the nodes of the fill_nodes in progress
    Progress progress_;                                   ///< see set_progress
    int fill_threads_ = 1;                                ///< its threads
    FillTimes fill_times_;
    bool held_all_ = true;  ///< see holds()
    NodeRange held_;
    std::vector<std::int64_t> row_offset_;  ///< by node, -1 without rows (build_subset_rows)
    BulkVector<double> rows_;
};

/// The max-based order score (Eq. 6 of the paper): for each node, the best local score over
/// the allowed parent sets within its predecessors in `order`, and that set.
struct OrderMaxResult {
    double total = 0.0;                              ///< sum of node_score
    std::vector<double> node_score;                  ///< by node id
    std::vector<std::vector<std::int32_t>> parents;  ///< best set by node id (increasing); the MAP DAG
};

/// The sum-based order score (Friedman & Koller): for each node, log sum over the allowed
/// parent sets within its predecessors of exp(local score), and the posterior probability
/// of each edge given the order.
struct OrderSumResult {
    double total = 0.0;              ///< sum of node_score
    std::vector<double> node_score;  ///< by node id
    /// edge_prob[p * n + v] = P(p --> v | order): the share of v's consistent sets holding
    /// p, weighted by exp(score). Empty when not asked for.
    std::vector<double> edge_prob;
};

/// Which of v's entries (by offset in node_scores(v)) are dominated: some proper subset of
/// the set, also an entry of v, scores at least as high. Such a set is never a node's best
/// consistent set (the subset is consistent whenever it is, and comes first on ties).
std::vector<char> dominated_sets(const ScoreTable& table, std::int32_t v);
/// For each of v's entries (by offset in node_scores(v)), the highest score of its proper
/// subsets that are entries of v (-inf for the empty set).
std::vector<double> best_proper_subsets(const ScoreTable& table, std::int32_t v);

/// `order` is a permutation of the table's nodes (first = no predecessors); InputError
/// otherwise. Ties among the best sets go to the candidates' block before the extras'
/// (in increasing extra), then the smallest size, then the smallest rank.
OrderMaxResult order_score_max(const ScoreTable& table, std::span<const std::int32_t> order);
OrderSumResult order_score_sum(const ScoreTable& table, std::span<const std::int32_t> order, bool edge_probs = true);

/// One node's share of the order scores above, for samplers that rescore only the nodes
/// whose predecessors changed (bn/order_mcmc.hpp). pos_of[u] is the place of node u in the
/// order (a permutation's inverse; not checked here). order_score_max and order_score_sum
/// are the sums of these over v = 0, 1, ..., n - 1, so equal inputs give equal values.
/// node_score_max: v's best local score within its predecessors; its set in *parents when
/// given. node_score_sum: log sum of exp(local score) over v's consistent sets; when
/// edge_prob is not empty (n entries) it receives P(p --> v | order) for every node p
/// (0 for nodes that are not allowed predecessors).
double node_score_max(const ScoreTable& table, std::int32_t v, std::span<const std::int64_t> pos_of,
                      std::vector<std::int32_t>* parents = nullptr);
double node_score_sum(const ScoreTable& table, std::int32_t v, std::span<const std::int64_t> pos_of,
                      std::span<double> edge_prob = {});

/// The exact order-modular edge posteriors: uniform prior over the n! orders, uniform over
/// the allowed parent sets within an order, so that P(order | D) is proportional to
/// exp(order_score_sum) and P(p --> v | D) = sum over orders of P(order | D) P(p --> v | order).
struct ExactPosterior {
    std::vector<double> edge_prob;  ///< n × n, edge_prob[p * n + v] = P(p --> v | D)
    double log_evidence = 0.0;      ///< log sum over orders of exp(order_score_sum)
};

/// Enumerates every order: n <= kMaxExactNodes, InputError otherwise.
constexpr int kMaxExactNodes = 8;
ExactPosterior exact_edge_posteriors(const ScoreTable& table);

}  // namespace cudag::bn
