// SPDX-License-Identifier: Apache-2.0
#include "skeleton/merge.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <numeric>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"

namespace cudag::skeleton {

PmaxTable PmaxTable::dense(std::int64_t n, int threads) {
    PmaxTable t;
    t.n_ = n;
    t.dense_ = true;
    // Filled on the threads: one pass over fresh memory (its page faults) on one thread
    // was most of a small network's level-0 host time (64 MB at n = 4096).
    const std::int64_t count = pair_count(n);
    t.values_.resize(static_cast<std::size_t>(count));
    constexpr std::int64_t kChunk = 1 << 16;
    parallel_for(0, (count + kChunk - 1) / kChunk, threads, 1, [&](std::int64_t c, int) {
        const auto b = t.values_.begin() + c * kChunk;
        std::fill(b, t.values_.begin() + std::min(count, (c + 1) * kChunk), -1.0);
    });
    return t;
}

PmaxTable PmaxTable::sparse(const Graph& g, int threads) {
    PmaxTable t;
    t.n_ = g.n();
    t.offsets_.assign(static_cast<std::size_t>(t.n_ + 1), 0);
    // Row i's neighbours j > i.
    const auto upper_bits = [&](std::int64_t i, auto&& emit) { g.for_each_neighbour(i, emit, i + 1); };
    constexpr std::int64_t kRows = 256;
    parallel_for(0, t.n_, threads, kRows, [&](std::int64_t i, int) {
        std::int64_t c = 0;
        upper_bits(i, [&](std::int32_t) { ++c; });
        t.offsets_[static_cast<std::size_t>(i) + 1] = c;
    });
    std::partial_sum(t.offsets_.begin(), t.offsets_.end(), t.offsets_.begin());
    t.cols_.resize(static_cast<std::size_t>(t.offsets_.back()));
    parallel_for(0, t.n_, threads, kRows, [&](std::int64_t i, int) {
        std::int64_t p = t.offsets_[static_cast<std::size_t>(i)];
        upper_bits(i, [&](std::int32_t j) { t.cols_[static_cast<std::size_t>(p++)] = j; });
    });
    t.values_.assign(t.cols_.size(), -1.0);
    return t;
}

PmaxTable PmaxTable::from_upper_csr(std::int64_t n, BulkVector<std::int64_t>&& offsets, BulkVector<std::int32_t>&& cols,
                                    BulkVector<double>&& values) {
    CUDAG_ASSERT(static_cast<std::int64_t>(offsets.size()) == n + 1);
    CUDAG_ASSERT(static_cast<std::int64_t>(cols.size()) == offsets.back() && values.size() == cols.size());
    PmaxTable t;
    t.n_ = n;
    t.offsets_ = std::move(offsets);
    t.cols_ = std::move(cols);
    t.values_ = std::move(values);
    return t;
}

void PmaxTable::raise_all(PairPList pairs, int threads) {
    const auto by_pair = [](const PairP& a, const PairP& b) { return a.i != b.i ? a.i < b.i : a.j < b.j; };
    if (!dense_ && !std::is_sorted(pairs.begin(), pairs.end(), by_pair)) std::sort(pairs.begin(), pairs.end(), by_pair);
    constexpr std::int64_t kChunk = 1 << 15;
    const auto count = static_cast<std::int64_t>(pairs.size());
    parallel_for(0, (count + kChunk - 1) / kChunk, threads, 1, [&](std::int64_t c, int) {
        std::int32_t row = -1;
        std::int64_t at = 0;
        for (std::int64_t k = c * kChunk; k < std::min(count, (c + 1) * kChunk); ++k) {
            const PairP& q = pairs[static_cast<std::size_t>(k)];
            std::int64_t s;
            if (dense_) {
                s = slot(q.i, q.j);
            } else {
                if (q.i != row) {
                    row = q.i;
                    at = slot(q.i, q.j);
                }
                while (cols_[static_cast<std::size_t>(at)] < q.j) ++at;
                CUDAG_ASSERT(at < offsets_[static_cast<std::size_t>(q.i) + 1] &&
                             cols_[static_cast<std::size_t>(at)] == q.j);
                s = at;
            }
            raise_slot(s, q.p);
        }
    });
}

PmaxTable PmaxTable::from_pairs(std::int64_t n, bool dense, std::span<const PairP> pairs, int threads) {
    PmaxTable t;
    if (dense) {
        t = PmaxTable::dense(n, threads);
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
    if (dense_) return pair_index(i, j, n_);
    const std::int32_t* b = cols_.data() + offsets_[i];
    const std::int32_t* e = cols_.data() + offsets_[i + 1];
    const std::int32_t* p = std::lower_bound(b, e, j);
    CUDAG_ASSERT(p != e && *p == j);
    return p - cols_.data();
}

PairPList PmaxTable::pairs(int threads, std::int64_t row_begin, std::int64_t row_end) const {
    if (row_end < 0 || row_end > n_) row_end = n_;
    row_begin = std::min(row_begin, row_end);
    const std::int64_t rows = row_end - row_begin;
    // Rows in chunks: count each chunk's pairs, then fill each chunk's run of the output.
    const std::int64_t chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(rows, 8 * std::max(1, threads)));
    const auto row_of_chunk = [&](std::int64_t c) { return static_cast<std::int32_t>(row_begin + rows * c / chunks); };
    const auto first_slot = [&](std::int32_t i) -> std::size_t {
        if (dense_) return static_cast<std::size_t>(pair_row_begin(i, n_));
        return static_cast<std::size_t>(offsets_[static_cast<std::size_t>(i)]);
    };
    const auto walk = [&](std::int64_t c, auto&& emit) {
        for (std::int32_t i = row_of_chunk(c); i < row_of_chunk(c + 1); ++i) {
            const std::size_t b = first_slot(i), e = i + 1 < n_ ? first_slot(i + 1) : values_.size();
            for (std::size_t k = b; k < e; ++k)
                if (values_[k] >= 0.0)
                    emit(i, dense_ ? static_cast<std::int32_t>(i + 1 + static_cast<std::int64_t>(k - b)) : cols_[k],
                         values_[k]);
        }
    };
    std::vector<std::size_t> at(static_cast<std::size_t>(chunks) + 1, 0);
    parallel_for(0, chunks, threads, 1, [&](std::int64_t c, int) {
        std::size_t count = 0;
        walk(c, [&](std::int32_t, std::int32_t, double) { ++count; });
        at[static_cast<std::size_t>(c) + 1] = count;
    });
    std::partial_sum(at.begin(), at.end(), at.begin());
    PairPList out(at.back());
    parallel_for(0, chunks, threads, 1, [&](std::int64_t c, int) {
        std::size_t k = at[static_cast<std::size_t>(c)];
        walk(c, [&](std::int32_t i, std::int32_t j, double p) { out[k++] = {i, j, p}; });
    });
    return out;
}

void SepSetLog::add(std::int32_t i, std::int32_t j, std::span<const std::int32_t> set) {
    pairs_.push_back(i);
    pairs_.push_back(j);
    nodes_.insert(nodes_.end(), set.begin(), set.end());
    offsets_.push_back(static_cast<std::int64_t>(nodes_.size()));
}

namespace {
/// Room for `more` elements beyond v's size, growing geometrically: reserve(size + more)
/// alone would copy the whole log at every level that adds a few records. The headroom
/// is twice what is needed: a BulkVector's untouched capacity costs address space only,
/// and the levels after a heavy one then append without moving it.
template <class V>
void grow(V& v, std::size_t more) {
    const std::size_t need = v.size() + more;
    if (need > v.capacity()) v.reserve(std::max(2 * need, 2 * v.capacity()));
}
}  // namespace

void SepSetLog::clear() {
    pairs_.clear();
    nodes_.clear();
    offsets_.assign(1, 0);
}

void SepSetLog::append(const SepSetLog& o) { append(std::span<const SepSetLog>(&o, 1), 1); }

void SepSetLog::append(std::span<const SepSetLog> parts, int threads) {
    const std::size_t p0 = pairs_.size(), o0 = offsets_.size(), n0 = nodes_.size();
    std::vector<std::size_t> at_rec(parts.size() + 1, 0), at_node(parts.size() + 1, 0);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        at_rec[k + 1] = at_rec[k] + parts[k].size();
        at_node[k + 1] = at_node[k] + parts[k].nodes_.size();
    }
    grow(pairs_, 2 * at_rec.back());
    grow(offsets_, at_rec.back());
    grow(nodes_, at_node.back());
    pairs_.resize(p0 + 2 * at_rec.back());
    offsets_.resize(o0 + at_rec.back());
    nodes_.resize(n0 + at_node.back());
    // Work items: runs of up to kRecords records of one part (a single large part, such
    // as another rank's whole log, is copied on all threads too).
    constexpr std::size_t kRecords = std::size_t{1} << 18;
    std::vector<std::pair<std::size_t, std::size_t>> items;  // (part, first record)
    for (std::size_t k = 0; k < parts.size(); ++k)
        for (std::size_t r = 0; r < parts[k].size(); r += kRecords) items.emplace_back(k, r);
    parallel_for(0, static_cast<std::int64_t>(items.size()), threads, 1, [&](std::int64_t it, int) {
        const auto [k, r0] = items[static_cast<std::size_t>(it)];
        const SepSetLog& o = parts[k];
        const std::size_t r1 = std::min(o.size(), r0 + kRecords);
        std::copy(o.pairs_.begin() + static_cast<std::ptrdiff_t>(2 * r0),
                  o.pairs_.begin() + static_cast<std::ptrdiff_t>(2 * r1),
                  pairs_.begin() + static_cast<std::ptrdiff_t>(p0 + 2 * (at_rec[k] + r0)));
        const auto nb = static_cast<std::size_t>(o.offsets_[r0]), ne = static_cast<std::size_t>(o.offsets_[r1]);
        std::copy(o.nodes_.begin() + static_cast<std::ptrdiff_t>(nb),
                  o.nodes_.begin() + static_cast<std::ptrdiff_t>(ne),
                  nodes_.begin() + static_cast<std::ptrdiff_t>(n0 + at_node[k] + nb));
        const auto base = static_cast<std::int64_t>(n0 + at_node[k]);
        for (std::size_t r = r0 + 1; r <= r1; ++r) offsets_[o0 + at_rec[k] + r - 1] = base + o.offsets_[r];
    });
}

