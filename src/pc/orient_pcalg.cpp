// SPDX-License-Identifier: Apache-2.0
// PC's orientation with pcalg's semantics (udag2pdagRelaxed): colliders and Meek's rules
// 1-3 on threads, in pcalg's order wherever the order decides (see orient.cpp).
#include "pc/orient_detail.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::pc {
namespace {

// =============================================================================
// pcalg: udag2pdagRelaxed(skel, solve.confl = FALSE, orientCollider = TRUE,
// rules = c(TRUE, TRUE, TRUE)), as pc() calls it with u2pd = "relaxed".
//
// pcalg walks every candidate in a fixed order and each write can change what
// later candidates see. The passes below reach the same matrix without the
// quadratic scans: wherever the order cannot matter (the collider writes, Meek
// rule 1, the parts of rules 2 and 3 that read only edges the rule cannot
// write) the outcome of every candidate is computed up front, on threads, from
// adjacency lists and bit rows; the writes then happen in pcalg's order, and a
// candidate is looked at again only where an earlier write of the same pass
// touched one of its two nodes.
// =============================================================================

/// Bit j of a bit row.
bool bit(const std::uint64_t* row, std::int64_t j) { return (row[j >> 6] >> (j & 63)) & 1u; }

/// pcalg's pdag matrix restricted to skeleton edges, in CSR form. pcalg coding:
/// pdag[x,y] = 1, pdag[y,x] = 0 is x --> y; 1/1 is x --- y. Without solve.confl
/// every write sets one edge's two cells together, so 0/0 (and pcalg's 2 for
/// <->) never occurs, and each slot s of row i stores the edge's state as seen
/// from i (both cells of it); rev(s) is the slot of the reverse entry. Writes to
/// different edges may run on different threads.
class SparsePdag {
public:
    SparsePdag(const Graph& skeleton, int threads)
        : adj_(Adjacency::from_graph(skeleton, threads)), st_(adj_.nbrs.size(), kUndirected), rev_(adj_.nbrs.size()) {
        // Walking the rows in order meets the entries (i, j) of each row j in
        // increasing i, which is row j's own order: the reverse slots fill in turn.
        std::vector<std::int64_t> next(adj_.offsets.begin(), adj_.offsets.end() - 1);
        for (std::int64_t i = 0; i < adj_.n; ++i)
            for (std::int64_t s = adj_.offsets[i]; s < adj_.offsets[i + 1]; ++s) rev_[s] = next[adj_.nbrs[s]]++;
    }

    const Adjacency& adjacency() const { return adj_; }
    std::int64_t n() const { return adj_.n; }
    std::int64_t slots() const { return static_cast<std::int64_t>(st_.size()); }
    std::int64_t begin(std::int64_t i) const { return adj_.offsets[i]; }
    std::int64_t end(std::int64_t i) const { return adj_.offsets[i + 1]; }
    std::int64_t degree(std::int64_t i) const { return adj_.degree(i); }
    std::int32_t nbr(std::int64_t s) const { return adj_.nbrs[s]; }
    const std::int32_t* nbrs() const { return adj_.nbrs.data(); }
    std::int64_t rev(std::int64_t s) const { return rev_[s]; }

