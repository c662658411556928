// SPDX-License-Identifier: Apache-2.0
#include "pc/merge.hpp"

#include <algorithm>
#include <numeric>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace cudag::pc {

PmaxTable PmaxTable::dense(std::int64_t n) {
    PmaxTable t;
    t.n_ = n;
    t.dense_ = true;
    t.values_.assign(static_cast<std::size_t>(n * (n - 1) / 2), -1.0);
    return t;
}

PmaxTable PmaxTable::sparse(const Graph& g) {
    PmaxTable t;
    t.n_ = g.n();
    t.offsets_.assign(static_cast<std::size_t>(t.n_ + 1), 0);
    for (std::int64_t i = 0; i < t.n_; ++i) {
        for (std::int32_t j : g.neighbours(i))
            if (j > i) t.cols_.push_back(j);
        t.offsets_[i + 1] = static_cast<std::int64_t>(t.cols_.size());
    }
    t.values_.assign(t.cols_.size(), -1.0);
    return t;
}

PmaxTable PmaxTable::from_pairs(std::int64_t n, bool dense, const std::vector<PairP>& pairs) {
    PmaxTable t;
    if (dense) {
        t = PmaxTable::dense(n);
    } else {
        t.n_ = n;
        t.offsets_.assign(static_cast<std::size_t>(n + 1), 0);
        for (const PairP& q : pairs) {
            CUDAG_ASSERT(q.i >= 0 && q.i < q.j && q.j < n);
            ++t.offsets_[q.i + 1];
            t.cols_.push_back(q.j);
        }
        std::partial_sum(t.offsets_.begin(), t.offsets_.end(), t.offsets_.begin());
        t.values_.assign(t.cols_.size(), -1.0);
    }
    for (const PairP& q : pairs) {
        const std::int64_t s = t.slot(q.i, q.j);
        CUDAG_ASSERT(s >= 0);
        t.values_[static_cast<std::size_t>(s)] = q.p;
    }
    return t;
}

std::int64_t PmaxTable::slot(std::int32_t i, std::int32_t j) const {
    if (dense_) return static_cast<std::int64_t>(i) * n_ - static_cast<std::int64_t>(i) * (i + 1) / 2 + (j - i - 1);
    const std::int32_t* b = cols_.data() + offsets_[i];
    const std::int32_t* e = cols_.data() + offsets_[i + 1];
    const std::int32_t* p = std::lower_bound(b, e, j);
    CUDAG_ASSERT(p != e && *p == j);
    return p - cols_.data();
}

std::vector<PairP> PmaxTable::pairs() const {
    std::vector<PairP> out;
    out.reserve(values_.size());
    std::size_t k = 0;
    for (std::int32_t i = 0; i < n_; ++i) {
        if (dense_) {
            for (std::int32_t j = i + 1; j < n_; ++j, ++k)
                if (values_[k] >= 0.0) out.push_back({i, j, values_[k]});
        } else {
            for (; k < static_cast<std::size_t>(offsets_[i + 1]); ++k)
                if (values_[k] >= 0.0) out.push_back({i, cols_[k], values_[k]});
        }
    }
    return out;
}

void SepSetLog::add(std::int32_t i, std::int32_t j, std::span<const std::int32_t> set) {
    pairs_.push_back(i);
    pairs_.push_back(j);
    nodes_.insert(nodes_.end(), set.begin(), set.end());
    offsets_.push_back(static_cast<std::int64_t>(nodes_.size()));
}

void SepSetLog::reserve(std::size_t records, std::size_t nodes) {
    pairs_.reserve(pairs_.size() + 2 * records);
    offsets_.reserve(offsets_.size() + records);
    nodes_.reserve(nodes_.size() + nodes);
}

void SepSetLog::clear() {
    pairs_.clear();
    nodes_.clear();
    offsets_.assign(1, 0);
}

void SepSetLog::append(const SepSetLog& o) {
    const std::int64_t base = static_cast<std::int64_t>(nodes_.size());
    pairs_.insert(pairs_.end(), o.pairs_.begin(), o.pairs_.end());
    nodes_.insert(nodes_.end(), o.nodes_.begin(), o.nodes_.end());
    for (std::size_t k = 1; k < o.offsets_.size(); ++k) offsets_.push_back(base + o.offsets_[k]);
}

std::vector<std::byte> SepSetLog::serialize() const {
    ByteWriter w;
    w.put_vector(pairs_);
    w.put_vector(offsets_);
    w.put_vector(nodes_);
    return w.take();
}

SepSetLog SepSetLog::deserialize(std::span<const std::byte> bytes) {
    SepSetLog s;
    ByteReader r(bytes);
    s.pairs_ = r.get_vector<std::int32_t>();
    s.offsets_ = r.get_vector<std::int64_t>();
    s.nodes_ = r.get_vector<std::int32_t>();
    CUDAG_ASSERT(r.done() && s.offsets_.size() == s.size() + 1);
    return s;
}

SepSets SepSetLog::to_sepsets() const {
    const std::size_t k = size();
    // Records by pair: a counting sort on i (records arrive roughly row by row, and a
    // comparison sort of millions of records through an index was the slow part of a
    // level-1 heavy run), then each i's records by j.
    std::int32_t n = 0;
    for (std::size_t r = 0; r < k; ++r) n = std::max(n, pairs_[2 * r] + 1);
    std::vector<std::size_t> start(static_cast<std::size_t>(n) + 1, 0);
    for (std::size_t r = 0; r < k; ++r) ++start[static_cast<std::size_t>(pairs_[2 * r]) + 1];
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) start[i + 1] += start[i];
    std::vector<std::size_t> order(k), fill(start.begin(), start.end() - 1);
    for (std::size_t r = 0; r < k; ++r) order[fill[static_cast<std::size_t>(pairs_[2 * r])]++] = r;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
        std::sort(order.begin() + static_cast<std::ptrdiff_t>(start[i]),
                  order.begin() + static_cast<std::ptrdiff_t>(start[i + 1]),
                  [&](std::size_t a, std::size_t b) { return pairs_[2 * a + 1] < pairs_[2 * b + 1]; });
    auto key = [&](std::size_t r) { return std::pair{pairs_[2 * r], pairs_[2 * r + 1]}; };
    SepSets out;
    std::vector<std::int32_t> set, merged;
    for (std::size_t x = 0; x < k;) {
        const auto pair = key(order[x]);
        const std::size_t r0 = order[x];
        if (x + 1 == k || key(order[x + 1]) != pair) {  // one record: no union to form
            out.append_sorted(pair.first, pair.second,
                              std::span<const std::int32_t>(nodes_.data() + offsets_[r0],
                                                            static_cast<std::size_t>(offsets_[r0 + 1] - offsets_[r0])));
            ++x;
            continue;
        }
        set.clear();
        for (; x < k && key(order[x]) == pair; ++x) {
            const std::size_t r = order[x];
            merged.clear();
            std::set_union(set.begin(), set.end(), nodes_.begin() + offsets_[r],
                           nodes_.begin() + offsets_[r + 1], std::back_inserter(merged));
            set.swap(merged);
        }
        out.append_sorted(pair.first, pair.second, set);
    }
    return out;
}

SepSetLog SepSetLog::from_sepsets(const SepSets& s) {
    SepSetLog log;
    for (const auto& [key, set] : s.all()) log.add(key.first, key.second, set);
    return log;
}

}  // namespace cudag::pc