SepSetLog::Slots SepSetLog::append_uniform(std::size_t count, int set_size, int threads) {
    const std::size_t p0 = pairs_.size(), o0 = offsets_.size(), n0 = nodes_.size();
    const std::size_t l = static_cast<std::size_t>(set_size);
    grow(pairs_, 2 * count);
    grow(offsets_, count);
    grow(nodes_, count * l);
    pairs_.resize(p0 + 2 * count);
    offsets_.resize(o0 + count);
    nodes_.resize(n0 + count * l);
    constexpr std::int64_t kChunk = 1 << 16;
    const auto base = static_cast<std::int64_t>(n0);
    parallel_for(0, (static_cast<std::int64_t>(count) + kChunk - 1) / kChunk, threads, 1, [&](std::int64_t c, int) {
        const std::int64_t k0 = c * kChunk, k1 = std::min<std::int64_t>(static_cast<std::int64_t>(count), k0 + kChunk);
        for (std::int64_t k = k0; k < k1; ++k)
            offsets_[o0 + static_cast<std::size_t>(k)] = base + (k + 1) * static_cast<std::int64_t>(l);
    });
    return {pairs_.data() + p0, nodes_.data() + n0};
}

std::vector<std::byte> SepSetLog::serialize() const {
    ByteWriter w;
    w.reserve(3 * sizeof(std::int64_t) + pairs_.size() * sizeof(std::int32_t) + offsets_.size() * sizeof(std::int64_t) +
              nodes_.size() * sizeof(std::int32_t));
    w.put_vector(pairs_);
    w.put_vector(offsets_);
    w.put_vector(nodes_);
    return w.take();
}

