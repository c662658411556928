// SPDX-License-Identifier: Apache-2.0
#include "ci/kd_tree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace cudag::ci {

namespace {

constexpr std::int64_t kLeafSize = 16;
constexpr int kMaxStack = 256;  // depth ≤ log2(2^31 / 16) < 32; two entries per level

/// Keep the `full` smallest entries seen in a max-heap.
template <class E>
void offer(std::vector<E>& heap, std::size_t full, const E& e) {
    if (heap.size() < full) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end());
    } else if (e < heap.front()) {
        std::pop_heap(heap.begin(), heap.end());
        heap.back() = e;
        std::push_heap(heap.begin(), heap.end());
    }
}

}  // namespace

void MaxNormKdTree::push_children(const Node& nd, const double* q, Pending* stack, int& top) const {
    const double bl = min_dist(nd.left, q);
    const double br = min_dist(nd.right, q);
    // Push the farther child first so that the nearer one is searched first.
    if (bl <= br) {
        stack[top++] = {nd.right, br};
        stack[top++] = {nd.left, bl};
    } else {
        stack[top++] = {nd.left, bl};
        stack[top++] = {nd.right, br};
    }
}

void MaxNormKdTree::build(const double* const* cols, int d, std::int64_t n) {
    CUDAG_ASSERT(d >= 1 && n >= 1 && n < (std::int64_t{1} << 31));
    d_ = d;
    n_ = n;
    ids_.resize(static_cast<std::size_t>(n));
    std::iota(ids_.begin(), ids_.end(), 0);
    nodes_.clear();
    box_.clear();
    // Slot-major copy in the original order first, so that the build reads contiguous
    // points; it is permuted into tree order at the end.
    pts_.resize(static_cast<std::size_t>(n * d));
    for (std::int64_t p = 0; p < n; ++p)
        for (int c = 0; c < d; ++c) pts_[p * d + c] = cols[c][p];
    build_node(0, n);
    std::vector<double>& src = scratch_;
    src.swap(pts_);
    pts_.resize(src.size());
    for (std::int64_t s = 0; s < n; ++s) std::copy_n(&src[static_cast<std::size_t>(ids_[s]) * d], d, &pts_[s * d]);
}

std::int32_t MaxNormKdTree::build_node(std::int64_t begin, std::int64_t end) {
    const auto id = static_cast<std::int32_t>(nodes_.size());
    nodes_.push_back(Node{begin, end, -1, -1});
    const std::size_t b0 = box_.size();
    box_.resize(b0 + 2 * static_cast<std::size_t>(d_));
    double* lo = &box_[b0];
    double* hi = lo + d_;
    for (int c = 0; c < d_; ++c) {
        lo[c] = hi[c] = pts_[static_cast<std::size_t>(ids_[begin]) * d_ + c];
    }
    for (std::int64_t s = begin + 1; s < end; ++s) {
        const double* p = &pts_[static_cast<std::size_t>(ids_[s]) * d_];
        for (int c = 0; c < d_; ++c) {
            lo[c] = std::min(lo[c], p[c]);
            hi[c] = std::max(hi[c], p[c]);
        }
    }
    if (end - begin <= kLeafSize) return id;
    int split = 0;
    double spread = hi[0] - lo[0];
    for (int c = 1; c < d_; ++c)
        if (hi[c] - lo[c] > spread) {
            spread = hi[c] - lo[c];
            split = c;
        }
    if (!(spread > 0.0)) return id;  // all points equal: one leaf
    const std::int64_t mid = begin + (end - begin) / 2;
    const double* pts = pts_.data();
    const int d = d_;
    std::nth_element(ids_.begin() + begin, ids_.begin() + mid, ids_.begin() + end,
                     [pts, d, split](std::int32_t a, std::int32_t b) {
                         const double va = pts[static_cast<std::size_t>(a) * d + split];
                         const double vb = pts[static_cast<std::size_t>(b) * d + split];
                         return va < vb || (va == vb && a < b);
                     });
    const std::int32_t left = build_node(begin, mid);
    const std::int32_t right = build_node(mid, end);
    nodes_[id].left = left;
    nodes_[id].right = right;
    return id;
}

