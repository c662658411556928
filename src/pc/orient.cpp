// SPDX-License-Identifier: Apache-2.0
// Orientation phase of PC. Both families reproduce their peers' semantics (not
// their code): wherever the order of the candidates can decide the output
// (conflicting v-structures, rules that read their own writes) they are taken in
// the peer's order; what cannot depend on it is computed up front, on threads
// for pcalg. Comments name the peer function each part reproduces;
// tests/support/orient_reference.hpp is the plain version both are tested against.
#include "pc/orient.hpp"

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
        : adj_(Adjacency::from_graph(skeleton, threads)),
          st_(adj_.nbrs.size(), kUndirected),
          rev_(adj_.nbrs.size()) {
        // Walking the rows in order meets the entries (i, j) of each row j in
        // increasing i, which is row j's own order: the reverse slots fill in turn.
        std::vector<std::int64_t> next(adj_.offsets.begin(), adj_.offsets.end() - 1);
        for (std::int64_t i = 0; i < adj_.n; ++i)
            for (std::int64_t s = adj_.offsets[i]; s < adj_.offsets[i + 1]; ++s)
                rev_[s] = next[adj_.nbrs[s]]++;
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
        : keys_(s.keys()),
          offsets_(s.offsets()),
          nodes_(s.nodes()),
          first_(static_cast<std::size_t>(n + 1)) {
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
        return std::binary_search(nodes_.begin() + offsets_[r], nodes_.begin() + offsets_[r + 1],
                                  k);
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
            for (std::int64_t s = b; s < p.end(v); ++s)
                pos_[at[kind_of(p, s)]++] = static_cast<std::int32_t>(s - b);
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

/// Whether two of `cs` are not adjacent.
bool has_nonadjacent_pair(const Graph& skel, const std::vector<std::int32_t>& cs) {
    for (std::size_t u = 0; u < cs.size(); ++u)
        for (std::size_t v = u + 1; v < cs.size(); ++v)
            if (!skel.has(cs[u], cs[v])) return true;
    return false;
}

/// Whether some z makes a - y - z an unshielded triple with y in neither
/// separating set of a and z. Scans adj(y) \ adj(a) as a list or, for a node of
/// high degree, as bit words.
bool has_collider(const Graph& skel, const SparsePdag& p, const SepIndex& sep, std::int32_t y,
                  std::int32_t a) {
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
            if (!sep.contains(a, static_cast<std::int32_t>(w * 64 + std::countr_zero(m)), y))
                return true;
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
void pcalg_colliders(SparsePdag& p, const Graph& skel, const SepIndex& sep,
                     std::vector<std::uint8_t>& flag, int threads) {
    // flag[s], s a slot of row y: some collider has y in the middle and nbr(s) at an end.
    parallel_for(0, p.n(), threads, 8, [&](std::int64_t y, int) {
        for (std::int64_t s = p.begin(y); s < p.end(y); ++s)
            flag[s] = has_collider(skel, p, sep, static_cast<std::int32_t>(y), p.nbr(s));
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
bool pcalg_rule1(SparsePdag& p, const Graph& skel, const EdgeClasses& cls,
                 std::vector<std::uint8_t>& flag, int threads) {
    // flag[s], s = b - c undirected: some parent a of b is not adjacent to c
    // (a != c: c is no parent of b).
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int) {
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k) {
            const std::uint64_t* rc = skel.row(un.node(k));
            bool found = false;
            if (pa.bits) {
                for (std::int64_t w = 0; w < cls.words() && !found; ++w)
                    found = (pa.bits[w] & ~rc[w]) != 0;
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
                if (away ? p.away(t) : p.toward(t))
                    pool_[side.bits + (d >> 6)] |= std::uint64_t{1} << (d & 63);
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
bool pcalg_rule2(SparsePdag& p, const EdgeClasses& cls, RuleWrites& writes,
                 std::vector<std::uint8_t>& flag, int threads) {
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int) {
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k)
            flag[un.slot(k)] = find_common(cls.get(un.node(k), EdgeClasses::kChild), pa,
                                           cls.words(), [](std::int32_t) { return true; });
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
                 std::vector<std::uint8_t>& flag, int threads) {
    std::vector<std::vector<std::int32_t>> scratch(static_cast<std::size_t>(std::max(1, threads)));
    parallel_for(0, p.n(), threads, 16, [&](std::int64_t b, int worker) {
        auto& cs = scratch[static_cast<std::size_t>(worker)];
        const NodeSet pa = cls.get(b, EdgeClasses::kParent);
        const NodeSet un = cls.get(b, EdgeClasses::kUndirected);
        for (std::int64_t k = 0; k < un.size; ++k) {
            cs.clear();
            find_common(cls.get(un.node(k), EdgeClasses::kUndirected), pa, cls.words(),
                        [&cs](std::int32_t c) {
                            cs.push_back(c);
                            return false;
                        });
            flag[un.slot(k)] = has_nonadjacent_pair(skel, cs);
        }
    });
    std::vector<std::int32_t> cs;
    return walk_candidates(p, cls, writes, [&](std::int64_t s, std::int32_t a, std::int64_t b) {
        if (!writes.touched(a) && !writes.touched(b)) return static_cast<bool>(flag[s]);
        cs.clear();
        const NodeSet un_a = cls.get(a, EdgeClasses::kUndirected);
        for (std::int64_t q = 0; q < un_a.size; ++q)
            if (p.undirected(un_a.slot(q)) && writes.parent_now(p, un_a.node(q)))
                cs.push_back(un_a.node(q));
        return has_nonadjacent_pair(skel, cs);
    });
}

Pdag orient_pcalg(const Graph& skel, const SepSets& sepsets, int threads) {
    SparsePdag p(skel, threads);
    std::vector<std::uint8_t> flag(static_cast<std::size_t>(p.slots()));
    pcalg_colliders(p, skel, SepIndex(sepsets, p.n(), threads), flag, threads);
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
        run([&] { return pcalg_rule1(p, skel, cls, flag, threads); });
        run([&] { return pcalg_rule2(p, cls, writes, flag, threads); });
        run([&] { return pcalg_rule3(p, skel, cls, writes, flag, threads); });
        if (p.states() == before) break;
    }
    std::vector<Mark> marks(static_cast<std::size_t>(p.slots()));
    parallel_for(0, p.slots(), threads, 1 << 16,
                 [&](std::int64_t s, int) { marks[s] = p.toward(s) ? Mark::Arrow : Mark::Tail; });
    Pdag out(p.adjacency(), marks, threads);
    return out;
}

// =============================================================================
// causal-learn: UCSepset.uc_sepset / maxp / definite_maxp, Meek.meek /
// definite_meek, on the semantics of GeneralGraph (graph + dpath matrices).
// =============================================================================

constexpr std::int8_t kTail = -1;
constexpr std::int8_t kArrow = 1;

/// causal-learn's CausalGraph.G restricted to what PC produces: graph[i, j] is
/// the endpoint at i of edge i-j (-1 tail, 1 arrow, 0 none); dpath[j, i] = 1
/// means GeneralGraph believes i is an ancestor of j. dpath is maintained as
/// causal-learn does it: adjust_dpath on each added directed edge (not a full
/// transitive closure) and reconstitute_dpath, edges taken in reverse
/// get_graph_edges order, whenever a directed edge is removed. dpath is kept as
/// two bit matrices, by rows and by columns, so that both of adjust_dpath's
/// updates (a row OR and a column OR) cost n/64 words plus the bits they set.
///
/// The rebuild is deferred to the next ancestor query (PC's collider phases
/// remove many directed edges and query none): after a removal the directed
/// edges added since are queued, and the rebuild replays causal-learn's
/// history exactly: reconstitute over the directed edges that existed at the
/// removal (today's minus the queued ones; any later change to one of them
/// would have been a removal of a directed edge, starting a new rebuild), then
/// adjust_dpath for each queued edge in order.
class ClGraph {
public:
    explicit ClGraph(const Graph& skel)
        : n_(skel.n()),
          words_((n_ + 63) / 64),
          g_(static_cast<std::size_t>(n_ * n_), 0),
          nbrs_(static_cast<std::size_t>(n_)),
          rows_(static_cast<std::size_t>(n_ * words_), 0),
          cols_(static_cast<std::size_t>(n_ * words_), 0) {
        for (std::int64_t i = 0; i < n_; ++i) {
            nbrs_[i] = skel.neighbours(i);
            for (std::int32_t j : nbrs_[i]) g_[i * n_ + j] = kTail;
        }
        reset_dpath();
    }

    std::int64_t n() const { return n_; }
    std::int8_t at(std::int64_t i, std::int64_t j) const { return g_[i * n_ + j]; }
    bool adjacent(std::int64_t i, std::int64_t j) const { return at(i, j) != 0; }
    bool is_undirected(std::int64_t i, std::int64_t j) const {
        return at(i, j) == kTail && at(j, i) == kTail;
    }
    bool is_fully_directed(std::int64_t i, std::int64_t j) const {  ///< i --> j
        return at(i, j) == kTail && at(j, i) == kArrow;
    }
    /// GeneralGraph.is_ancestor_of(a, b): dpath[b, a].
    bool is_ancestor_of(std::int64_t a, std::int64_t b) {
        refresh_dpath();
        return (rows_[b * words_ + (a >> 6)] >> (a & 63)) & 1u;
    }

    /// GeneralGraph.remove_edge(get_edge(i, j)) on an adjacent pair. Removing a
    /// directed edge rebuilds dpath from the remaining edges.
    void remove_edge(std::int64_t i, std::int64_t j) {
        const bool was_directed = is_fully_directed(i, j) || is_fully_directed(j, i);
        g_[i * n_ + j] = 0;
        g_[j * n_ + i] = 0;
        if (was_directed) {
            stale_ = true;
            queued_.clear();
        }
    }
    /// GeneralGraph.add_edge(Edge(i, j, TAIL, ARROW)): a no-op where an edge other
    /// than <-> already joins i and j, as in causal-learn.
    void add_directed(std::int64_t i, std::int64_t j) {
        if (adjacent(i, j) || adjacent(j, i)) {
            // causal-learn would store TAIL_AND_ARROW / ARROW_AND_ARROW here; PC's
            // rules never add onto an existing <->.
            CUDAG_ASSERT(!(at(i, j) == kArrow && at(j, i) == kArrow));
            return;
        }
        g_[i * n_ + j] = kTail;
        g_[j * n_ + i] = kArrow;
        if (stale_)
            queued_.emplace_back(i, j);
        else
            adjust_dpath(i, j);
    }
    /// GeneralGraph.add_edge(Edge(i, j, ARROW, ARROW)) on a non-adjacent pair.
    void add_bidirected(std::int64_t i, std::int64_t j) {
        CUDAG_ASSERT(!adjacent(i, j) && !adjacent(j, i));
        g_[i * n_ + j] = kArrow;
        g_[j * n_ + i] = kArrow;
    }
    /// get_edge(i, j); remove it if present; add i --> j.
    void replace_with_directed(std::int64_t i, std::int64_t j) {
        if (adjacent(i, j)) remove_edge(i, j);
        add_directed(i, j);
    }

    /// CausalGraph.neighbors(i): nodes with a non-zero mark in row i, increasing.
    /// Every removal above is followed by an add, so these are the skeleton's.
    const std::vector<std::int32_t>& neighbours(std::int64_t i) const { return nbrs_[i]; }

    Pdag to_pdag() const {
        Pdag p{Graph(n_)};
        for (std::int64_t i = 0; i < n_; ++i)
            for (std::int32_t j : nbrs_[i])
                if (j > i)
                    p.set(static_cast<std::int32_t>(i), j, static_cast<Mark>(at(i, j)),
                          static_cast<Mark>(at(j, i)));
        return p;
    }

private:
    /// dpath[a, b] <- 1, keeping both bit matrices in step.
    void set_dpath(std::int64_t a, std::int64_t b) {
        rows_[a * words_ + (b >> 6)] |= std::uint64_t{1} << (b & 63);
        cols_[b * words_ + (a >> 6)] |= std::uint64_t{1} << (a & 63);
    }
    /// dst |= src over one bit row; calls on_new(k) for each bit k newly set.
    template <typename OnNew>
    void or_into(std::uint64_t* dst, const std::uint64_t* src, OnNew on_new) {
        for (std::int64_t w = 0; w < words_; ++w) {
            std::uint64_t fresh = src[w] & ~dst[w];
            dst[w] |= fresh;
            while (fresh) {
                on_new(w * 64 + std::countr_zero(fresh));
                fresh &= fresh - 1;
            }
        }
    }
    /// GeneralGraph.adjust_dpath(i, j) after adding i --> j: dpath[j, i] = 1;
    /// dpath[j, k] |= dpath[i, k] (j gets i's recorded ancestors); dpath[k, i] |=
    /// dpath[k, j] (whatever records j as an ancestor gets i). causal-learn does
    /// both in one loop over k; with dpath's diagonal set the two never read a
    /// cell the other wrote, so doing them one after the other is the same.
    void adjust_dpath(std::int64_t i, std::int64_t j) {
        set_dpath(j, i);
        or_into(&rows_[j * words_], &rows_[i * words_], [&](std::int64_t k) {
            cols_[k * words_ + (j >> 6)] |= std::uint64_t{1} << (j & 63);
        });
        or_into(&cols_[i * words_], &cols_[j * words_], [&](std::int64_t k) {
            rows_[k * words_ + (i >> 6)] |= std::uint64_t{1} << (i & 63);
        });
    }
    void reset_dpath() {
        std::fill(rows_.begin(), rows_.end(), 0);
        std::fill(cols_.begin(), cols_.end(), 0);
        for (std::int64_t i = 0; i < n_; ++i) set_dpath(i, i);
    }
    /// GeneralGraph.reconstitute_dpath(get_graph_edges()) as of the last removal
    /// of a directed edge: identity, then the directed edges popped from the end
    /// of the (i < j, row-major) edge list; then the queued additions.
    void refresh_dpath() {
        if (!stale_) return;
        std::set<std::pair<std::int64_t, std::int64_t>> added;
        for (auto [i, j] : queued_) added.insert(std::minmax(i, j));
        reset_dpath();
        for (std::int64_t i = n_ - 1; i >= 0; --i) {
            const auto& nb = nbrs_[i];
            for (auto it = nb.rbegin(); it != nb.rend() && *it > i; ++it) {
                if (added.count({i, *it})) continue;
                if (is_fully_directed(i, *it))
                    adjust_dpath(i, *it);
                else if (is_fully_directed(*it, i))
                    adjust_dpath(*it, i);
            }
        }
        for (auto [i, j] : queued_) adjust_dpath(i, j);
        queued_.clear();
        stale_ = false;
    }

    std::int64_t n_;
    std::int64_t words_;
    std::vector<std::int8_t> g_;
    std::vector<std::vector<std::int32_t>> nbrs_;
    std::vector<std::uint64_t> rows_;  ///< bit b of row a: dpath[a, b]
    std::vector<std::uint64_t> cols_;  ///< bit a of row b: dpath[a, b]
    bool stale_ = false;               ///< a directed edge was removed since dpath was last rebuilt
    std::vector<std::pair<std::int64_t, std::int64_t>> queued_;  ///< i --> j added since
};

using Pair = std::pair<std::int32_t, std::int32_t>;
using Triple = std::array<std::int32_t, 3>;

/// CausalGraph.find_adj(): find_tails() + find_arrow_heads(), each np.where over
/// the matrix in row-major order, an entry graph[r, c] listed as (c, r); with,
/// per node x, the nodes y of the entries (x, y) in list order. causal-learn's
/// triple lists are the pairs of entries in permutations(find_adj(), 2) order;
/// they are walked here from this snapshot instead of being stored (an
/// unshielded triple or a triangle is one of a node's neighbour pairs, and the
/// lists of a dense graph outgrow memory long before the graph does).
class AdjList {
public:
    explicit AdjList(const ClGraph& g) : offsets_(static_cast<std::size_t>(g.n() + 1), 0) {
        for (std::int8_t mark : {kTail, kArrow})
            for (std::int64_t r = 0; r < g.n(); ++r)
                for (std::int32_t c : g.neighbours(r))  // the only non-zero cells of row r
                    if (g.at(r, c) == mark) adj_.emplace_back(c, static_cast<std::int32_t>(r));
        for (const auto& e : adj_) ++offsets_[e.first + 1];
        for (std::size_t x = 1; x < offsets_.size(); ++x) offsets_[x] += offsets_[x - 1];
        seconds_.resize(adj_.size());
        std::vector<std::int64_t> at(offsets_.begin(), offsets_.end() - 1);
        for (const auto& e : adj_) seconds_[at[e.first]++] = e.second;
    }

    /// The y of the entries (x, y), in list order.
    std::span<const std::int32_t> seconds(std::int32_t x) const {
        return {seconds_.data() + offsets_[x],
                static_cast<std::size_t>(offsets_[x + 1] - offsets_[x])};
    }
    /// f(a0, a1, b1) for each pair of entries (a0, a1), (a1, b1) in
    /// permutations() order with a0 != b1 that `keep(a0, b1)` accepts.
    template <typename Keep, typename F>
    void for_each_path(Keep keep, F f) const {
        for (const auto& [a0, a1] : adj_)
            for (std::int32_t b1 : seconds(a1))
                if (b1 != a0 && keep(a0, b1)) f(a0, a1, b1);
    }
    /// CausalGraph.find_unshielded_triples(), in order.
    template <typename F>
    void for_each_unshielded(const ClGraph& g, F f) const {
        for_each_path([&g](std::int32_t a, std::int32_t c) { return !g.adjacent(a, c); }, f);
    }
    /// CausalGraph.find_triangles(), in order: (a0, b1) must be in find_adj(),
    /// i.e. a0 and b1 adjacent.
    template <typename F>
    void for_each_triangle(const ClGraph& g, F f) const {
        for_each_path([&g](std::int32_t a, std::int32_t c) { return g.adjacent(c, a); }, f);
    }

private:
    std::vector<Pair> adj_;
    std::vector<std::int64_t> offsets_;
    std::vector<std::int32_t> seconds_;
};

/// ci_test(x, z, S) with the p-values of one orient() call cached per (x, z, S).
class PValueCache {
public:
    explicit PValueCache(const PValueFn& fn) : fn_(fn) {}
    double operator()(std::int32_t x, std::int32_t z, const std::vector<std::int32_t>& s) {
        if (x > z) std::swap(x, z);
        auto& per_pair = cache_[{x, z}];
        auto it = per_pair.find(s);
        if (it != per_pair.end()) return it->second;
        const double p = fn_(x, z, s);
        per_pair.emplace(s, p);
        return p;
    }

private:
    const PValueFn& fn_;
    std::map<Pair, std::map<std::vector<std::int32_t>, double>> cache_;
};

/// CausalGraph.find_cond_sets(x, z) = powerset(adj(x)) ∪ powerset(adj(z)), each
/// set sorted, each once; `visit(S, y in S)` is called per set until it returns
/// false. causal-learn's order is a Python set's; every caller below only needs
/// maxima and existence, which do not depend on it.
template <typename Visit>
void for_each_cond_set(const ClGraph& g, std::int32_t x, std::int32_t z, std::int32_t y,
                       Visit visit) {
    const auto& nx = g.neighbours(x);
    const auto& nz = g.neighbours(z);
    constexpr std::size_t kMaxDegree = 30;
    CUDAG_EXPECTS(nx.size() <= kMaxDegree && nz.size() <= kMaxDegree,
                  "maxP-type collider rules enumerate every subset of adj(x) and adj(z); node " +
                      std::to_string(nx.size() > kMaxDegree ? x : z) + " has degree above " +
                      std::to_string(kMaxDegree));
    std::vector<std::int32_t> s;
    // Subsets of adj(x), then the subsets of adj(z) not already seen (those with
    // an element outside adj(x)).
    for (int side = 0; side < 2; ++side) {
        const auto& base = side == 0 ? nx : nz;
        const std::uint64_t count = std::uint64_t{1} << base.size();
        for (std::uint64_t mask = 0; mask < count; ++mask) {
            s.clear();
            bool outside_x = false;
            bool has_y = false;
            for (std::size_t b = 0; b < base.size(); ++b) {
                if (!((mask >> b) & 1u)) continue;
                s.push_back(base[b]);
                has_y = has_y || base[b] == y;
                outside_x = outside_x || !std::binary_search(nx.begin(), nx.end(), base[b]);
            }
            if (side == 1 && !outside_x) continue;
            if (!visit(s, has_y)) return;
        }
    }
}

/// max p over the conditioning sets that contain y (with_y) or do not.
double max_p(const ClGraph& g, PValueCache& pv, const Triple& t, bool with_y) {
    double best = -std::numeric_limits<double>::infinity();
    for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
        if (has_y == with_y) best = std::max(best, pv(t[0], t[2], s));
        return true;
    });
    return best;
}

/// f(t) for the unshielded triples t with x < z, in order (causal-learn skips
/// the mirror triples). The list is the one of the graph as it is now, even if
/// f changes the graph.
template <typename F>
void for_each_forward_triple(const ClGraph& g, F f) {
    AdjList(g).for_each_unshielded(g, [&f](std::int32_t x, std::int32_t y, std::int32_t z) {
        if (x < z) f(Triple{x, y, z});
    });
}

/// Priority 0 ("overwrite") and the collider step of priorities 2-4: x -> y <- z
/// whatever was there.
void orient_collider(ClGraph& g, const Triple& t) {
    g.replace_with_directed(t[0], t[1]);
    g.replace_with_directed(t[2], t[1]);
}

/// Priority 1: an undirected edge becomes a -> y, an edge y -> a becomes a <-> y,
/// anything else stays.
void orient_collider_bidirected(ClGraph& g, const Triple& t) {
    for (std::int32_t a : {t[0], t[2]}) {
        const std::int32_t y = t[1];
        if (!g.adjacent(a, y)) {
            g.add_directed(a, y);
        } else if (g.is_undirected(a, y)) {
            g.remove_edge(a, y);
            g.add_directed(a, y);
        } else if (g.at(a, y) == kArrow && g.at(y, a) == kTail) {
            g.remove_edge(a, y);
            g.add_bidirected(a, y);
        }
    }
}

/// Priorities 2-4: orient only if neither edge already points away from y.
bool orient_collider_if_free(ClGraph& g, const Triple& t) {
    if (g.is_fully_directed(t[1], t[0]) || g.is_fully_directed(t[1], t[2])) return false;
    orient_collider(g, t);
    return true;
}

/// Apply priority 0-2 to one collider as soon as it is found.
void orient_now(ClGraph& g, const Triple& t, int priority) {
    if (priority == 0)
        orient_collider(g, t);
    else if (priority == 1)
        orient_collider_bidirected(g, t);
    else
        orient_collider_if_free(g, t);
}

/// sort_dict_ascending(UC_dict, descending): Python's stable sort by value;
/// with reverse=True equal values also keep their insertion order.
std::vector<Triple> sort_by_value(std::vector<std::pair<Triple, double>> dict, bool descending) {
    std::stable_sort(dict.begin(), dict.end(), [descending](const auto& a, const auto& b) {
        return descending ? a.second > b.second : a.second < b.second;
    });
    std::vector<Triple> out;
    out.reserve(dict.size());
    for (const auto& e : dict) out.push_back(e.first);
    return out;
}

/// UCSepset.uc_sepset.
void cl_uc_sepset(ClGraph& g, const SepSets& sepsets, int priority, PValueCache& pv) {
    std::vector<Triple> r0;
    for_each_forward_triple(g, [&](const Triple& t) {
        if (sepsets.contains(t[0], t[2], t[1])) return;
        if (priority <= 2)
            orient_now(g, t, priority);
        else
            r0.push_back(t);
    });
    if (priority <= 2) return;
    std::vector<std::pair<Triple, double>> dict;
    for (const Triple& t : r0) dict.emplace_back(t, max_p(g, pv, t, priority == 3));
    for (const Triple& t : sort_by_value(std::move(dict), priority == 4))
        orient_collider_if_free(g, t);
}

/// UCSepset.maxp.
void cl_maxp(ClGraph& g, int priority, PValueCache& pv) {
    std::vector<std::pair<Triple, double>> dict;
    for_each_forward_triple(g, [&](const Triple& t) {
        const double with_y = max_p(g, pv, t, true);
        const double without_y = max_p(g, pv, t, false);
        if (!(without_y > with_y)) return;
        if (priority <= 2)
            orient_now(g, t, priority);
        else
            dict.emplace_back(t, priority == 3 ? with_y : without_y);
    });
    if (priority <= 2) return;
    for (const Triple& t : sort_by_value(std::move(dict), priority == 4))
        orient_collider_if_free(g, t);
}

/// What definite_maxp records for definite_meek.
struct DefiniteTriples {
    std::set<Triple> uc;          ///< definite_UC (membership only is used)
    std::vector<Triple> non_uc;   ///< definite_non_UC, in discovery order
    std::set<Triple> non_uc_set;  ///< the same, for membership tests
};

/// UCSepset.definite_maxp.
DefiniteTriples cl_definite_maxp(ClGraph& g, int priority, PValueCache& pv, double alpha,
                                 bool strict) {
    const auto independent = [alpha, strict](double p) { return strict ? p > alpha : p >= alpha; };
    DefiniteTriples d;
    std::vector<std::pair<Triple, double>> dict;
    for_each_forward_triple(g, [&](const Triple& t) {
        // uc: no set containing y separates x and z; nuc: no set without y does.
        // The maxima start at 0 as in causal-learn; they are used only when the
        // corresponding loop ran to the end, so the set order does not matter.
        bool uc = true;
        double max_with = 0.0;
        for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
            if (!has_y) return true;
            const double p = pv(t[0], t[2], s);
            if (independent(p)) {
                uc = false;
                return false;
            }
            max_with = std::max(max_with, p);
            return true;
        });
        bool nuc = true;
        double max_without = 0.0;
        for_each_cond_set(g, t[0], t[2], t[1], [&](const std::vector<std::int32_t>& s, bool has_y) {
            if (has_y) return true;
            const double p = pv(t[0], t[2], s);
            if (independent(p)) {
                nuc = false;
                if (!uc) return false;  // ambiguous triple
            }
            max_without = std::max(max_without, p);
            return true;
        });
        const double key = priority == 4 ? max_without : max_with;
        if (uc && (!nuc || max_without > max_with)) {
            dict.emplace_back(t, key);
        } else if (uc || nuc) {
            d.non_uc.push_back(t);
        }
    });
    std::vector<Triple> order;
    if (priority == 2) {
        for (const auto& e : dict) order.push_back(e.first);
    } else {
        order = sort_by_value(std::move(dict), priority == 4);
    }
    for (const Triple& t : order)
        if (orient_collider_if_free(g, t)) d.uc.insert(t);
    d.non_uc_set.insert(d.non_uc.begin(), d.non_uc.end());
    return d;
}

/// Meek's step "orient a -> b unless b is recorded as an ancestor of a".
/// Returns whether it oriented (causal-learn's `continue` otherwise).
bool meek_orient(ClGraph& g, std::int32_t a, std::int32_t b) {
    if (g.is_ancestor_of(b, a)) return false;
    g.remove_edge(a, b);
    g.add_directed(a, b);
    return true;
}

/// Meek.meek: rules 1-3 over the triples, triangles and kites listed once at the
/// start, repeated until a pass orients nothing. A kite (i, j, k, l) is a pair of
/// triangles (i, j, l), (i, k, l) in that order with j < k not adjacent; the
/// kites of one triangle (i, j, l) all orient i -> l, so after the first one
/// that does (or, l being recorded as an ancestor of i, would) the others change
/// nothing: the walk looks for that one only, among the triangle's kites whose
/// other edges qualify.
void cl_meek(ClGraph& g) {
    const AdjList adj(g);
    for (bool loop = true; loop;) {
        loop = false;
        adj.for_each_unshielded(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_undirected(j, k)) loop |= meek_orient(g, j, k);
        });
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                loop |= meek_orient(g, i, k);
        });
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t l) {
            if (!(g.is_undirected(i, j) && g.is_fully_directed(j, l) && g.is_undirected(i, l)))
                return;
            for (std::int32_t k : adj.seconds(i))
                if (k > j && g.is_undirected(i, k) && g.is_fully_directed(k, l) &&
                    !g.adjacent(j, k)) {
                    loop |= meek_orient(g, i, l);
                    return;
                }
        });
    }
}

