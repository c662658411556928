// SPDX-License-Identifier: Apache-2.0
// A kd-tree under the maximum norm for the CMIknn test (ci/cmi_knn.hpp): the distance to
// the k-th nearest point, the number of points within a radius, and the
// k nearest points (ties ordered by L1 distance, then a per-query hash). Host only.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/hd.hpp"

namespace cudag::ci {

/// Tie key of point `id` for a query with `salt` (SplitMix64 finaliser of their mix).
CUDAG_HD inline std::uint64_t kd_tie_key(std::uint64_t salt, std::int64_t id) {
    std::uint64_t z = salt ^ (static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// Max-norm kd-tree over n points of d coordinates. build() copies the points (point-major)
/// and keeps every buffer's capacity, so rebuilding a tree of the same size allocates
/// nothing. Queries are const and may run concurrently on one tree; each caller passes
/// its own KdQueryScratch. Distances are max_c |q_c − p_c| computed exactly as a brute-force
/// scan computes them, and the bounding-box tests are exact (rounding is monotone), so every
/// query returns what the O(n) scan returns (tested in test_cmi_knn.cpp).
class MaxNormKdTree {
public:
    /// Build over points p = 0..n−1 whose coordinate c is cols[c][p] (host pointers, d ≥ 1).
    void build(const double* const* cols, int d, std::int64_t n);

    int dims() const { return d_; }
    std::int64_t size() const { return n_; }

    /// Max-norm distance from q (d coordinates) to its k-th nearest point of the tree,
    /// 1 ≤ k ≤ size(); a point equal to q (q itself when q is one of the points) is
    /// the first. `heap` is caller scratch (capacity k kept between calls).
    double kth_distance(const double* q, std::int64_t k, std::vector<double>& heap) const;

    /// Number of points p with distance(q, p) ≤ r (scipy's query_ball_point; CMIknn passes
    /// ci::cmi_count_radius(ε), the rule of ci::cmi_counts_point).
    std::int64_t count_within(const double* q, double r) const;

    /// One candidate of nearest(): distance, tie key, index; ordered lexicographically.
    struct Near {
        double d;           ///< max-norm distance
        double l1;          ///< sum of the coordinate distances (first tie-break)
        std::uint64_t key;  ///< kd_tie_key (second tie-break)
        std::int32_t id;
        bool operator<(const Near& o) const {
            if (d != o.d) return d < o.d;
            if (l1 != o.l1) return l1 < o.l1;
            return key < o.key || (key == o.key && id < o.id);
        }
    };

    /// Indices of the k nearest points to q, k ≤ size(), written to out[0..k) in Near
    /// order: max-norm distance, then the sum of the coordinate distances (among points at
    /// one max-norm distance, the more compact neighbourhood), then kd_tie_key(salt, index),
    /// a hash private to the query, so that no point is preferred by every query. `heap`
    /// is caller scratch.
    void nearest(const double* q, int k, std::uint64_t salt, std::int32_t* out, std::vector<Near>& heap) const;

private:
    struct Node {
        std::int64_t begin = 0, end = 0;     ///< slots [begin, end) of pts_/ids_
        std::int32_t left = -1, right = -1;  ///< children, −1 for a leaf
    };
    /// Stack entry of a traversal: a node and the lower bound of its distance to q.
    struct Pending {
        std::int32_t node;
        double bound;
    };
    std::int32_t build_node(std::int64_t begin, std::int64_t end);
    /// The k best entries make(slot) (a max-heap in `heap`); a node whose distance bound
    /// satisfies pruned(bound, worst kept) is skipped once k are kept.
    template <class E, class Make, class Pruned>
    void best_k(const double* q, std::int64_t k, std::vector<E>& heap, Make make, Pruned pruned) const;
    /// Push an inner node's children, the nearer to q on top.
    void push_children(const Node& nd, const double* q, Pending* stack, int& top) const;
    double min_dist(std::int32_t node, const double* q) const;
    double max_dist(std::int32_t node, const double* q) const;
    double dist(std::int64_t slot, const double* q) const;

    int d_ = 0;
    std::int64_t n_ = 0;
    std::vector<double> pts_;        ///< slot-major coordinates, d_ per slot
    std::vector<std::int32_t> ids_;  ///< original index of each slot
    std::vector<Node> nodes_;
    std::vector<double> box_;      ///< per node: lo[d_] then hi[d_]
    std::vector<double> scratch_;  ///< build: the points in input order
};

}  // namespace cudag::ci
