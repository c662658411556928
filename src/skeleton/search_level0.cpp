// SPDX-License-Identifier: Apache-2.0
// The level loop's level 0 and its background knowledge (skeleton/search.hpp).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"
#include "mpi/partition.hpp"
#include "skeleton/row_work.hpp"
#include "skeleton/search.hpp"

namespace cudag::skeleton::detail {
namespace {

/// Call fn(i, j) for every edge (i, j) of the rows [row_begin, row_end) of `g`.
template <class Fn>
void for_each_bit(const Graph& g, std::int64_t row_begin, std::int64_t row_end, Fn&& fn) {
    for (std::int64_t i = row_begin; i < row_end; ++i)
        g.for_each_neighbour(i, [&](std::int32_t j) { fn(static_cast<std::int32_t>(i), j); });
}

}  // namespace

using mpi::RowPartition;

void Search::add_upper_pairs(const std::int64_t* start, const std::int32_t* cols) {
    g_.add_upper_pairs(start, cols, threads_);
}

bool Search::share_level0_rows(const RowPartition& part, std::int64_t rb, std::int64_t re, bool csr,
                               Level0Output& out) {
    const int parts = part.parts();
    std::vector<std::int64_t> row_len(static_cast<std::size_t>(n_), 0);
    std::vector<std::int32_t> mine;      // this rank's upper lists, from the graph
    const std::int32_t* send = nullptr;  // ... or straight from the engine's CSR
    if (csr) {
        const std::int64_t* o = out.kept_offsets.data();
        for (std::int64_t i = rb; i < re; ++i) row_len[static_cast<std::size_t>(i)] = o[i + 1] - o[i];
        send = out.kept_cols.data() + o[rb];
    } else {
        for_each_bit(g_, rb, re, [&](std::int32_t i, std::int32_t j) {
            if (j <= i) return;
            mine.push_back(j);
            ++row_len[static_cast<std::size_t>(i)];
        });
    }
    std::vector<std::size_t> rows(static_cast<std::size_t>(parts)), kept(rows.size());
    for (int r = 0; r < parts; ++r)
        rows[static_cast<std::size_t>(r)] = static_cast<std::size_t>(part.end(r) - part.begin(r));
    comm_.allgatherv(row_len.data() + rb, row_len.data(), rows, mpi::DataType::Int64);
    for (int r = 0; r < parts; ++r)
        for (std::int64_t i = part.begin(r); i < part.end(r); ++i)
            kept[static_cast<std::size_t>(r)] += static_cast<std::size_t>(row_len[static_cast<std::size_t>(i)]);
    BulkVector<std::int32_t> all(std::accumulate(kept.begin(), kept.end(), std::size_t{0}));
    comm_.allgatherv(csr ? send : mine.data(), all.data(), kept, mpi::DataType::Int32);
    std::vector<std::int32_t>().swap(mine);
    trace_.mark("lists shared");
    // The graph again from the shared lists.
    BulkVector<std::int64_t> start(static_cast<std::size_t>(n_) + 1);
    start[0] = 0;
    std::partial_sum(row_len.begin(), row_len.end(), start.begin() + 1);
    g_ = Graph(n_);
    add_upper_pairs(start.data(), all.data());
    trace_.mark("graph rebuilt");
    if (!csr || dense_) return false;
    // The sparse table holds exactly the shared pairs; this rank's rows get their p
    // (row i's at kept_offsets[i].. in the engine's lists, at start[i].. in the table).
    CUDAG_ASSERT(!out.p_stayed);
    BulkVector<double> values(all.size());
    parallel_for(0, n_, threads_, 1 << 14, [&](std::int64_t i, int) {
        const auto b = static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i)]);
        const auto e = static_cast<std::ptrdiff_t>(start[static_cast<std::size_t>(i) + 1]);
        if (i >= rb && i < re)
            std::copy_n(out.kept_pvals.begin() + out.kept_offsets[static_cast<std::size_t>(i)], e - b,
                        values.begin() + b);
        else
            std::fill(values.begin() + b, values.begin() + e, -1.0);
    });
    pmax_ = PmaxTable::from_upper_csr(n_, std::move(start), std::move(all), std::move(values));
    return true;
}