    /// For slot s of row i: i --> nbr(s), nbr(s) --> i, i --- nbr(s).
    bool away(std::int64_t s) const { return st_[s] == kAway; }
    bool toward(std::int64_t s) const { return st_[s] == kToward; }
    bool undirected(std::int64_t s) const { return st_[s] == kUndirected; }
    bool directed(std::int32_t i, std::int32_t j) const {  ///< i --> j
        const std::int64_t s = adj_.find(i, j);
        return s >= 0 && away(s);
    }
    /// pdag[i, nbr(s)] <- 1, pdag[nbr(s), i] <- 0: i --> nbr(s).
    void point_away(std::int64_t s) {
        st_[s] = kAway;
        st_[rev_[s]] = kToward;
    }
    /// nbr(s) --> i.
    void point_toward(std::int64_t s) {
        st_[s] = kToward;
        st_[rev_[s]] = kAway;
    }
    /// The whole matrix (one state per slot).
    const std::vector<std::uint8_t>& states() const { return st_; }

private:
    static constexpr std::uint8_t kUndirected = 0;
    static constexpr std::uint8_t kAway = 1;
    static constexpr std::uint8_t kToward = 2;
    Adjacency adj_;
    std::vector<std::uint8_t> st_;
    std::vector<std::int64_t> rev_;
};

/// SepSets::contains with the search for a pair kept within the records of its
/// lower node (located once per node by bisection, not by a scan of the table).
class SepIndex {
public:
    SepIndex(const SepSets& s, std::int64_t n, int threads)
        : keys_(s.keys()), offsets_(s.offsets()), nodes_(s.nodes()), first_(static_cast<std::size_t>(n + 1)) {
        parallel_for(0, n + 1, threads, 4096, [&](std::int64_t i, int) {
            const std::uint64_t k = SepSets::pack(static_cast<std::int32_t>(i), 0);
            first_[i] = std::lower_bound(keys_.begin(), keys_.end(), k) - keys_.begin();
        });
    }
    /// Whether k is in the separating set of i–j (no record: the empty set).
    bool contains(std::int32_t i, std::int32_t j, std::int32_t k) const {
        if (i > j) std::swap(i, j);
        const std::uint64_t key = SepSets::pack(i, j);
        const auto b = keys_.begin() + first_[i];
        const auto e = keys_.begin() + first_[i + 1];
        const auto it = std::lower_bound(b, e, key);
        if (it == e || *it != key) return false;
        const auto r = it - keys_.begin();
        return std::binary_search(nodes_.begin() + offsets_[r], nodes_.begin() + offsets_[r + 1], k);
    }

private:
    std::span<const std::uint64_t> keys_;
    std::span<const std::int64_t> offsets_;
    std::span<const std::int32_t> nodes_;
    std::vector<std::ptrdiff_t> first_;  ///< first record of each lower node
};

/// Some of a node's neighbours, increasing, as positions in its row; with a bit
/// row of the same set when the set is long.
struct NodeSet {
    const std::int32_t* nbrs = nullptr;  ///< SparsePdag::nbrs()
    std::int64_t row = 0;                ///< first slot of the node's row
    const std::int32_t* pos = nullptr;   ///< positions in the row, increasing
    std::int64_t size = 0;
    const std::uint64_t* bits = nullptr;  ///< the set as a bit row, or nullptr

    std::int64_t slot(std::int64_t k) const { return row + pos[k]; }
    std::int32_t node(std::int64_t k) const { return nbrs[slot(k)]; }
};

/// Every node's neighbours split by the edge's state when build() ran: children
/// (v --> c), parents (c --> v) and undirected (v --- c). A class with more
/// members than a bit row has words also gets a bit row, so the bit rows take
/// at most 8 bytes per adjacency entry.
class EdgeClasses {
public:
    enum Kind { kChild = 0, kParent = 1, kUndirected = 2 };

    void build(const SparsePdag& p, int threads) {
        p_ = &p;
        const std::int64_t n = p.n();
        words_ = (n + 63) / 64;
        pos_.resize(static_cast<std::size_t>(p.slots()));
        start_.resize(static_cast<std::size_t>(3 * n + 1));
        bits_at_.assign(static_cast<std::size_t>(3 * n), -1);
        parallel_for(0, n, threads, 64, [&](std::int64_t v, int) {
            const std::int64_t b = p.begin(v);
            std::int64_t count[3] = {0, 0, 0};
            for (std::int64_t s = b; s < p.end(v); ++s) ++count[kind_of(p, s)];
            std::int64_t at[3] = {b, b + count[0], b + count[0] + count[1]};
            for (int kind = 0; kind < 3; ++kind) start_[3 * v + kind] = at[kind];
            for (std::int64_t s = b; s < p.end(v); ++s) pos_[at[kind_of(p, s)]++] = static_cast<std::int32_t>(s - b);
        });
        start_[3 * n] = p.slots();
        std::int64_t pool = 0;
        for (std::int64_t c = 0; c < 3 * n; ++c)
            if (start_[c + 1] - start_[c] > words_) {
                bits_at_[c] = pool;
                pool += words_;
            }
        bits_.assign(static_cast<std::size_t>(pool), 0);
        parallel_for(0, 3 * n, threads, 256, [&](std::int64_t c, int) {
            if (bits_at_[c] < 0) return;
            std::uint64_t* row = bits_.data() + bits_at_[c];
            const NodeSet set = get(c / 3, static_cast<Kind>(c % 3));
            for (std::int64_t k = 0; k < set.size; ++k) {
                const std::int32_t j = set.node(k);
                row[j >> 6] |= std::uint64_t{1} << (j & 63);
            }
        });
    }