double MaxNormKdTree::dist(std::int64_t slot, const double* q) const {
    const double* p = &pts_[static_cast<std::size_t>(slot) * d_];
    double m = std::fabs(q[0] - p[0]);
    for (int c = 1; c < d_; ++c) m = std::max(m, std::fabs(q[c] - p[c]));
    return m;
}

double MaxNormKdTree::min_dist(std::int32_t node, const double* q) const {
    const double* lo = &box_[static_cast<std::size_t>(node) * 2 * d_];
    const double* hi = lo + d_;
    double m = 0.0;
    for (int c = 0; c < d_; ++c) {
        if (q[c] < lo[c])
            m = std::max(m, lo[c] - q[c]);
        else if (q[c] > hi[c])
            m = std::max(m, q[c] - hi[c]);
    }
    return m;
}

double MaxNormKdTree::max_dist(std::int32_t node, const double* q) const {
    const double* lo = &box_[static_cast<std::size_t>(node) * 2 * d_];
    const double* hi = lo + d_;
    double m = 0.0;
    for (int c = 0; c < d_; ++c) m = std::max(m, std::max(std::fabs(q[c] - lo[c]), std::fabs(q[c] - hi[c])));
    return m;
}

template <class E, class Make, class Pruned>
void MaxNormKdTree::best_k(const double* q, std::int64_t k, std::vector<E>& heap, Make make, Pruned pruned) const {
    CUDAG_ASSERT(k >= 1 && k <= n_);
    heap.clear();
    const auto full = static_cast<std::size_t>(k);
    Pending stack[kMaxStack];
    int top = 0;
    stack[top++] = {0, 0.0};
    while (top > 0) {
        const Pending cur = stack[--top];
        if (heap.size() == full && pruned(cur.bound, heap.front())) continue;
        const Node& nd = nodes_[cur.node];
        if (nd.left >= 0) {
            push_children(nd, q, stack, top);
            continue;
        }
        for (std::int64_t s = nd.begin; s < nd.end; ++s) offer(heap, full, make(s));
    }
}

double MaxNormKdTree::kth_distance(const double* q, std::int64_t k, std::vector<double>& heap) const {
    best_k(
        q, k, heap, [&](std::int64_t s) { return dist(s, q); },
        [](double bound, double worst) { return bound >= worst; });
    return heap.front();
}

std::int64_t MaxNormKdTree::count_within(const double* q, double r) const {
    std::int64_t count = 0;
    std::int32_t stack[kMaxStack];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const std::int32_t id = stack[--top];
        const double lo = min_dist(id, q);
        if (lo > r) continue;
        const Node& nd = nodes_[id];
        const double hi = max_dist(id, q);
        if (hi <= r) {
            count += nd.end - nd.begin;
            continue;
        }
        if (nd.left < 0) {
            for (std::int64_t s = nd.begin; s < nd.end; ++s) {
                const double dd = dist(s, q);
                count += dd <= r ? 1 : 0;
            }
            continue;
        }
        stack[top++] = nd.right;
        stack[top++] = nd.left;
    }
    return count;
}

void MaxNormKdTree::nearest(const double* q, int k, std::uint64_t salt, std::int32_t* out,
                            std::vector<Near>& heap) const {
    auto make = [&](std::int64_t s) {
        const double* pt = &pts_[static_cast<std::size_t>(s) * d_];
        double l1 = 0.0;
        for (int c = 0; c < d_; ++c) l1 += std::fabs(q[c] - pt[c]);
        return Near{dist(s, q), l1, kd_tie_key(salt, ids_[s]), ids_[s]};
    };
    // Equal distances are ordered by their tie keys, so only a larger bound prunes.
    best_k(q, k, heap, make, [](double bound, const Near& worst) { return bound > worst.d; });
    std::sort_heap(heap.begin(), heap.end());
    for (int t = 0; t < k; ++t) out[t] = heap[static_cast<std::size_t>(t)].id;
}

}  // namespace cudag::ci