void Search::level0() {
    const auto t0 = std::chrono::steady_clock::now();
    trace_.start();
    // Every rank runs all rows when the engine finds that cheaper than sharing.
    const bool everywhere = comm_.size() == 1 || (opt_.level0_on_every_rank < 0 ? engine_.level0_on_every_rank()
                                                                                : opt_.level0_on_every_rank != 0);
    Adjacency empty;
    empty.n = n_;
    const RowPartition part = mpi::partition_rows(row_work(empty, 0), everywhere ? 1 : comm_.size());
    const std::int64_t rb = everywhere ? 0 : part.begin(comm_.rank());
    const std::int64_t re = everywhere ? n_ : part.end(comm_.rank());
    Level0Output out;
    // Knowledge changes level 0's outcome on the host: the p-values come back.
    out.p_may_stay = results_->p_may_stay(everywhere) && !has_knowledge();
    out.adjacency_is_next = !has_knowledge();
    if (dense_) {
        pmax_ = PmaxTable::dense(n_, threads_);
        out.dense_p = std::move(pmax_.values());
    }
    mpi::run_agreed(comm_, [&] { engine_.level0(rb, re, dense_, g_, out); });
    trace_.mark("engine");
    const auto t_merge = std::chrono::steady_clock::now();
    const TestCount tests = everywhere ? TestCount{out.tests, 1.0} : count_tests(out.tests);
    const bool csr = !out.kept_offsets.empty();
    if (everywhere && out.adjacency.n == n_) {
        // Level 1 starts from the engine's CSR; the graph catches up when needed.
        next_ = std::move(out.adjacency);
        next_max_degree_ = next_.max_degree();
        have_next_ = true;
        graph_stale_ = true;
    } else if (csr && everywhere) {
        add_upper_pairs(out.kept_offsets.data(), out.kept_cols.data());
        trace_.mark("graph");
    }
    bool pmax_shared = false;
    if (!everywhere) pmax_shared = share_level0_rows(part, rb, re, csr, out);
    // The CSR of all rows counts the edges without a scan of the n² bits.
    std::int64_t edges = csr && everywhere ? out.kept_offsets.back() : g_.n_edges();
    bool from_level0 = everywhere && (dense_ || csr);
    if (dense_) {
        pmax_.values() = std::move(out.dense_p);
    } else if (csr && everywhere) {
        // The kept pairs are exactly the table's pairs, with their p-values.
        pmax_ = PmaxTable::from_upper_csr(n_, std::move(out.kept_offsets), std::move(out.kept_cols),
                                          std::move(out.kept_pvals));
    } else if (!pmax_shared) {
        for (std::int64_t i = rb; csr && i < re; ++i)
            for (std::int64_t k = out.kept_offsets[static_cast<std::size_t>(i)];
                 k < out.kept_offsets[static_cast<std::size_t>(i) + 1]; ++k)
                out.kept_p.push_back({static_cast<std::int32_t>(i), out.kept_cols[static_cast<std::size_t>(k)],
                                      out.kept_pvals[static_cast<std::size_t>(k)]});
        pmax_ = PmaxTable::sparse(g_, threads_);
        pmax_.raise_all(std::move(out.kept_p), threads_);
    }
    if (has_knowledge()) {
        edges = apply_knowledge_level0();
        from_level0 = false;
    }
    CUDAG_ASSERT(!out.p_stayed || out.p_may_stay);
    results_->level0_done(from_level0, out.p_stayed);
    trace_.mark("pmax");
    trace_.print("host level 0");
    LevelStats st;
    st.level = 0;
    st.tests = tests.total;
    st.tests_imbalance = tests.imbalance;
    st.edges_after = edges;
    st.removed = pair_count(n_) - st.edges_after;
    st.imbalance = everywhere ? 1.0 : part.imbalance;
    st.seconds = seconds_since(t0);
    if (!everywhere) st.merge_seconds = seconds_since(t_merge);
    end_level(st);
}