    NodeSet get(std::int64_t v, Kind kind) const {
        const std::int64_t c = 3 * v + kind;
        // The three classes of v tile v's row, so start_[c + 1] ends class c.
        const std::int64_t e = kind == kUndirected ? p_->end(v) : start_[c + 1];
        NodeSet s;
        s.nbrs = p_->nbrs();
        s.row = p_->begin(v);
        s.pos = pos_.data() + start_[c];
        s.size = e - start_[c];
        s.bits = bits_at_[c] < 0 ? nullptr : bits_.data() + bits_at_[c];
        return s;
    }
    std::int64_t words() const { return words_; }

private:
    static int kind_of(const SparsePdag& p, std::int64_t s) {
        return p.undirected(s) ? kUndirected : p.away(s) ? kChild : kParent;
    }

    const SparsePdag* p_ = nullptr;
    std::int64_t words_ = 0;
    std::vector<std::int32_t> pos_;      ///< per row: children, parents, undirected
    std::vector<std::int64_t> start_;    ///< 3 per node: where each class starts in pos_
    std::vector<std::int64_t> bits_at_;  ///< 3 per node: offset of the bit row, or -1
    std::vector<std::uint64_t> bits_;
};

/// Call f(c) for each c in both sets until f returns true; returns whether one did.
template <typename F>
bool find_common(const NodeSet& x, const NodeSet& y, std::int64_t words, F f) {
    if (x.bits && y.bits) {
        for (std::int64_t w = 0; w < words; ++w)
            for (std::uint64_t m = x.bits[w] & y.bits[w]; m; m &= m - 1)
                if (f(static_cast<std::int32_t>(w * 64 + std::countr_zero(m)))) return true;
        return false;
    }
    if (x.bits || y.bits) {
        const NodeSet& list = x.bits ? y : x;
        const std::uint64_t* other = x.bits ? x.bits : y.bits;
        for (std::int64_t k = 0; k < list.size; ++k)
            if (bit(other, list.node(k)) && f(list.node(k))) return true;
        return false;
    }
    for (std::int64_t i = 0, j = 0; i < x.size && j < y.size;) {
        const std::int32_t a = x.node(i);
        const std::int32_t b = y.node(j);
        if (a < b) {
            ++i;
        } else if (b < a) {
            ++j;
        } else {
            if (f(a)) return true;
            ++i;
            ++j;
        }
    }
    return false;
}

/// Whether two of `cs` are not adjacent, their triple through `a` not ambiguous.
bool has_nonadjacent_pair(const Graph& skel, const std::vector<std::int32_t>& cs, std::int32_t a,
                          const TripleFn& ambiguous) {
    for (std::size_t u = 0; u < cs.size(); ++u)
        for (std::size_t v = u + 1; v < cs.size(); ++v)
            if (!skel.has(cs[u], cs[v]) && !(ambiguous && ambiguous(cs[u], a, cs[v]))) return true;
    return false;
}

/// Whether some z makes a - y - z an unshielded triple with y in neither
/// separating set of a and z. Scans adj(y) \ adj(a) as a list or, for a node of
/// high degree, as bit words.
bool has_collider(const Graph& skel, const SparsePdag& p, const SepIndex& sep, std::int32_t y, std::int32_t a,
                  const TripleFn& ambiguous) {
    if (!skel.dense() || ambiguous) {  // a skeleton held sparse (large n): a search of a's row per z
        for (std::int64_t s = p.begin(y); s < p.end(y); ++s) {
            const std::int32_t z = p.nbr(s);
            if (z != a && !skel.has(a, z) && !sep.contains(a, z, y) && !(ambiguous && ambiguous(a, y, z))) return true;
        }
        return false;
    }
    const std::uint64_t* ra = skel.row(a);
    if (p.degree(y) <= skel.words_per_row()) {
        for (std::int64_t s = p.begin(y); s < p.end(y); ++s) {
            const std::int32_t z = p.nbr(s);
            if (z != a && !bit(ra, z) && !sep.contains(a, z, y)) return true;
        }
        return false;
    }
    const std::uint64_t* ry = skel.row(y);
    for (std::int64_t w = 0; w < skel.words_per_row(); ++w) {
        std::uint64_t m = ry[w] & ~ra[w];
        if (w == (a >> 6)) m &= ~(std::uint64_t{1} << (a & 63));
        for (; m; m &= m - 1)
            if (!sep.contains(a, static_cast<std::int32_t>(w * 64 + std::countr_zero(m)), y)) return true;
    }
    return false;
}

/// The collider step. pcalg takes each skeleton entry g[x, y] in column-major
/// order and each z in adj(y) \ {x} increasing: x - y - z unshielded with y in
/// neither sepset(x, z) nor sepset(z, x) => x -> y <- z, overwriting earlier
/// writes. Every write made while pcalg is at y points into y, and the writes
/// to an edge a - b (a < b) made at a all come before those made at b, so the
/// edge ends as a -> b if some collider has b in the middle and a at an end,
/// else as b -> a if some collider is the other way round, else undirected.
void pcalg_colliders(SparsePdag& p, const Graph& skel, const SepIndex& sep, std::vector<std::uint8_t>& flag,
                     int threads, const TripleFn& ambiguous) {
    // flag[s], s a slot of row y: some collider has y in the middle and nbr(s) at an end.
    parallel_for(0, p.n(), threads, 8, [&](std::int64_t y, int) {
        for (std::int64_t s = p.begin(y); s < p.end(y); ++s)
            flag[s] = has_collider(skel, p, sep, static_cast<std::int32_t>(y), p.nbr(s), ambiguous);
    });
    parallel_for(0, p.n(), threads, 64, [&](std::int64_t b, int) {
        for (std::int64_t s = p.begin(b); s < p.end(b) && p.nbr(s) < b; ++s) {
            if (flag[s])
                p.point_toward(s);
            else if (flag[p.rev(s)])
                p.point_away(s);
        }
    });
}

/// Rule 1: a -> b - c, a and c not adjacent => b -> c. pcalg lists the directed
/// edges (a, b) once, by b then a, and for each orients every b - c still
/// undirected. Only rows b and c write to b - c, so the smaller of the two that
/// has a qualifying parent decides it; that parent is looked for on threads.
bool pcalg_rule1(SparsePdag& p, const Graph& skel, const EdgeClasses& cls, std::vector<std::uint8_t>& flag, int threads,
                 const TripleFn& ambiguous) {
    // flag[s], s = b - c undirected: some parent a of b is not adjacent to c
    // (a != c: c is no parent of b), a - b - c not ambiguous.
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int) {
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k) {
            bool found = false;
            if (ambiguous) {
                const std::int32_t c = un.node(k), bb = static_cast<std::int32_t>(b);
                for (std::int64_t q = 0; q < pa.size && !found; ++q)
                    found = !skel.has(c, pa.node(q)) && !ambiguous(pa.node(q), bb, c);
                flag[un.slot(k)] = found;
                continue;
            }
            if (!skel.dense()) {
                for (std::int64_t q = 0; q < pa.size && !found; ++q) found = !skel.has(un.node(k), pa.node(q));
                flag[un.slot(k)] = found;
                continue;
            }
            const std::uint64_t* rc = skel.row(un.node(k));
            if (pa.bits) {
                for (std::int64_t w = 0; w < cls.words() && !found; ++w) found = (pa.bits[w] & ~rc[w]) != 0;
            } else {
                for (std::int64_t q = 0; q < pa.size && !found; ++q) found = !bit(rc, pa.node(q));
            }
            flag[un.slot(k)] = found;
        }
    });
    std::atomic<bool> wrote{false};
    parallel_for(0, p.n(), threads, 64, [&](std::int64_t b, int) {
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        bool any = false;
        for (std::int64_t k = 0; k < un.size; ++k) {
            const std::int64_t s = un.slot(k);
            if (un.node(k) < b) continue;
            if (flag[s])
                p.point_away(s);
            else if (flag[p.rev(s)])
                p.point_toward(s);
            any = any || flag[s] || flag[p.rev(s)];
        }
        if (any) wrote.store(true, std::memory_order_relaxed);
    });
    return wrote.load();
}

