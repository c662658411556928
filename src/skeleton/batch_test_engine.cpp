// SPDX-License-Identifier: Apache-2.0
#include "skeleton/batch_test_engine.hpp"

#include <algorithm>
#include <iterator>
#include <span>
#include <utility>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"

namespace cudag::skeleton {

BatchTestEngine::BatchTestEngine(std::int64_t n_vars, std::unique_ptr<ci::BatchTest> batch, const TestPolicy& policy,
                                 int threads, std::int64_t batch_queries)
    : n_vars_(n_vars),
      batch_(std::move(batch)),
      policy_(policy),
      threads_(resolve_threads(threads)),
      batch_queries_(batch_queries) {
    CUDAG_EXPECTS(batch_ != nullptr, "BatchTestEngine: no batch test");
    CUDAG_EXPECTS(batch_queries_ >= 1, "BatchTestEngine: a batch holds at least one query");
    CUDAG_EXPECTS(!policy_.bnlearn_pairs, "BatchTestEngine: bnlearn's pair order is the CPU row search's (search_row)");
}

std::string BatchTestEngine::setup_note() const { return batch_->name() + " tests in batches on " + batch_->where(); }

void BatchTestEngine::run_batch(std::size_t size) {
    stat_.resize(size);
    p_.resize(size);
    if (size == 0) return;
    const ci::Queries q{std::span<const std::int32_t>(x_.data(), size), std::span<const std::int32_t>(y_.data(), size),
                        std::span<const std::int64_t>(offsets_.data(), size + 1),
                        std::span<const std::int32_t>(nodes_.data(), static_cast<std::size_t>(offsets_[size]))};
    batch_->run(q, stat_, p_);
    ++batches_;
}

void BatchTestEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    const std::int64_t n = n_vars_;
    std::vector<std::int64_t> base;  // row i_begin + r's first query at base[r]
    for (std::int64_t i_begin = row_begin; i_begin < row_end;) {
        // Whole rows [i_begin, i_end), as many as fill a batch (a row has fewer than n pairs).
        base.assign(1, 0);
        std::int64_t i_end = i_begin;
        for (; i_end < row_end && base.back() < batch_queries_; ++i_end) base.push_back(base.back() + n - 1 - i_end);
        const auto size = static_cast<std::size_t>(base.back());
        x_.resize(size);
        y_.resize(size);
        offsets_.assign(size + 1, 0);
        nodes_.clear();
        const auto first = [&](std::int64_t i) { return base[static_cast<std::size_t>(i - i_begin)]; };
        parallel_for(i_begin, i_end, threads_, 8, [&](std::int64_t i, int) {
            std::int64_t k = first(i);
            for (std::int64_t j = i + 1; j < n; ++j, ++k) {
                x_[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(i);
                y_[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(j);
            }
        });
        run_batch(size);
        if (dense)
            parallel_for(i_begin, i_end, threads_, 8, [&](std::int64_t i, int) {
                const std::int64_t at = pair_row_begin(i, n) - i - 1;  // + j: pair_index(i, j, n)
                std::int64_t k = first(i);
                for (std::int64_t j = i + 1; j < n; ++j, ++k)
                    out.dense_p[static_cast<std::size_t>(at + j)] = p_[static_cast<std::size_t>(k)];
            });
        // Dependent pairs row by row (level0_rows' kept pairs, in row-major order).
        for (std::int64_t i = i_begin; i < i_end; ++i) {
            std::int64_t k = first(i);
            for (std::int64_t j = i + 1; j < n; ++j, ++k) {
                const double p = p_[static_cast<std::size_t>(k)];
                if (policy_.independent(p)) continue;
                g.add(i, j);
                if (!dense) out.kept_p.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), p});
            }
        }
        out.tests += base.back();
        i_begin = i_end;
    }
}

namespace {

/// One row's walk through its l-subsets at a level (the block's part of the row).
struct RowWalk {
    std::int64_t row = 0;
    std::int64_t qb = 0, qe = 0;  ///< the block's positions [qb, qe) in the row
    std::int64_t open = 0;        ///< of those, not separated yet (not exhaustive)
    std::int64_t tests = 0;
    bool last = false;  ///< the walk has passed its last set
    // This round's chunk: at most `want` queries (or one set's), then `sets` sets walked from
    // the cursor (sets without a query included), their queries at [first, first + count).
    std::int64_t want = 0, sets = 0;
    std::int64_t first = 0, count = 0;
};

/// One worker's scratch for laying rows out.
struct Scratch {
    std::vector<int> c;
    std::vector<char> in_set;
    std::vector<std::int32_t> open_pos;
};

}  // namespace

void BatchTestEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    const int l = level;
    const bool exhaustive = policy_.exhaustive;
    const auto lz = static_cast<std::size_t>(l);

    // The rows with something to test, each at its first set (positions 0 .. l-1).
    std::vector<RowWalk> walks;
    for (std::int64_t i = block.row_begin; i < block.row_end; ++i) {
        const auto [qb, qe] = block.positions(snap, i);
        if (snap.degree(i) - 1 < l || qe <= qb) continue;
        RowWalk w;
        w.row = i;
        w.qb = qb;
        w.qe = qe;
        w.open = qe - qb;
        walks.push_back(w);
    }
    std::vector<int> cursor(walks.size() * lz);  // walk r's current set at [r l, (r + 1) l)
    for (std::size_t r = 0; r < walks.size(); ++r)
        for (int t = 0; t < l; ++t) cursor[r * lz + static_cast<std::size_t>(t)] = t;
    std::vector<std::size_t> active(walks.size()), next, round;
    for (std::size_t r = 0; r < walks.size(); ++r) active[r] = r;
    std::vector<Scratch> scratch(static_cast<std::size_t>(threads_));
    std::int64_t max_degree = 0;
    for (const RowWalk& w : walks) max_degree = std::max(max_degree, snap.degree(w.row));
    for (Scratch& s : scratch) {
        s.c.resize(lz);
        s.in_set.assign(static_cast<std::size_t>(max_degree), 0);
    }
    // Whether the entry at position q of walk w's row is still to be separated.
    const auto is_open = [&](const RowWalk& w, std::int64_t q) {
        return exhaustive || !(out.flags[static_cast<std::size_t>(snap.offsets[w.row] + q)] & kSeparated);
    };

    while (!active.empty()) {
        interrupt::poll();  // Ctrl-C in a binding, between rounds (core/interrupt.hpp)
        // Plan the round: the active rows from the front (the list rotates, so every row
        // gets its turn), each a chunk of consecutive sets, until the batch is full. A row's
        // share is the batch over the active rows; unless exhaustive, also at most 4 times
        // the queries of its last chunk (at first, one set's): the tests of an entry queued
        // after its first separating set are dropped, and most entries separated at all are
        // separated by their first sets. A chunk also ends after `max_sets` sets, so that a
        // round's work stays bounded where sets queue nothing (every open entry in them).
        const std::int64_t share = std::max<std::int64_t>(1, batch_queries_ / static_cast<std::int64_t>(active.size()));
        const std::int64_t max_sets = std::max<std::int64_t>(batch_queries_, std::int64_t{1} << 16);
        round.clear();
        std::int64_t planned = 0;
        for (std::size_t t = 0; t < active.size() && planned < batch_queries_; ++t) {
            RowWalk& w = walks[active[t]];
            const std::int64_t per_set = exhaustive ? w.qe - w.qb : w.open;  // a set's queries, at most
            w.want = std::min(share, batch_queries_ - planned);
            if (!exhaustive) w.want = std::min(w.want, std::max(per_set, 4 * w.count));
            planned += std::max(w.want, per_set);
            round.push_back(active[t]);
        }

        // Each row's chunk: its sets and exact number of queries; then their places.
        parallel_for(0, static_cast<std::int64_t>(round.size()), threads_, 1, [&](std::int64_t k, int worker) {
            RowWalk& w = walks[round[static_cast<std::size_t>(k)]];
            std::vector<int>& c = scratch[static_cast<std::size_t>(worker)].c;
            std::copy_n(cursor.begin() + static_cast<std::ptrdiff_t>(round[static_cast<std::size_t>(k)] * lz), l,
                        c.begin());
            const int d = static_cast<int>(snap.degree(w.row));
            const std::int64_t per_set = exhaustive ? w.qe - w.qb : w.open;
            w.count = 0;
            w.sets = 0;
            while (w.sets < max_sets) {
                std::int64_t n = per_set;
                for (int t = 0; t < l; ++t)
                    if (c[t] >= w.qb && c[t] < w.qe && is_open(w, c[t])) --n;
                if (w.count > 0 && w.count + n > w.want) break;
                w.count += n;
                ++w.sets;
                if (!next_combination(c.data(), l, d)) break;
            }
        });
        std::int64_t total = 0;
        for (const std::size_t r : round) {
            walks[r].first = total;
            total += walks[r].count;
        }
        const auto size = static_cast<std::size_t>(total);
        x_.resize(size);
        y_.resize(size);
        pos_.resize(size);
        nodes_.resize(size * lz);
        offsets_.resize(size + 1);
        offsets_[0] = 0;

        // Lay the chunks out: set by set, and within a set the open positions in order.
        parallel_for(0, static_cast<std::int64_t>(round.size()), threads_, 1, [&](std::int64_t k, int worker) {
            const std::size_t r = round[static_cast<std::size_t>(k)];
            RowWalk& w = walks[r];
            Scratch& sc = scratch[static_cast<std::size_t>(worker)];
            int* c = cursor.data() + r * lz;
            const std::int32_t* nb = snap.row(w.row);
            const int d = static_cast<int>(snap.degree(w.row));
            sc.open_pos.clear();
            for (std::int64_t q = w.qb; q < w.qe; ++q)
                if (is_open(w, q)) sc.open_pos.push_back(static_cast<std::int32_t>(q));
            auto at = static_cast<std::size_t>(w.first);
            for (std::int64_t s = 0; s < w.sets; ++s) {
                for (int t = 0; t < l; ++t) sc.in_set[static_cast<std::size_t>(c[t])] = 1;
                for (const std::int32_t q : sc.open_pos) {
                    if (sc.in_set[static_cast<std::size_t>(q)]) continue;
                    x_[at] = static_cast<std::int32_t>(w.row);
                    y_[at] = nb[q];
                    pos_[at] = q;
                    for (int t = 0; t < l; ++t) nodes_[at * lz + static_cast<std::size_t>(t)] = nb[c[t]];
                    offsets_[at + 1] = static_cast<std::int64_t>((at + 1) * lz);
                    ++at;
                }
                for (int t = 0; t < l; ++t) sc.in_set[static_cast<std::size_t>(c[t])] = 0;
                if (!next_combination(c, l, d)) {
                    w.last = true;
                    break;
                }
            }
            CUDAG_ASSERT(static_cast<std::int64_t>(at) == w.first + w.count);
        });

        run_batch(size);

        // Replay each row's answers in search_row's order.
        parallel_for(0, static_cast<std::int64_t>(round.size()), threads_, 1, [&](std::int64_t k, int) {
            RowWalk& w = walks[round[static_cast<std::size_t>(k)]];
            const std::int64_t e0 = snap.offsets[w.row];
            for (std::int64_t a = w.first; a < w.first + w.count; ++a) {
                const auto ua = static_cast<std::size_t>(a);
                const auto e = static_cast<std::size_t>(e0 + pos_[ua]);
                // Separated by an earlier set of this chunk: search_row never ran this test.
                if (!exhaustive && (out.flags[e] & kSeparated)) continue;
                const double p = p_[ua];
                ++w.tests;
                out.flags[e] |= kTested;
                out.pmax[e] = std::max(out.pmax[e], p);
                if (!policy_.independent(p)) continue;
                out.flags[e] |= kSeparated;
                const std::span<const std::int32_t> s(nodes_.data() + ua * lz, lz);
                if (!exhaustive) {
                    std::copy(s.begin(), s.end(), out.set_slot(e));
                    --w.open;
                } else {
                    std::vector<std::int32_t> u;
                    auto& un = out.unions[e];
                    std::set_union(un.begin(), un.end(), s.begin(), s.end(), std::back_inserter(u));
                    un.swap(u);
                }
            }
        });

        // The next round starts with the rows this one did not reach; finished rows leave.
        next.clear();
        for (std::size_t t = 0; t < active.size(); ++t) {
            const std::size_t r = active[(round.size() + t) % active.size()];
            if (!walks[r].last && (exhaustive || walks[r].open > 0)) next.push_back(r);
        }
        active.swap(next);
    }
    for (const RowWalk& w : walks) out.tests += w.tests;
}

double BatchTestEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    x_.assign(1, i);
    y_.assign(1, j);
    offsets_.assign({0, static_cast<std::int64_t>(s.size())});
    nodes_.assign(s.begin(), s.end());
    run_batch(1);
    return p_[0];
}

bool BatchTestEngine::test_batch(const FlatQueries& queries, std::span<double> statistic, std::span<double> p) {
    if (queries.size() == 0) return true;
    batch_->run(queries, statistic, p);
    ++batches_;
    return true;
}

std::unique_ptr<SkeletonEngine> make_batch_test_engine(std::int64_t n_vars, std::unique_ptr<ci::BatchTest> batch,
                                                       const TestPolicy& policy, int threads, std::string name) {
    auto engine = std::make_unique<BatchTestEngine>(n_vars, std::move(batch), policy, threads);
    engine->set_name(std::move(name));
    return engine;
}

}  // namespace cudag::skeleton
