// SPDX-License-Identifier: Apache-2.0
// The order-MCMC chains on a GPU (issue 21): OrderChainsGpu over the chain kernels
// (bn_chain_kernels.cu). The table's lists (max mode) or scores (sum mode) are copied to the
// device once; advance() stages the chains' states, runs the iterations on the device
// context's stream and copies the states back, bit for bit what bn::advance_chains gives.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bn_chain_kernels.cuh"
#include "bn_engines.hpp"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {
namespace {

class ChainsImpl final : public OrderChainsGpu {
public:
    ChainsImpl(const bn::ScoreTable& table, const bn::OrderMcmcOptions& opts, int device)
        : binding_(device), device_(device), ctx_(DeviceContext::for_device(device)), table_(table), opts_(opts) {
        DeviceGuard guard(device_);
        CUDAG_EXPECTS(opts.mode == bn::OrderScoreMode::Sum || table.has_sorted(),
                      "the CUDA max-mode chains need the table's score-sorted lists");
        CUDAG_EXPECTS(table.max_parents() <= kMaxParentsGpu,
                      "the CUDA chains take at most " + std::to_string(kMaxParentsGpu) + " parents");
        const std::int64_t n = table.n_nodes();
        const int s = table.max_parents(), w = std::max(s, 1);
        const auto total = static_cast<std::size_t>(table.total_entries());
        const auto listed = static_cast<std::size_t>(table.has_sorted() ? table.sorted_entries() : 0);
        // Max mode reads the sorted lists alone (they carry their scores): the table stays
        // on the host, and a table split over ranks need not be whole (bn/table_split.hpp).
        const bool sum = opts.mode == bn::OrderScoreMode::Sum;
        CUDAG_EXPECTS(!sum || table.holds_all(), "the sum-mode chains need the whole score table");
        scores_.resize_discard(sum ? total : 1);
        sorted_off_.resize_discard(std::max<std::size_t>(listed, 1));
        sorted_par_.resize_discard(std::max<std::size_t>(listed * w, 1));
        sorted_score_.resize_discard(std::max<std::size_t>(listed, 1));
        std::vector<std::int64_t> node_off(n + 1), list_start(n + 1), cand_start(n + 1), extra_start(n + 1), so, xo;
        std::vector<std::int32_t> cand, extra;
        for (std::int32_t v = 0; v < n; ++v) {
            node_off[v] = table.node_offset(v);
            if (sum) {
                const auto sc = table.node_scores(v);
                scores_.upload(sc.data(), sc.size(), ctx_.stream(), node_off[v]);
            }
            if (table.has_sorted()) {
                const auto off = table.sorted_offsets(v);
                sorted_off_.upload(off.data(), off.size(), ctx_.stream(), list_start[v]);
                const auto ss = table.sorted_scores(v);
                sorted_score_.upload(ss.data(), ss.size(), ctx_.stream(), list_start[v]);
                const auto par = table.sorted_parents(v);
                sorted_par_.upload(par.data(), par.size(), ctx_.stream(), list_start[v] * w);
                list_start[v + 1] = list_start[v] + static_cast<std::int64_t>(off.size());
            }
            cand_start[v] = static_cast<std::int64_t>(cand.size());
            for (const std::int32_t u : table.candidates(v)) cand.push_back(u);
            extra_start[v] = static_cast<std::int64_t>(extra.size());
            for (const std::int32_t u : table.extras(v)) extra.push_back(u);
            for (int k = 0; k <= s + 1; ++k) so.push_back(table.size_offset(v, k));
            for (int k = 0; k <= s; ++k) xo.push_back(table.extra_offset(v, k));
        }
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
        node_off[n] = table.total_entries();
        cand_start[n] = static_cast<std::int64_t>(cand.size());
        extra_start[n] = static_cast<std::int64_t>(extra.size());
        put(node_off_, node_off);
        put(list_start_, list_start);
        put(cand_start_, cand_start);
        put(extra_start_, extra_start);
        put(cand_, cand);
        put(extra_, extra);
        put(so_, so);
        put(xo_, xo);
        // Sum mode's subset rows, where the table has them (the nodes without enumerate).
        std::vector<std::int64_t> row_off(n, -1);
        if (sum && table.has_any_rows()) {
            const auto rows = table.all_rows();
            rows_.resize_discard(rows.size());
            rows_.upload(rows.data(), rows.size(), ctx_.stream());
            for (std::int32_t v = 0; v < n; ++v) row_off[v] = table.row_offset(v);
        } else {
            rows_.resize_discard(1);
        }
        put(row_off_, row_off);
        put(binom_, binomial_table(n, s));
        T_.binom = {binom_.data(), s + 2};
        T_.n = n;
        T_.s = s;
        T_.w = w;
        T_.scores = scores_.data();
        T_.node_off = node_off_.data();
        T_.list_start = list_start_.data();
        T_.sorted_off = sorted_off_.data();
        T_.sorted_par = sorted_par_.data();
        T_.sorted_score = sorted_score_.data();
        T_.cand = cand_.data();
        T_.cand_start = cand_start_.data();
        T_.extra = extra_.data();
        T_.extra_start = extra_start_.data();
        T_.so = so_.data();
        T_.xo = xo_.data();
        T_.rows = rows_.data();
        T_.row_off = row_off_.data();
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    }