/// Whether c is in `set`.
bool contains(const NodeSet& set, std::int32_t c) {
    if (set.bits) return bit(set.bits, c);
    std::int64_t lo = 0, hi = set.size;
    while (lo < hi) {
        const std::int64_t mid = (lo + hi) / 2;
        if (set.node(mid) < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < set.size && set.node(lo) == c;
}

/// What rules 2 and 3 see of the edges they may write (those undirected at the
/// rule's start) while they walk their candidates. For the node b in hand:
/// whether c --> b now, in O(1), and the same as a bit row once needed. Per
/// node and direction: the edges the rule has written so far, as a list of
/// (other node, slot in this node's row) that may hold edges written again the
/// other way since (each use re-reads the edge), and, once the list is longer
/// than a bit row, also as an exact bit row; so each bit row stands for more
/// than `words` writes.
class RuleWrites {
public:
    explicit RuleWrites(std::int64_t n)
        : words_((n + 63) / 64),
          at_(static_cast<std::size_t>(n), kNone),
          out_(static_cast<std::size_t>(n)),
          in_(static_cast<std::size_t>(n)),
          parents_(static_cast<std::size_t>(words_)) {}

    /// Forget the writes of the previous rule.
    void reset() {
        for (auto* sides : {&out_, &in_})
            for (Side& side : *sides) {
                side.list.clear();
                side.bits = -1;
            }
        pool_.clear();
    }
    /// Make b the node that parent_now() answers for (cls as at the rule's start).
    void enter(const EdgeClasses& cls, std::int64_t b) {
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < pa.size; ++k) at_[pa.node(k)] = kParent;
        for (std::int64_t k = 0; k < un.size; ++k) at_[un.node(k)] = un.slot(k);
        entered_ = b;
        pa_ = pa;
        parents_ready_ = false;
    }
    void leave(const EdgeClasses& cls) {
        for (auto kind : {EdgeClasses::kParent, EdgeClasses::kUndirected}) {
            const NodeSet set = cls.get(entered_, kind);
            for (std::int64_t k = 0; k < set.size; ++k) at_[set.node(k)] = kNone;
        }
        if (parents_ready_) std::fill(parents_.begin(), parents_.end(), 0);
    }
    /// c --> b now, b the entered node.
    bool parent_now(const SparsePdag& p, std::int32_t c) const {
        const std::int64_t v = at_[c];
        return v == kParent || (v >= 0 && p.toward(v));
    }
    /// Record a --> b, just written at slot s of row b (b the entered node);
    /// `turned`: the edge was b --> a before.
    void wrote(const SparsePdag& p, std::int32_t a, std::int64_t b, std::int64_t s, bool turned) {
        if (turned) {
            clear(out_[b], a);
            clear(in_[a], static_cast<std::int32_t>(b));
        }
        add(p, out_[a], static_cast<std::int32_t>(b), p.rev(s), true);
        add(p, in_[b], a, s, false);
        if (parents_ready_) parents_[a >> 6] |= std::uint64_t{1} << (a & 63);
    }
    bool touched(std::int64_t v) const { return !out_[v].list.empty() || !in_[v].list.empty(); }

    /// Some c with a --> c written by this rule and c --> b now.
    bool written_child_is_parent(const SparsePdag& p, std::int32_t a) {
        const Side& o = out_[a];
        if (o.bits < 0) {
            for (const auto& [c, t] : o.list)
                if (p.away(t) && parent_now(p, c)) return true;
            return false;
        }
        if (!parents_ready_) {  // c --> b now, as a bit row
            if (pa_.bits) {
                std::copy(pa_.bits, pa_.bits + words_, parents_.begin());
            } else {
                for (std::int64_t k = 0; k < pa_.size; ++k)
                    parents_[pa_.node(k) >> 6] |= std::uint64_t{1} << (pa_.node(k) & 63);
            }
            for (const auto& [c, t] : in_[entered_].list)
                if (p.toward(t)) parents_[c >> 6] |= std::uint64_t{1} << (c & 63);
            parents_ready_ = true;
        }
        const std::uint64_t* ob = pool_.data() + o.bits;
        for (std::int64_t w = 0; w < words_; ++w)
            if (ob[w] & parents_[w]) return true;
        return false;
    }
    /// Some c with c --> b written by this rule (b the entered node) in `children`.
    bool written_parent_in(const SparsePdag& p, const NodeSet& children) const {
        const Side& i = in_[entered_];
        if (i.bits < 0) {
            for (const auto& [c, t] : i.list)
                if (p.toward(t) && contains(children, c)) return true;
            return false;
        }
        const std::uint64_t* ib = pool_.data() + i.bits;
        if (children.bits) {
            for (std::int64_t w = 0; w < words_; ++w)
                if (ib[w] & children.bits[w]) return true;
            return false;
        }
        for (std::int64_t k = 0; k < children.size; ++k)
            if (bit(ib, children.node(k))) return true;
        return false;
    }

private:
    struct Side {
        std::vector<std::pair<std::int32_t, std::int64_t>> list;
        std::int64_t bits = -1;  ///< offset of the exact bit row in pool_, or -1
    };
    void add(const SparsePdag& p, Side& side, std::int32_t c, std::int64_t slot, bool away) {
        side.list.emplace_back(c, slot);
        if (side.bits < 0 && static_cast<std::int64_t>(side.list.size()) > words_) {
            side.bits = static_cast<std::int64_t>(pool_.size());
            pool_.resize(pool_.size() + static_cast<std::size_t>(words_), 0);
            for (const auto& [d, t] : side.list)
                if (away ? p.away(t) : p.toward(t)) pool_[side.bits + (d >> 6)] |= std::uint64_t{1} << (d & 63);
        } else if (side.bits >= 0) {
            pool_[side.bits + (c >> 6)] |= std::uint64_t{1} << (c & 63);
        }
    }
    void clear(Side& side, std::int32_t c) {
        if (side.bits >= 0) pool_[side.bits + (c >> 6)] &= ~(std::uint64_t{1} << (c & 63));
    }

    static constexpr std::int64_t kNone = -1;
    static constexpr std::int64_t kParent = -2;
    std::int64_t words_;
    std::vector<std::int64_t> at_;
    std::int64_t entered_ = 0;
    NodeSet pa_;  ///< the entered node's parents at the rule's start
    std::vector<Side> out_;
    std::vector<Side> in_;
    std::vector<std::uint64_t> pool_;
    std::vector<std::uint64_t> parents_;  ///< c --> b now, once built for the entered b
    bool parents_ready_ = false;
};

/// The walk of rules 2 and 3 over pcalg's candidates, the edges undirected at
/// the rule's start both ways round, (a, b) by b then a: a -> b is written
/// wherever `hit(s, a, b)` says so (s: the slot of a in row b), in that order.
/// Returns whether anything was written.
template <typename Hit>
bool walk_candidates(SparsePdag& p, const EdgeClasses& cls, RuleWrites& writes, Hit hit) {
    writes.reset();
    bool wrote = false;
    for (std::int64_t b = 0; b < p.n(); ++b) {
        const NodeSet un_b = cls.get(b, EdgeClasses::kUndirected);
        if (un_b.size == 0) continue;
        writes.enter(cls, b);
        for (std::int64_t k = 0; k < un_b.size; ++k) {
            const std::int64_t s = un_b.slot(k);
            const std::int32_t a = un_b.node(k);
            if (!hit(s, a, b)) continue;
            const bool turned = p.away(s);
            p.point_toward(s);
            writes.wrote(p, a, b, s, turned);
            wrote = true;
        }
        writes.leave(cls);
    }
    return wrote;
}

/// Rule 2: a -> c -> b with a - b => a -> b. Pairs (a, b) are the undirected
/// edges at the start, both ways round, by b then a; the test reads the current
/// pdag and does not re-check that a - b is still undirected (pcalg does not
/// either). The rule writes only those edges, so whether a c joins a and b
/// through edges directed at the start is known up front; a c reached through
/// an edge the rule wrote is looked for among its writes at a and at b.
bool pcalg_rule2(SparsePdag& p, const EdgeClasses& cls, RuleWrites& writes, std::vector<std::uint8_t>& flag,
                 int threads) {
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int) {
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k)
            flag[un.slot(k)] = find_common(cls.get(un.node(k), EdgeClasses::kChild), pa, cls.words(),
                                           [](std::int32_t) { return true; });
    });
    return walk_candidates(p, cls, writes, [&](std::int64_t s, std::int32_t a, std::int64_t) {
        return flag[s] || writes.written_child_is_parent(p, a) ||
               writes.written_parent_in(p, cls.get(a, EdgeClasses::kChild));
    });
}

