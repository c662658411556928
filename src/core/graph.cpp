// SPDX-License-Identifier: Apache-2.0
#include "core/graph.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <iterator>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag {
namespace {

// Set bits of a row. Without -mpopcnt std::popcount is a libgcc call per word; a clone
// for CPUs with POPCNT (chosen at load time) makes degree scans several times faster.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
std::int64_t
row_popcount(const std::uint64_t* r, std::int64_t words) {
    std::int64_t d = 0;
    for (std::int64_t w = 0; w < words; ++w) d += __builtin_popcountll(r[w]);
    return d;
}

}  // namespace

std::int64_t Graph::dense_limit() {
    static const std::int64_t limit = [] {
        const char* v = std::getenv("CUDAG_GRAPH_DENSE_LIMIT");
        return v && *v ? std::max<std::int64_t>(0, std::atoll(v)) : std::int64_t{32768};
    }();
    return limit;
}

Graph Graph::with_form(std::int64_t n, bool dense) {
    Graph g;
    g.n_ = n;
    g.dense_ = dense;
    if (dense) {
        g.words_ = (n + 63) / 64;
        g.bits_.assign(static_cast<std::size_t>(n * g.words_), 0);
    } else {
        g.rows_.resize(static_cast<std::size_t>(n));
    }
    return g;
}

Graph::Graph(std::int64_t n, bool complete) : n_(n), dense_(n <= dense_limit()) {
    if (!dense_) {
        rows_.resize(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; complete && i < n; ++i) {  // n² entries: small graphs only
            std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
            r.reserve(static_cast<std::size_t>(n - 1));
            for (std::int64_t j = 0; j < n; ++j)
                if (j != i) r.push_back(static_cast<std::int32_t>(j));
        }
        return;
    }
    words_ = (n + 63) / 64;
    bits_.assign(static_cast<std::size_t>(n * words_), 0);
    if (!complete) return;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint64_t* r = bits_.data() + i * words_;
        for (std::int64_t w = 0; w < words_; ++w) r[w] = ~0ull;
        if (n % 64) r[words_ - 1] = (1ull << (n % 64)) - 1;
        r[i >> 6] &= ~(1ull << (i & 63));
    }
}

bool Graph::sparse_has(std::int64_t i, std::int64_t j) const {
    const std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
    return std::binary_search(r.begin(), r.end(), static_cast<std::int32_t>(j));
}

void Graph::set_bit(std::int64_t i, std::int64_t j) {
    if (dense_) {
        bits_[i * words_ + (j >> 6)] |= 1ull << (j & 63);
        return;
    }
    std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
    const auto it = std::lower_bound(r.begin(), r.end(), static_cast<std::int32_t>(j));
    if (it == r.end() || *it != j) r.insert(it, static_cast<std::int32_t>(j));
}

void Graph::clear_bit(std::int64_t i, std::int64_t j) {
    if (dense_) {
        bits_[i * words_ + (j >> 6)] &= ~(1ull << (j & 63));
        return;
    }
    std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
    const auto it = std::lower_bound(r.begin(), r.end(), static_cast<std::int32_t>(j));
    if (it != r.end() && *it == j) r.erase(it);
}

std::int64_t Graph::degree(std::int64_t i) const {
    return dense_ ? row_popcount(row(i), words_) : static_cast<std::int64_t>(rows_[static_cast<std::size_t>(i)].size());
}

std::int64_t Graph::max_degree() const {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n_; ++i) m = std::max(m, degree(i));
    return m;
}

std::int64_t Graph::n_edges() const {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < n_; ++i) s += degree(i);
    return s / 2;
}

std::vector<std::int32_t> Graph::neighbours(std::int64_t i) const {
    if (!dense_) return rows_[static_cast<std::size_t>(i)];
    std::vector<std::int32_t> out;
    for_each_neighbour(i, [&out](std::int32_t j) { out.push_back(j); });
    return out;
}

void Graph::assign(const Adjacency& a, int threads) {
    CUDAG_ASSERT(a.n == n_);
    parallel_for(0, n_, threads, 256, [&](std::int64_t i, int) {
        const std::int32_t* b = a.row(i);
        const std::int32_t* e = b + a.degree(i);
        if (!dense_) {
            rows_[static_cast<std::size_t>(i)].assign(b, e);
            return;
        }
        std::uint64_t* r = bits_.data() + i * words_;
        std::fill(r, r + words_, std::uint64_t{0});
        for (const std::int32_t* p = b; p != e; ++p) r[*p >> 6] |= std::uint64_t{1} << (*p & 63);
    });
}