SepSetLog SepSetLog::deserialize(std::span<const std::byte> bytes) {
    SepSetLog s;
    ByteReader r(bytes);
    s.pairs_ = r.get_vector<std::int32_t, BulkVector<std::int32_t>>();
    s.offsets_ = r.get_vector<std::int64_t, BulkVector<std::int64_t>>();
    s.nodes_ = r.get_vector<std::int32_t, BulkVector<std::int32_t>>();
    CUDAG_ASSERT(r.done() && s.offsets_.size() == s.size() + 1);
    return s;
}

SepSets SepSetLog::to_sepsets(int threads) const {
    const std::size_t k = size();
    // Records by pair: a counting sort on i (records arrive roughly row by row, and a
    // comparison sort of millions of records through an index was the slow part of a
    // level-1 heavy run), then each i's records by j (most runs are sorted already).
    // The counting sort runs on chunks of records: a histogram per chunk, then each
    // chunk scatters to its own positions (stable, so the same order on any threads).
    // At most about k counters in all (n per chunk), and chunks of >= 64 K records.
    std::int32_t n = 0;
    for (std::size_t r = 0; r < k; ++r) n = std::max(n, pairs_[2 * r] + 1);
    const auto nn = static_cast<std::size_t>(n);
    const std::int64_t chunks = std::max<std::int64_t>(
        1, std::min({static_cast<std::int64_t>(k >> 16), 4 * static_cast<std::int64_t>(std::max(1, threads)),
                     static_cast<std::int64_t>(k / std::max<std::size_t>(nn, 1))}));
    const auto chunk_begin = [&](std::int64_t c) {
        return static_cast<std::size_t>(k * static_cast<std::size_t>(c) / static_cast<std::size_t>(chunks));
    };
    std::vector<std::size_t> hist(static_cast<std::size_t>(chunks) * nn, 0);
    parallel_for(0, chunks, threads, 1, [&](std::int64_t c, int) {
        std::size_t* h = hist.data() + static_cast<std::size_t>(c) * nn;
        for (std::size_t r = chunk_begin(c); r < chunk_begin(c + 1); ++r) ++h[static_cast<std::size_t>(pairs_[2 * r])];
    });
    std::vector<std::size_t> start(nn + 1, 0);
    {
        std::size_t at = 0;
        for (std::size_t i = 0; i < nn; ++i) {
            start[i] = at;
            for (std::int64_t c = 0; c < chunks; ++c) {
                std::size_t& h = hist[static_cast<std::size_t>(c) * nn + i];
                const std::size_t count = h;
                h = at;  // chunk c's first position for i
                at += count;
            }
        }
        start[nn] = at;
    }
    BulkVector<std::size_t> order(k);
    if (chunks == 1 && k > 1) {
        // One chunk (up to ~10^5 records): a counting sort on j first, so that the stable one
        // on i leaves each i's records sorted by j (a run's levels append their records row
        // by row, so an i's records are one sorted run a level and would each be sorted).
        std::int32_t nj = 0;
        for (std::size_t r = 0; r < k; ++r) nj = std::max(nj, pairs_[2 * r + 1] + 1);
        std::vector<std::size_t> at_j(static_cast<std::size_t>(nj) + 1, 0);
        for (std::size_t r = 0; r < k; ++r) ++at_j[static_cast<std::size_t>(pairs_[2 * r + 1]) + 1];
        std::partial_sum(at_j.begin(), at_j.end(), at_j.begin());
        BulkVector<std::size_t> by_j(k);
        for (std::size_t r = 0; r < k; ++r) by_j[at_j[static_cast<std::size_t>(pairs_[2 * r + 1])]++] = r;
        for (std::size_t x = 0; x < k; ++x) {
            const std::size_t r = by_j[x];
            order[hist[static_cast<std::size_t>(pairs_[2 * r])]++] = r;
        }
    } else {
        parallel_for(0, chunks, threads, 1, [&](std::int64_t c, int) {
            std::size_t* h = hist.data() + static_cast<std::size_t>(c) * nn;
            for (std::size_t r = chunk_begin(c); r < chunk_begin(c + 1); ++r)
                order[h[static_cast<std::size_t>(pairs_[2 * r])]++] = r;
        });
    }
    std::atomic<bool> repeated{false};
    const auto j_of = [&](std::size_t r) { return pairs_[2 * r + 1]; };
    parallel_for(0, n, threads, 256, [&](std::int64_t i, int) {
        const auto b = order.begin() + static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i)]);
        const auto e = order.begin() + static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i) + 1]);
        const auto by_j = [&](std::size_t x, std::size_t y) { return j_of(x) < j_of(y); };
        if (!std::is_sorted(b, e, by_j)) std::sort(b, e, by_j);
        if (std::adjacent_find(b, e, [&](std::size_t x, std::size_t y) { return j_of(x) == j_of(y); }) != e)
            repeated.store(true, std::memory_order_relaxed);
    });
    auto key = [&](std::size_t r) { return std::pair{pairs_[2 * r], pairs_[2 * r + 1]}; };
    if (!repeated.load()) {
        // One record per pair (every non-exhaustive run): the table's arrays directly.
        // The arrays are sized without zeroing and filled (first touched) on the threads.
        BulkVector<std::uint64_t> keys(k);
        BulkVector<std::int64_t> offs(k + 1);
        offs[0] = 0;
        parallel_for(0, static_cast<std::int64_t>(k), threads, 1 << 14, [&](std::int64_t x, int) {
            const std::size_t r = order[static_cast<std::size_t>(x)];
            offs[static_cast<std::size_t>(x) + 1] = offsets_[r + 1] - offsets_[r];
        });
        std::partial_sum(offs.begin(), offs.end(), offs.begin());
        BulkVector<std::int32_t> nodes(static_cast<std::size_t>(offs[k]));
        parallel_for(0, static_cast<std::int64_t>(k), threads, 1 << 14, [&](std::int64_t x0, int) {
            const auto x = static_cast<std::size_t>(x0);
            const std::size_t r = order[x];
            keys[x] = SepSets::pack(pairs_[2 * r], pairs_[2 * r + 1]);
            std::copy(nodes_.begin() + offsets_[r], nodes_.begin() + offsets_[r + 1], nodes.begin() + offs[x]);
        });
        return SepSets::adopt(std::move(keys), std::move(offs), std::move(nodes));
    }
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
            std::set_union(set.begin(), set.end(), nodes_.begin() + offsets_[r], nodes_.begin() + offsets_[r + 1],
                           std::back_inserter(merged));
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

