// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/bulk_vector.hpp"
#include "core/parallel.hpp"

namespace cudag {

/// Separating sets of removed pairs, keyed by (i, j) with i < j; each set sorted
/// ascending. Stored flat and sorted by pair (pairs, offsets, nodes): millions of sets
/// (a genome-scale run) cost three arrays, not a tree node and a vector each. Built in
/// pair order (append_sorted, O(1)) by the skeleton search; set() also inserts out of
/// order, at O(size) a call, for small hand-built tables. The arrays are BulkVectors and
/// a pair is stored packed in one 64-bit word (i above j, so the words sort as the pairs):
/// a bulk builder sizes them without a serial zeroing pass and fills them on threads.
class SepSets {
public:
    using Key = std::pair<std::int32_t, std::int32_t>;
    /// Pair (i, j), 0 <= i < j, as the 64-bit word the table sorts and stores.
    static std::uint64_t pack(std::int32_t i, std::int32_t j) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
    }
    static Key unpack(std::uint64_t k) {
        return {static_cast<std::int32_t>(k >> 32), static_cast<std::int32_t>(k & 0xffffffffu)};
    }
    /// One record as all() yields it.
    struct Entry {
        Key key;
        std::span<const std::int32_t> set;
    };

    /// Record (or replace) the set of i–j.
    void set(std::int32_t i, std::int32_t j, std::vector<std::int32_t> s) {
        if (i > j) std::swap(i, j);
        std::sort(s.begin(), s.end());
        const std::uint64_t k = pack(i, j);
        if (keys_.empty() || keys_.back() < k) return append_sorted(i, j, s);
        const auto pos = static_cast<std::size_t>(std::lower_bound(keys_.begin(), keys_.end(), k) - keys_.begin());
        const auto b = static_cast<std::ptrdiff_t>(offsets_[pos]);
        if (keys_[pos] == k) {  // replace
            const auto e = static_cast<std::ptrdiff_t>(offsets_[pos + 1]);
            nodes_.erase(nodes_.begin() + b, nodes_.begin() + e);
            nodes_.insert(nodes_.begin() + b, s.begin(), s.end());
            const std::int64_t shift = static_cast<std::int64_t>(s.size()) - (e - b);
            for (std::size_t r = pos + 1; r < offsets_.size(); ++r) offsets_[r] += shift;
            return;
        }
        keys_.insert(keys_.begin() + static_cast<std::ptrdiff_t>(pos), k);
        nodes_.insert(nodes_.begin() + b, s.begin(), s.end());
        offsets_.insert(offsets_.begin() + static_cast<std::ptrdiff_t>(pos) + 1, b);
        for (std::size_t r = pos + 1; r < offsets_.size(); ++r) offsets_[r] += static_cast<std::int64_t>(s.size());
    }
    /// Record the set of i < j (sorted) when (i, j) sorts after every pair already held:
    /// O(1), for building from a sorted list (falls back to set() otherwise).
    void append_sorted(std::int32_t i, std::int32_t j, std::span<const std::int32_t> s) {
        const std::uint64_t k = pack(i, j);
        if (!keys_.empty() && !(keys_.back() < k)) return set(i, j, {s.begin(), s.end()});
        keys_.push_back(k);
        nodes_.insert(nodes_.end(), s.begin(), s.end());
        offsets_.push_back(static_cast<std::int64_t>(nodes_.size()));
    }
    void append_sorted(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
        append_sorted(i, j, std::span<const std::int32_t>(s));
    }
    /// A table from its flat arrays: keys (pack()ed pairs, i < j each) strictly
    /// increasing, record r's set at nodes[offsets[r] .. offsets[r + 1]) sorted,
    /// offsets[0] = 0. For bulk builders.
    static SepSets adopt(BulkVector<std::uint64_t> keys, BulkVector<std::int64_t> offsets,
                         BulkVector<std::int32_t> nodes) {
        SepSets s;
        s.keys_ = std::move(keys);
        s.offsets_ = std::move(offsets);
        s.nodes_ = std::move(nodes);
        return s;
    }
    /// The records of `a` and `b` in one table when no pair is in both (false otherwise,
    /// `out` untouched); see the k-table form.
    static bool merge_disjoint(const SepSets& a, const SepSets& b, SepSets& out, int threads = 1) {
        const SepSets* both[2] = {&a, &b};
        return merge_disjoint(std::span<const SepSets* const>(both), out, threads);
    }
    /// The records of all `tables` in one table when no pair is in two of them (false
    /// otherwise, `out` untouched): one k-way merge by pair, in `threads` pieces cut at
    /// pairs of the largest table (each piece's place in the output is known from where it
    /// starts in every input), so every record is copied once.
    static bool merge_disjoint(std::span<const SepSets* const> tables, SepSets& out, int threads = 1) {
        const std::size_t nt = tables.size();
        std::size_t k = 0, nodes_total = 0, big = 0;
        for (std::size_t t = 0; t < nt; ++t) {
            k += tables[t]->size();
            nodes_total += tables[t]->nodes_.size();
            if (tables[t]->size() > tables[big]->size()) big = t;
        }
        const auto pieces = static_cast<std::int64_t>(std::max<std::size_t>(
            1, std::min<std::size_t>(static_cast<std::size_t>(std::max(1, threads)) * 4, k >> 12)));
        // cut[p * nt + t]: where piece p starts in table t.
        std::vector<std::size_t> cut(static_cast<std::size_t>(pieces + 1) * nt);
        const std::size_t nb = nt ? tables[big]->size() : 0;
        for (std::int64_t p = 0; p <= pieces; ++p)
            for (std::size_t t = 0; t < nt; ++t) {
                const SepSets& s = *tables[t];
                std::size_t& c = cut[static_cast<std::size_t>(p) * nt + t];
                if (p == 0)
                    c = 0;
                else if (p == pieces)
                    c = s.size();
                else {
                    const std::uint64_t key =
                        tables[big]->keys_[nb * static_cast<std::size_t>(p) / static_cast<std::size_t>(pieces)];
                    c = static_cast<std::size_t>(std::lower_bound(s.keys_.begin(), s.keys_.end(), key) -
                                                 s.keys_.begin());
                }
            }
        BulkVector<std::uint64_t> keys(k);
        BulkVector<std::int64_t> offs(k + 1);
        BulkVector<std::int32_t> nodes(nodes_total);
        offs[0] = 0;
        std::atomic<bool> clash{false};
        parallel_for(0, pieces, threads, 1, [&](std::int64_t p, int) {
            std::vector<std::size_t> x(nt), xe(nt);
            std::size_t o = 0;
            std::int64_t at = 0;
            for (std::size_t t = 0; t < nt; ++t) {
                x[t] = cut[static_cast<std::size_t>(p) * nt + t];
                xe[t] = cut[static_cast<std::size_t>(p + 1) * nt + t];
                o += x[t];
                at += tables[t]->offsets_[x[t]];
            }
            for (;;) {
                std::size_t best = nt;
                for (std::size_t t = 0; t < nt; ++t) {
                    if (x[t] == xe[t]) continue;
                    if (best == nt || tables[t]->keys_[x[t]] < tables[best]->keys_[x[best]])
                        best = t;
                    else if (tables[t]->keys_[x[t]] == tables[best]->keys_[x[best]])
                        clash.store(true, std::memory_order_relaxed);
                }
                if (best == nt) break;
                const SepSets& s = *tables[best];
                const std::size_t r = x[best]++;
                keys[o] = s.keys_[r];
                at = std::copy(s.nodes_.begin() + s.offsets_[r], s.nodes_.begin() + s.offsets_[r + 1],
                               nodes.begin() + at) -
                     nodes.begin();
                offs[++o] = at;
            }
        });
        if (clash.load()) return false;
        out = adopt(std::move(keys), std::move(offs), std::move(nodes));
        return true;
    }