    ~ChainsImpl() override { binding_.bind(); }

    void advance(std::span<bn::ChainState> states, std::int64_t until) override {
        DeviceGuard guard(device_);
        if (states.empty() || table_.n_nodes() < 2) {
            // Nothing to swap: the CPU's walker only counts iterations.
            bn::advance_chains(table_, opts_, states, until);
            return;
        }
        const std::int64_t n = table_.n_nodes(), nc = static_cast<std::int64_t>(states.size());
        const std::int64_t cap = opts_.iterations > opts_.burn_in ? (opts_.iterations - opts_.burn_in) / opts_.thin : 0;
        // Host staging of the states.
        std::vector<std::int64_t> id(nc), since(nc * n), accepted(nc), kept(nc), done(nc);
        std::vector<std::int32_t> order(nc * n), pos(nc * n), best_order(nc * n);
        std::vector<double> score(nc), best(nc), trace(std::max<std::int64_t>(nc * cap, 1), 0.0);
        std::int64_t first = until;
        for (std::int64_t c = 0; c < nc; ++c) {
            const bn::ChainState& st = states[c];
            id[c] = st.chain;
            std::copy(st.order.begin(), st.order.end(), order.begin() + c * n);
            for (std::int64_t k = 0; k < n; ++k) pos[c * n + st.order[k]] = static_cast<std::int32_t>(k);
            std::copy(st.best_order.begin(), st.best_order.end(), best_order.begin() + c * n);
            std::copy(st.since.begin(), st.since.end(), since.begin() + c * n);
            std::copy(st.trace.begin(), st.trace.end(), trace.begin() + c * cap);
            accepted[c] = st.accepted;
            kept[c] = st.kept;
            done[c] = st.done;
            score[c] = st.score;
            best[c] = st.best_score;
            first = std::min(first, st.done);
        }
        put(id_, id);
        put(order_, order);
        put(pos_, pos);
        put(best_order_, best_order);
        put(since_, since);
        put(trace_, trace);
        put(accepted_, accepted);
        put(kept_, kept);
        put(done_, done);
        put(score_, score);
        put(best_, best);
        edge_sum_.resize_discard(nc * n * n);
        edge_sumsq_.resize_discard(nc * n * n);
        for (std::int64_t c = 0; c < nc; ++c) {
            edge_sum_.upload(states[c].edge_sum.data(), n * n, ctx_.stream(), c * n * n);
            edge_sumsq_.upload(states[c].edge_sumsq.data(), n * n, ctx_.stream(), c * n * n);
        }
        node_.resize_discard(nc * n);
        best_off_.resize_discard(nc * n);
        prop_node_.resize_discard(nc * n);
        prop_off_.resize_discard(nc * n);
        const bool sum = opts_.mode == bn::OrderScoreMode::Sum;
        if (sum) {
            col_.resize_discard(nc * n * n);
            prop_col_.resize_discard(nc * n * n);
            scratch_.resize_discard(nc * n * 2 * n);
            acc_.resize_discard(nc * n * 2 * (n + 1));
        }
        ChainsView C;
        C.chains = nc;
        C.trace_cap = cap;
        C.seed = opts_.seed;
        C.moves = opts_.moves;
        C.burn_in = opts_.burn_in;
        C.thin = opts_.thin;
        C.id = id_.data();
        C.order = order_.data();
        C.pos = pos_.data();
        C.node = node_.data();
        C.best_off = best_off_.data();
        C.since = since_.data();
        C.edge_sum = edge_sum_.data();
        C.edge_sumsq = edge_sumsq_.data();
        C.trace = trace_.data();
        C.best_order = best_order_.data();
        C.score = score_.data();
        C.best_score = best_.data();
        C.accepted = accepted_.data();
        C.kept = kept_.data();
        C.done = done_.data();
        C.prop_node = prop_node_.data();
        C.prop_off = prop_off_.data();
        C.sum_mode = sum ? 1 : 0;
        C.col = col_.data();
        C.prop_col = prop_col_.data();
        C.scratch = scratch_.data();
        C.acc = acc_.data();
        launch_chain_init(T_, C, ctx_.stream());
        if (opts_.moves == bn::MoveSet::Bidag) {
            // Mostly adjacent swaps (two nodes an iteration): a block per chain runs every
            // iteration of the segment without a launch per iteration.
            launch_chain_run(T_, C, first, until, ctx_.stream());
        } else {
            // Swaps of any two positions (a third of the nodes an iteration): a block per
            // rescored node, two launches per iteration.
            for (std::int64_t t = first + 1; t <= until; ++t) {
                launch_chain_rescore(T_, C, t, ctx_.stream());
                launch_chain_accept(T_, C, t, ctx_.stream());
            }
        }
        // Back to the states.
        get(order_, order);
        get(best_order_, best_order);
        get(since_, since);
        get(trace_, trace);
        get(accepted_, accepted);
        get(kept_, kept);
        get(done_, done);
        get(score_, score);
        get(best_, best);
        for (std::int64_t c = 0; c < nc; ++c) {
            bn::ChainState& st = states[c];
            edge_sum_.download(st.edge_sum.data(), n * n, ctx_.stream(), c * n * n);
            edge_sumsq_.download(st.edge_sumsq.data(), n * n, ctx_.stream(), c * n * n);
        }
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
        for (std::int64_t c = 0; c < nc; ++c) {
            bn::ChainState& st = states[c];
            std::copy_n(order.begin() + c * n, n, st.order.begin());
            std::copy_n(best_order.begin() + c * n, n, st.best_order.begin());
            std::copy_n(since.begin() + c * n, n, st.since.begin());
            st.trace.assign(trace.begin() + c * cap, trace.begin() + c * cap + kept[c]);
            st.accepted = accepted[c];
            st.kept = kept[c];
            st.done = done[c];
            st.score = score[c];
            st.best_score = best[c];
        }
    }

private:
    template <class T>
    void put(DeviceBuffer<T>& d, const std::vector<T>& h) {
        d.resize_discard(std::max<std::size_t>(h.size(), 1));
        d.upload(h.data(), h.size(), ctx_.stream());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    }
    template <class T>
    void get(const DeviceBuffer<T>& d, std::vector<T>& h) {
        d.download(h.data(), h.size(), ctx_.stream());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream()));
    }

    DeviceBinding binding_;  // first: see the destructor
    int device_;
    DeviceContext& ctx_;  ///< the device's stream and block cache
    const bn::ScoreTable& table_;
    bn::OrderMcmcOptions opts_;
    TableView T_;
    DeviceBuffer<double> scores_;
    DeviceBuffer<std::uint32_t> sorted_off_;
    DeviceBuffer<std::uint16_t> sorted_par_;
    DeviceBuffer<double> sorted_score_;
    DeviceBuffer<std::int64_t> node_off_, list_start_, cand_start_, extra_start_, so_, xo_, binom_, row_off_;
    DeviceBuffer<double> rows_;  ///< sum mode's subset rows (bn::ScoreTable::build_subset_rows)
    DeviceBuffer<std::int32_t> cand_, extra_;
    DeviceBuffer<std::int64_t> id_, since_, accepted_, kept_, done_;
    DeviceBuffer<std::int32_t> order_, pos_, best_order_, scratch_;
    DeviceBuffer<unsigned long long> acc_;
    DeviceBuffer<double> node_, edge_sum_, edge_sumsq_, trace_, score_, best_, prop_node_, col_, prop_col_;
    DeviceBuffer<std::uint32_t> best_off_, prop_off_;
};

}  // namespace

std::unique_ptr<OrderChainsGpu> make_order_chains_gpu(const bn::ScoreTable& table, const bn::OrderMcmcOptions& opts,
                                                      int device) {
    return std::make_unique<ChainsImpl>(table, opts, device);
}

}  // namespace cudag::cuda