bool Search::listed(const std::vector<std::pair<std::int32_t, std::int32_t>>& pairs, std::int32_t i, std::int32_t j) {
    const std::pair<std::int32_t, std::int32_t> key(std::min(i, j), std::max(i, j));
    return std::binary_search(pairs.begin(), pairs.end(), key);
}

bool Search::knowledge_pair(std::int32_t i, std::int32_t j) const {
    return listed(opt_.forbidden_pairs, i, j) || listed(opt_.required_pairs, i, j);
}

std::int64_t Search::apply_knowledge_level0() {
    if (graph_stale_) sync_graph(next_);
    have_next_ = false;
    for (const auto& [i, j] : opt_.forbidden_pairs) g_.remove(i, j);
    for (const auto& [i, j] : opt_.required_pairs) g_.add(i, j);
    if (!dense_) {
        PairPList kept = pmax_.pairs(threads_);
        std::erase_if(kept, [this](const PairP& q) { return !g_.has(q.i, q.j); });
        pmax_ = PmaxTable::sparse(g_, threads_);
        pmax_.raise_all(std::move(kept), threads_);
    }
    trace_.mark("knowledge");
    return g_.n_edges();
}

void Search::keep_required(const LevelFrame& f) {
    const Adjacency& snap = *f.snap;
    using Pairs = std::vector<std::pair<std::int32_t, std::int32_t>>;
    const Pairs& frozen = frozen_;
    for (const Pairs* pairs : {&opt_.required_pairs, &frozen})
        for (const auto& [i, j] : *pairs)
            for (const auto& [a, b] : {std::pair{i, j}, std::pair{j, i}}) {
                const std::int64_t e = snap.find(a, b);
                CUDAG_ASSERT(e >= 0);
                if (e < f.eb || e >= f.ee) continue;  // another rank's entry
                if (out_.packed) {
                    const std::int64_t k = e - f.eb;
                    out_.removal_bits[static_cast<std::size_t>(k >> 3)] &= ~(std::byte{1} << (k & 7));
                } else {
                    out_.flags[static_cast<std::size_t>(e)] = 0;
                }
            }
}

void Search::freeze_bnlearn_pairs(const Adjacency& snap) {
    for (std::int64_t a = 0; a < n_; ++a) {
        const std::int32_t* ra = snap.row(a);
        const std::int64_t da = snap.degree(a);
        if (da - 1 >= 2) continue;  // a's side holds two nodes: examined at level 2
        for (std::int64_t k = 0; k < da; ++k) {
            const std::int32_t b = ra[k];
            if (b < a || next_.find(a, b) < 0) continue;  // the other's row, or removed at level 1
            std::int64_t others = 0;                      // adj(b) \ {a} \ adj(a)
            const std::int32_t* rb = snap.row(b);
            for (std::int64_t m = 0; m < snap.degree(b); ++m)
                if (rb[m] != a && !std::binary_search(ra, ra + da, rb[m])) ++others;
            if (others < 2) frozen_.emplace_back(static_cast<std::int32_t>(a), b);
        }
    }
}

void Search::drop_knowledge_pairs(SkeletonResult& res) const {
    if (!has_knowledge()) return;
    std::erase_if(res.pmax, [this](const PairP& q) { return knowledge_pair(q.i, q.j); });
    bool any = false;
    for (const std::uint64_t k : res.sepsets.keys()) {
        const auto [i, j] = SepSets::unpack(k);
        any = any || knowledge_pair(i, j);
    }
    if (!any) return;
    SepSets kept;
    const auto keys = res.sepsets.keys();
    const auto offs = res.sepsets.offsets();
    const auto nodes = res.sepsets.nodes();
    for (std::size_t r = 0; r < keys.size(); ++r) {
        const auto [i, j] = SepSets::unpack(keys[r]);
        if (knowledge_pair(i, j)) continue;
        kept.append_sorted(
            i, j, nodes.subspan(static_cast<std::size_t>(offs[r]), static_cast<std::size_t>(offs[r + 1] - offs[r])));
    }
    res.sepsets = std::move(kept);
}

}  // namespace cudag::skeleton::detail
