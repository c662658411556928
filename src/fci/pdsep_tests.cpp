// SPDX-License-Identifier: Apache-2.0
#include "fci/pdsep_tests.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/parallel.hpp"

namespace cudag::fci::detail {

namespace {

/// pcalg's sequence of conditioning sets for one edge, one set at a time.
class SetWalk {
public:
    SetWalk(std::vector<std::int32_t> tf, std::vector<std::int32_t> diff, const std::vector<std::int32_t>& adj,
            std::int64_t limit)
        : tf_(std::move(tf)), diff_(std::move(diff)), adj_(&adj), limit_(limit) {}

    /// The next set (sorted) into `s` and its order; false when the sequence is done.
    bool next(std::vector<std::int32_t>& s, int& order) {
        for (;;) {
            if (ord_ > limit_) return false;
            if (ord_ == 1) {
                if (idx_ < diff_.size()) {
                    s.assign(1, diff_[idx_++]);
                    order = 1;
                    return true;
                }
                ord_ = 2;
                fresh_ = true;
                continue;
            }
            const auto k = static_cast<std::size_t>(ord_);
            if (fresh_) {
                if (k > tf_.size()) {
                    ord_ = limit_ + 1;
                    continue;
                }
                pos_.resize(k);
                std::iota(pos_.begin(), pos_.end(), std::size_t{0});
                fresh_ = false;
            } else {  // combn's next position vector
                std::size_t i = k;
                while (i > 0 && pos_[i - 1] == tf_.size() - k + (i - 1)) --i;
                if (i == 0) {
                    ++ord_;
                    fresh_ = true;
                    continue;
                }
                ++pos_[i - 1];
                for (std::size_t j = i; j < k; ++j) pos_[j] = pos_[j - 1] + 1;
            }
            bool inside = true;
            s.resize(k);
            for (std::size_t i = 0; i < k; ++i) {
                s[i] = tf_[pos_[i]];
                inside = inside && std::binary_search(adj_->begin(), adj_->end(), s[i]);
            }
            if (inside && k <= adj_->size()) continue;  // tested at the skeleton's levels
            order = static_cast<int>(ord_);
            return true;
        }
    }

private:
    std::vector<std::int32_t> tf_, diff_;
    const std::vector<std::int32_t>* adj_;
    std::int64_t limit_;
    std::int64_t ord_ = 1;
    std::size_t idx_ = 0;
    bool fresh_ = true;
    std::vector<std::size_t> pos_;
};

}  // namespace

std::vector<EdgeOutcome> test_edges(std::span<const EdgeJob> jobs, const PdsepOptions& opt, Tester& tester,
                                    const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& on_round) {
    std::vector<EdgeOutcome> out(jobs.size());
    std::vector<SetWalk> walks;
    std::vector<std::size_t> active;  // job index per walk
    walks.reserve(jobs.size());
    for (std::size_t e = 0; e < jobs.size(); ++e) {
        const EdgeJob& j = jobs[e];
        const bool fixed = std::binary_search(opt.fixed_edges.begin(), opt.fixed_edges.end(),
                                              std::make_pair(std::min(j.x, j.y), std::max(j.x, j.y)));
        if (fixed) continue;
        std::vector<std::int32_t> tf, diff;
        tf.reserve(j.pdsep->size());
        for (const std::int32_t v : *j.pdsep)
            if (v != j.y) tf.push_back(v);
        if (opt.pdsep_max >= 0 && static_cast<std::int64_t>(tf.size()) > opt.pdsep_max) continue;
        for (const std::int32_t v : tf)
            if (!std::binary_search(j.adj->begin(), j.adj->end(), v)) diff.push_back(v);
        if (diff.empty()) continue;
        out[e].tested = true;
        const std::int64_t limit =
            std::min<std::int64_t>(static_cast<std::int64_t>(tf.size()),
                                   opt.max_level < 0 ? std::numeric_limits<std::int64_t>::max() : opt.max_level);
        if (limit < 1) continue;
        walks.emplace_back(std::move(tf), std::move(diff), *j.adj, limit);
        active.push_back(e);
    }
    std::vector<std::size_t> live(walks.size());  // walks still undecided
    std::iota(live.begin(), live.end(), std::size_t{0});
    const std::int64_t budget = std::max<std::int64_t>(1, tester.round_tests());
    std::int64_t decided = static_cast<std::int64_t>(jobs.size() - walks.size()), tests = 0;
    TestBatch batch;
    std::vector<int> orders;
    std::vector<std::int64_t> first;  // per live walk: its first query in the batch
    std::vector<double> p;
    // Per live edge and round, on the workers: its sets (flat) and their orders.
    struct Piece {
        std::vector<std::int32_t> nodes;
        std::vector<std::int64_t> ends;  // end of each set in nodes
        std::vector<int> orders;
        bool ended = false;
        bool done = false;
    };
    std::vector<Piece> pieces;
    const int threads = tester.threads();
    while (!live.empty()) {
        const std::int64_t quota = std::max<std::int64_t>(1, budget / static_cast<std::int64_t>(live.size()));
        const auto nl = static_cast<std::int64_t>(live.size());
        pieces.assign(live.size(), Piece{});
        parallel_for(0, nl, threads, 64, [&](std::int64_t k, int) {
            Piece& pc = pieces[static_cast<std::size_t>(k)];
            SetWalk& walk = walks[live[static_cast<std::size_t>(k)]];
            std::vector<std::int32_t> set;
            int order = 0;
            for (std::int64_t c = 0; c < quota; ++c) {
                if (!walk.next(set, order)) {
                    pc.ended = true;
                    break;
                }
                pc.nodes.insert(pc.nodes.end(), set.begin(), set.end());
                pc.ends.push_back(static_cast<std::int64_t>(pc.nodes.size()));
                pc.orders.push_back(order);
            }
        });
        // The batch: the edges' pieces in edge order (first[k]: edge k's first query).
        first.assign(live.size() + 1, 0);
        std::vector<std::int64_t> node_at(live.size() + 1, 0);
        for (std::size_t k = 0; k < live.size(); ++k) {
            first[k + 1] = first[k] + static_cast<std::int64_t>(pieces[k].orders.size());
            node_at[k + 1] = node_at[k] + static_cast<std::int64_t>(pieces[k].nodes.size());
        }
        const auto nq = static_cast<std::size_t>(first[live.size()]);
        batch.x.resize(nq);
        batch.y.resize(nq);
        batch.offsets.resize(nq + 1);
        batch.offsets[0] = 0;
        batch.nodes.resize(static_cast<std::size_t>(node_at[live.size()]));
        orders.resize(nq);
        parallel_for(0, nl, threads, 64, [&](std::int64_t k, int) {
            const auto uk = static_cast<std::size_t>(k);
            const Piece& pc = pieces[uk];
            const EdgeJob& j = jobs[active[live[uk]]];
            const auto q0 = static_cast<std::size_t>(first[uk]);
            const std::int64_t n0 = node_at[uk];
            std::copy(pc.nodes.begin(), pc.nodes.end(), batch.nodes.begin() + n0);
            for (std::size_t t = 0; t < pc.orders.size(); ++t) {
                batch.x[q0 + t] = j.x;
                batch.y[q0 + t] = j.y;
                batch.offsets[q0 + t + 1] = n0 + pc.ends[t];
                orders[q0 + t] = pc.orders[t];
            }
        });
        p.resize(nq);
        tester.p_values(batch, p);
        tests += static_cast<std::int64_t>(nq);
        // Each edge reads its answers in its sequence's order, up to its first separating set.
        parallel_for(0, nl, threads, 64, [&](std::int64_t k, int) {
            const auto uk = static_cast<std::size_t>(k);
            EdgeOutcome& o = out[active[live[uk]]];
            Piece& pc = pieces[uk];
            pc.done = pc.ended;
            for (std::int64_t q = first[uk]; q < first[uk + 1]; ++q) {
                const auto u = static_cast<std::size_t>(q);
                ++o.tests;
                o.pmax = std::max(o.pmax, p[u]);
                o.order = orders[u];
                if (tester.independent(p[u])) {
                    o.removed = true;
                    const auto set = batch.set(u);
                    o.set.assign(set.begin(), set.end());
                    pc.done = true;
                    break;
                }
            }
        });
        std::vector<std::size_t> still;
        for (std::size_t k = 0; k < live.size(); ++k) {
            if (pieces[k].done)
                ++decided;
            else
                still.push_back(live[k]);
        }
        live.swap(still);
        if (on_round) on_round(decided, static_cast<std::int64_t>(jobs.size()), tests);
    }
    return out;
}

}  // namespace cudag::fci::detail
