// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace cudag {

/// Separating sets of removed pairs, keyed by (i, j) with i < j; each set sorted
/// increasingly. A pair removed at level 0 has an empty set. A pair never removed
/// has no entry. Ordered by (i, j) so that iteration and files are deterministic.
class SepSets {
public:
    using Key = std::pair<std::int32_t, std::int32_t>;

    void set(std::int32_t i, std::int32_t j, std::vector<std::int32_t> s) {
        if (i > j) std::swap(i, j);
        std::sort(s.begin(), s.end());
        sets_[{i, j}] = std::move(s);
    }
    /// Insert the set of i < j (sorted) when (i, j) sorts after every pair already held:
    /// O(1), for building from a sorted list.
    void append_sorted(std::int32_t i, std::int32_t j, std::vector<std::int32_t> s) {
        sets_.emplace_hint(sets_.end(), Key{i, j}, std::move(s));
    }
    /// Whether i–j was separated (has an entry).
    bool has(std::int32_t i, std::int32_t j) const {
        if (i > j) std::swap(i, j);
        return sets_.count({i, j}) != 0;
    }
    /// The set for i–j; empty when none recorded.
    const std::vector<std::int32_t>& get(std::int32_t i, std::int32_t j) const {
        static const std::vector<std::int32_t> empty;
        if (i > j) std::swap(i, j);
        auto it = sets_.find({i, j});
        return it == sets_.end() ? empty : it->second;
    }
    /// Whether k is in the separating set of i–j.
    bool contains(std::int32_t i, std::int32_t j, std::int32_t k) const {
        const auto& s = get(i, j);
        return std::binary_search(s.begin(), s.end(), k);
    }
    std::size_t size() const { return sets_.size(); }
    const std::map<Key, std::vector<std::int32_t>>& all() const { return sets_; }
    bool operator==(const SepSets& o) const { return sets_ == o.sets_; }

private:
    std::map<Key, std::vector<std::int32_t>> sets_;
};

}  // namespace cudag