void Graph::add_upper_pairs(const std::int64_t* start, const std::int32_t* cols, int threads) {
    if (dense_) {
        // The mirror bits lie in other rows: atomic ORs.
        std::uint64_t* words = bits_.data();
        const auto set = [&](std::int64_t a, std::int64_t b) {
            std::atomic_ref<std::uint64_t>(words[a * words_ + (b >> 6)])
                .fetch_or(std::uint64_t{1} << (b & 63), std::memory_order_relaxed);
        };
        parallel_for(0, n_, threads, 256, [&](std::int64_t i, int) {
            for (std::int64_t k = start[i]; k < start[i + 1]; ++k) {
                set(i, cols[k]);
                set(cols[k], i);
            }
        });
        return;
    }
    // Sparse: the rows' lower parts (j < i) by transposing the upper lists in row order, then
    // each row's lower part followed by its upper part (already increasing: all < i < all),
    // united with what the row held. The rows are cut into one block of about equal entries
    // per worker; a worker counts its block's entries per column, the counts give each
    // (column, block) its place, and it writes its block's rows in increasing order, so that
    // every column's list comes out increasing with no sort and no atomics (a hub's column
    // would otherwise be one contended counter and one long sort).
    const std::int64_t entries = start[n_] - start[0];
    // Blocks of >= 64 Ki entries each, and their counts (blocks x n) no larger than the lists.
    const std::int64_t most = std::min<std::int64_t>({resolve_threads(threads), 16, entries / n_ + 1});
    const int blocks = static_cast<int>(std::clamp<std::int64_t>(entries / (std::int64_t(1) << 16), 1, most));
    std::vector<std::int64_t> row_cut(static_cast<std::size_t>(blocks) + 1, n_);
    row_cut[0] = 0;
    for (int t = 1; t < blocks; ++t) {
        const std::int64_t want = start[0] + entries * t / blocks;
        row_cut[static_cast<std::size_t>(t)] = std::lower_bound(start, start + n_, want) - start;
    }
    // place[t][c]: block t's count of column c, then where its first entry of c goes.
    std::vector<std::vector<std::int64_t>> place(static_cast<std::size_t>(blocks));
    parallel_for(0, blocks, threads, 1, [&](std::int64_t t, int) {
        std::vector<std::int64_t>& cnt = place[static_cast<std::size_t>(t)];
        cnt.assign(static_cast<std::size_t>(n_), 0);
        for (std::int64_t k = start[row_cut[static_cast<std::size_t>(t)]];
             k < start[row_cut[static_cast<std::size_t>(t) + 1]]; ++k)
            ++cnt[static_cast<std::size_t>(cols[k])];
    });
    std::vector<std::int64_t> lower(static_cast<std::size_t>(n_) + 1, 0);
    parallel_for(0, n_, threads, 1 << 14, [&](std::int64_t c, int) {
        std::int64_t run = 0;
        for (auto& cnt : place) {
            const std::int64_t x = cnt[static_cast<std::size_t>(c)];
            cnt[static_cast<std::size_t>(c)] = run;
            run += x;
        }
        lower[static_cast<std::size_t>(c) + 1] = run;
    });
    std::partial_sum(lower.begin(), lower.end(), lower.begin());
    BulkVector<std::int32_t> low(static_cast<std::size_t>(lower.back()));
    parallel_for(0, blocks, threads, 1, [&](std::int64_t t, int) {
        std::vector<std::int64_t>& at = place[static_cast<std::size_t>(t)];
        for (std::int64_t i = row_cut[static_cast<std::size_t>(t)]; i < row_cut[static_cast<std::size_t>(t) + 1]; ++i)
            for (std::int64_t k = start[i]; k < start[i + 1]; ++k) {
                const auto c = static_cast<std::size_t>(cols[k]);
                low[static_cast<std::size_t>(lower[c] + at[c]++)] = static_cast<std::int32_t>(i);
            }
    });
    std::vector<std::vector<std::int64_t>>().swap(place);
    parallel_for(0, n_, threads, 256, [&](std::int64_t i, int) {
        std::vector<std::int32_t>& r = rows_[static_cast<std::size_t>(i)];
        const auto lb = low.begin() + lower[static_cast<std::size_t>(i)];
        const auto le = low.begin() + lower[static_cast<std::size_t>(i) + 1];
        if (lb == le && start[i] == start[i + 1]) return;
        std::vector<std::int32_t> add;
        add.reserve(static_cast<std::size_t>((le - lb) + (start[i + 1] - start[i])));
        add.insert(add.end(), lb, le);
        add.insert(add.end(), cols + start[i], cols + start[i + 1]);
        if (r.empty()) {
            r.swap(add);
            return;
        }
        std::vector<std::int32_t> merged;
        merged.reserve(r.size() + add.size());
        std::set_union(r.begin(), r.end(), add.begin(), add.end(), std::back_inserter(merged));
        r.swap(merged);
    });
}