/// Meek.definite_meek: rule 1 over the definite non-colliders (both ways
/// round), rule 2 over the triangles, rule 3 over kites whose colliders and
/// non-colliders are definite (one kite per triangle, as in cl_meek()).
void cl_definite_meek(ClGraph& g, const DefiniteTriples& d) {
    const AdjList adj(g);
    // The definite colliders (j, l, k) both ways round, sorted: those of (j, l)
    // are one range.
    std::vector<Triple> uc;
    for (const Triple& t : d.uc) {
        uc.push_back(t);
        uc.push_back({t[2], t[1], t[0]});
    }
    std::sort(uc.begin(), uc.end());
    const auto non_uc = [&d](std::int32_t a, std::int32_t b, std::int32_t c) {
        return d.non_uc_set.count({a, b, c}) != 0 || d.non_uc_set.count({c, b, a}) != 0;
    };
    for (bool loop = true; loop;) {
        loop = false;
        for (const auto& [i, j, k] : d.non_uc) {
            if (g.is_fully_directed(i, j) && g.is_undirected(j, k))
                loop |= meek_orient(g, j, k);
            else if (g.is_fully_directed(k, j) && g.is_undirected(j, i))
                loop |= meek_orient(g, j, i);
        }
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t k) {
            if (g.is_fully_directed(i, j) && g.is_fully_directed(j, k) && g.is_undirected(i, k))
                loop |= meek_orient(g, i, k);
        });
        if (uc.empty()) continue;
        adj.for_each_triangle(g, [&](std::int32_t i, std::int32_t j, std::int32_t l) {
            if (!g.is_undirected(i, l)) return;
            const Triple lo{j, l, std::numeric_limits<std::int32_t>::min()};
            for (auto it = std::lower_bound(uc.begin(), uc.end(), lo);
                 it != uc.end() && (*it)[0] == j && (*it)[1] == l; ++it) {
                const std::int32_t k = (*it)[2];
                if (k > j && g.adjacent(i, k) && g.adjacent(k, l) && !g.adjacent(j, k) &&
                    non_uc(j, i, k)) {
                    loop |= meek_orient(g, i, l);
                    return;
                }
            }
        });
    }
}