    /// The flat arrays adopt() takes (for moving a table between ranks).
    std::span<const std::uint64_t> keys() const { return {keys_.data(), keys_.size()}; }
    std::span<const std::int64_t> offsets() const { return {offsets_.data(), offsets_.size()}; }
    std::span<const std::int32_t> nodes() const { return {nodes_.data(), nodes_.size()}; }

    /// Whether i–j was separated (has an entry).
    bool has(std::int32_t i, std::int32_t j) const { return find(i, j) >= 0; }
    /// The set for i–j (a view into this table); empty when none recorded.
    std::span<const std::int32_t> view(std::int32_t i, std::int32_t j) const {
        const std::ptrdiff_t r = find(i, j);
        if (r < 0) return {};
        return row(static_cast<std::size_t>(r));
    }
    /// The set for i–j as a vector; empty when none recorded.
    std::vector<std::int32_t> get(std::int32_t i, std::int32_t j) const {
        const auto s = view(i, j);
        return {s.begin(), s.end()};
    }
    /// Whether k is in the separating set of i–j.
    bool contains(std::int32_t i, std::int32_t j, std::int32_t k) const {
        const auto s = view(i, j);
        return std::binary_search(s.begin(), s.end(), k);
    }
    std::size_t size() const { return keys_.size(); }

    /// Every record in pair order: `for (const auto& [key, set] : s.all())`.
    class View {
    public:
        class Iterator {
        public:
            Iterator(const SepSets* s, std::size_t r) : s_(s), r_(r) {}
            Entry operator*() const { return {unpack(s_->keys_[r_]), s_->row(r_)}; }
            Iterator& operator++() {
                ++r_;
                return *this;
            }
            bool operator!=(const Iterator& o) const { return r_ != o.r_; }
            bool operator==(const Iterator& o) const { return r_ == o.r_; }

        private:
            const SepSets* s_;
            std::size_t r_;
        };
        explicit View(const SepSets* s) : s_(s) {}
        Iterator begin() const { return {s_, 0}; }
        Iterator end() const { return {s_, s_->size()}; }

    private:
        const SepSets* s_;
    };
    View all() const { return View(this); }

    bool operator==(const SepSets& o) const { return keys_ == o.keys_ && offsets_ == o.offsets_ && nodes_ == o.nodes_; }

private:
    std::ptrdiff_t find(std::int32_t i, std::int32_t j) const {
        if (i > j) std::swap(i, j);
        const std::uint64_t k = pack(i, j);  // a negative node packs to a word no held pair has
        const auto it = std::lower_bound(keys_.begin(), keys_.end(), k);
        if (it == keys_.end() || *it != k) return -1;
        return it - keys_.begin();
    }
    std::span<const std::int32_t> row(std::size_t r) const {
        return {nodes_.data() + offsets_[r], static_cast<std::size_t>(offsets_[r + 1] - offsets_[r])};
    }

    BulkVector<std::uint64_t> keys_;  ///< pack(i, j), increasing
    BulkVector<std::int64_t> offsets_{0};
    BulkVector<std::int32_t> nodes_;
};

}  // namespace cudag