SepSets transfer_sepsets(mpi::Communicator& comm, const SepSets* from_table, std::size_t first, std::size_t last,
                         int from, int to, int threads) {
    const int me = comm.rank();
    std::int64_t size[2] = {0, 0};
    std::int64_t base = 0;
    if (me == from) {
        base = from_table->offsets()[first];
        size[0] = static_cast<std::int64_t>(last - first);
        size[1] = from_table->offsets()[last] - base;
    }
    if (from != to && me != from && me != to) return {};  // point to point: not this rank's
    if (from != to) comm.transfer(size, 2, mpi::DataType::Int64, from, to);
    const auto k = static_cast<std::size_t>(size[0]), v = static_cast<std::size_t>(size[1]);
    BulkVector<std::int64_t> offs(k + 1);
    if (me == from)  // the part's offsets start at 0
        parallel_for(0, static_cast<std::int64_t>(k) + 1, threads, 1 << 16, [&](std::int64_t r, int) {
            offs[static_cast<std::size_t>(r)] = from_table->offsets()[first + static_cast<std::size_t>(r)] - base;
        });
    if (from == to) {
        if (me != to) return {};
        BulkVector<std::uint64_t> keys(k);
        BulkVector<std::int32_t> nodes(v);
        std::copy_n(from_table->keys().data() + first, k, keys.data());
        std::copy_n(from_table->nodes().data() + base, v, nodes.data());
        return SepSets::adopt(std::move(keys), std::move(offs), std::move(nodes));
    }
    if (me == from) {
        comm.transfer(const_cast<std::uint64_t*>(from_table->keys().data() + first), k, mpi::DataType::Int64, from, to);
        comm.transfer(offs.data(), k + 1, mpi::DataType::Int64, from, to);
        comm.transfer(const_cast<std::int32_t*>(from_table->nodes().data() + base), v, mpi::DataType::Int32, from, to);
        return {};
    }
    BulkVector<std::uint64_t> keys(k);
    BulkVector<std::int32_t> nodes(v);
    comm.transfer(keys.data(), k, mpi::DataType::Int64, from, to);
    comm.transfer(offs.data(), k + 1, mpi::DataType::Int64, from, to);
    comm.transfer(nodes.data(), v, mpi::DataType::Int32, from, to);
    return SepSets::adopt(std::move(keys), std::move(offs), std::move(nodes));
}

}  // namespace cudag::skeleton