/// Rule 3: a - b, a - c1, a - c2, c1 -> b, c2 -> b, c1 and c2 not adjacent =>
/// a -> b. Same candidate list and re-check semantics as rule 2; until the
/// rule writes at a or b, the c's are the undirected neighbours of a that were
/// parents of b at the start.
bool pcalg_rule3(SparsePdag& p, const Graph& skel, const EdgeClasses& cls, RuleWrites& writes,
                 std::vector<std::uint8_t>& flag, int threads, const TripleFn& ambiguous) {
    std::vector<std::vector<std::int32_t>> scratch(static_cast<std::size_t>(std::max(1, threads)));
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int worker) {
        auto& cs = scratch[static_cast<std::size_t>(worker)];
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k) {
            cs.clear();
            find_common(cls.get(un.node(k), EdgeClasses::kUndirected), pa, cls.words(), [&cs](std::int32_t c) {
                cs.push_back(c);
                return false;
            });
            flag[un.slot(k)] = has_nonadjacent_pair(skel, cs, un.node(k), ambiguous);
        }
    });
    std::vector<std::int32_t> cs;
    return walk_candidates(p, cls, writes, [&](std::int64_t s, std::int32_t a, std::int64_t b) {
        if (!writes.touched(a) && !writes.touched(b)) return static_cast<bool>(flag[s]);
        cs.clear();
        const NodeSet un_a = cls.get(a, EdgeClasses::kUndirected);
        for (std::int64_t q = 0; q < un_a.size; ++q)
            if (p.undirected(un_a.slot(q)) && writes.parent_now(p, un_a.node(q))) cs.push_back(un_a.node(q));
        return has_nonadjacent_pair(skel, cs, a, ambiguous);
    });
}

}  // namespace