Pdag orient_causal_learn(const Graph& skel, const SepSets& sepsets, const OrientOptions& opt,
                         const PValueFn& pvalue) {
    int priority = opt.uc_priority;
    if (priority == -1) priority = opt.rule == UcRule::DefiniteMaxP ? 4 : 3;
    const bool needs_p = opt.rule != UcRule::Sepset || priority >= 3;
    CUDAG_EXPECTS(!needs_p || static_cast<bool>(pvalue),
                  "orientation rule needs p-values but no p-value function was given");
    ClGraph g(skel);
    PValueCache pv(pvalue);
    switch (opt.rule) {
        case UcRule::Sepset:
            cl_uc_sepset(g, sepsets, priority, pv);
            cl_meek(g);
            break;
        case UcRule::MaxP:
            cl_maxp(g, priority, pv);
            cl_meek(g);
            break;
        case UcRule::DefiniteMaxP: {
            CUDAG_EXPECTS(priority >= 2,
                          "uc_priority must be -1, 2, 3 or 4 for definiteMaxP, got " +
                              std::to_string(opt.uc_priority));
            CUDAG_EXPECTS(
                opt.alpha >= 0.0 && opt.alpha < 1.0,
                "alpha must lie in [0, 1) for definiteMaxP, got " + std::to_string(opt.alpha));
            const auto d = cl_definite_maxp(g, priority, pv, opt.alpha, opt.independence_strict);
            cl_definite_meek(g, d);
            cl_meek(g);
            break;
        }
        case UcRule::Pcalg:
            break;
    }
    return g.to_pdag();
}

}  // namespace

Pdag orient(const Graph& skeleton, const SepSets& sepsets, const OrientOptions& opt,
            const PValueFn& pvalue) {
    CUDAG_EXPECTS(skeleton.n() <= std::numeric_limits<std::int32_t>::max(),
                  "orientation supports at most 2^31 - 1 variables");
    switch (opt.rule) {
        case UcRule::Pcalg:
            return orient_pcalg(skeleton, sepsets, resolve_threads(opt.threads));
        case UcRule::Sepset:
        case UcRule::MaxP:
        case UcRule::DefiniteMaxP:
            CUDAG_EXPECTS(opt.uc_priority >= -1 && opt.uc_priority <= 4,
                          "uc_priority must be in -1..4, got " + std::to_string(opt.uc_priority));
            return orient_causal_learn(skeleton, sepsets, opt, pvalue);
    }
    throw InputError("unknown collider rule " + std::to_string(static_cast<int>(opt.rule)));
}

}  // namespace cudag::pc