std::vector<std::int64_t> Graph::serialize() const {
    std::vector<std::int64_t> out{n_, dense_ ? 1 : 0};
    if (dense_) {
        out.insert(out.end(), bits_.begin(), bits_.end());
        return out;
    }
    for (const auto& r : rows_) {
        out.push_back(static_cast<std::int64_t>(r.size()));
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

Graph Graph::deserialize(const std::vector<std::int64_t>& flat) {
    CUDAG_ASSERT(flat.size() >= 2);
    Graph g = with_form(flat[0], flat[1] == 1);
    if (g.dense_) {
        CUDAG_ASSERT(flat.size() == 2 + g.bits_.size());
        std::copy(flat.begin() + 2, flat.end(), reinterpret_cast<std::int64_t*>(g.bits_.data()));
        return g;
    }
    std::size_t p = 2;
    for (auto& r : g.rows_) {
        CUDAG_ASSERT(p < flat.size());
        const auto d = static_cast<std::size_t>(flat[p++]);
        CUDAG_ASSERT(p + d <= flat.size());
        r.assign(flat.begin() + static_cast<std::ptrdiff_t>(p), flat.begin() + static_cast<std::ptrdiff_t>(p + d));
        p += d;
    }
    CUDAG_ASSERT(p == flat.size());
    return g;
}

bool Graph::operator==(const Graph& o) const {
    if (n_ != o.n_) return false;
    if (dense_ && o.dense_) return bits_ == o.bits_;
    if (!dense_ && !o.dense_) return rows_ == o.rows_;
    for (std::int64_t i = 0; i < n_; ++i)
        if (neighbours(i) != o.neighbours(i)) return false;
    return true;
}

Adjacency Adjacency::from_graph(const Graph& g, int threads) {
    Adjacency a;
    if (!g.dense()) {
        a.n = g.n();
        a.offsets.assign(static_cast<std::size_t>(a.n + 1), 0);
        for (std::int64_t i = 0; i < a.n; ++i) a.offsets[i + 1] = a.offsets[i] + g.degree(i);
        a.nbrs.resize(static_cast<std::size_t>(a.offsets[a.n]));
        parallel_for(0, a.n, threads, 256, [&](std::int64_t i, int) {
            std::int64_t p = a.offsets[i];
            g.for_each_neighbour(i, [&](std::int32_t j) { a.nbrs[static_cast<std::size_t>(p++)] = j; });
        });
        return a;
    }
    a.n = g.n();
    a.offsets.assign(static_cast<std::size_t>(a.n + 1), 0);
    constexpr std::int64_t kRows = 256;  // rows per work item
    parallel_for(0, a.n, threads, kRows, [&](std::int64_t i, int) { a.offsets[i + 1] = g.degree(i); });
    for (std::int64_t i = 0; i < a.n; ++i) a.offsets[i + 1] += a.offsets[i];
    a.nbrs.resize(static_cast<std::size_t>(a.offsets[a.n]));
    parallel_for(0, a.n, threads, kRows, [&](std::int64_t i, int) {
        const std::uint64_t* r = g.row(i);
        std::int64_t p = a.offsets[i];
        for (std::int64_t w = 0; w < g.words_per_row(); ++w) {
            std::uint64_t x = r[w];
            while (x) {
                a.nbrs[p++] = static_cast<std::int32_t>(w * 64 + std::countr_zero(x));
                x &= x - 1;
            }
        }
    });
    return a;
}

std::int64_t Adjacency::max_degree() const {
    std::int64_t m = 0;
    for (std::int64_t i = 0; i < n; ++i) m = std::max(m, degree(i));
    return m;
}

std::int64_t Adjacency::find(std::int64_t i, std::int32_t j) const {
    const std::int32_t* b = nbrs.data() + offsets[i];
    const std::int32_t* e = nbrs.data() + offsets[i + 1];
    const std::int32_t* p = std::lower_bound(b, e, j);
    return (p != e && *p == j) ? (p - nbrs.data()) : -1;
}

}  // namespace cudag