namespace detail {

Pdag orient_pcalg(const Graph& skel, const SepSets& sepsets, int threads, const TripleFn& ambiguous) {
    SparsePdag p(skel, threads);
    // Threads by the graph's size: the rules below are a dozen or more parallel loops, and on
    // a small graph (cuPC's example: 60 nodes, 180 entries) each would cost a team's wake-up
    // for microseconds of work. The outcome does not depend on the count.
    constexpr std::int64_t kItemsPerThread = 2048;
    threads = threads_for(p.n() + p.slots(), kItemsPerThread, threads);
    std::vector<std::uint8_t> flag(static_cast<std::size_t>(p.slots()));
    pcalg_colliders(p, skel, SepIndex(sepsets, p.n(), threads), flag, threads, ambiguous);
    // Meek rules 1-3 in pcalg's repeat loop: stop after a full pass that leaves
    // the matrix equal to what it was before the pass. Each rule reads the edge
    // classes as they are at its start, rebuilt only after a rule that wrote.
    EdgeClasses cls;
    RuleWrites writes(p.n());
    std::vector<std::uint8_t> before;
    bool stale = true;
    const auto run = [&](auto rule) {
        if (stale) cls.build(p, threads);
        stale = rule();
    };
    while (true) {
        before = p.states();
        run([&] { return pcalg_rule1(p, skel, cls, flag, threads, ambiguous); });
        run([&] { return pcalg_rule2(p, cls, writes, flag, threads); });
        run([&] { return pcalg_rule3(p, skel, cls, writes, flag, threads, ambiguous); });
        if (p.states() == before) break;
    }
    std::vector<Mark> marks(static_cast<std::size_t>(p.slots()));
    parallel_for(0, p.slots(), threads, 1 << 16,
                 [&](std::int64_t s, int) { marks[s] = p.toward(s) ? Mark::Arrow : Mark::Tail; });
    Pdag out(p.adjacency(), marks, threads);
    return out;
}

}  // namespace detail
}  // namespace cudag::pc
