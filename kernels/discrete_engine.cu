// SPDX-License-Identifier: Apache-2.0
// CUDA discrete (χ²/G²) skeleton engine: implements skeleton::SkeletonEngine with the kernel of
// pc_discrete.cu (gpuPC scheme). The codes (one byte per value) and the cardinalities live
// on the device; each level uploads its snapshot and work items.
//
// Results equal the CPU engine's (skeleton::CpuDiscreteEngine): the same kept pairs at level 0
// and, at each level l >= 1, the same separated entries, lexicographically smallest
// separating sets and pMax, up to the last bits of p (the CPU sums a stratum over its
// observed cells, the GPU over the dense table; the order of additions differs). Test
// counts are the tests the GPU ran (at levels >= 1 usually more than the CPU's).
// test_batch (FCI's later stages, citest) is exact: discrete_batch.cu keeps the CPU's
// order of additions and leaves the transcendental functions to the host.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "discrete_batch.cuh"
#include "engines.hpp"
#include "pc_discrete.cuh"
#include "skeleton/cpu/discrete_engine.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;
constexpr u64 kNoRank = ULLONG_MAX;
constexpr std::size_t kSharedLimit = 48 * 1024;
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;
constexpr int kMaxLevel = 64;  // = the kernel's local array size

class CudaDiscreteEngine final : public skeleton::SkeletonEngine {
public:
    CudaDiscreteEngine(ci::DiscreteCodes codes, std::vector<std::string> names, const skeleton::TestPolicy& policy,
                       const ci::DiscreteTestSpec& test, const DiscreteTunables& t, int device)
        : binding_(device),
          names_(std::move(names)),
          device_(device),
          policy_(policy),
          test_(test),
          tun_(t),
          cards_(codes.cards),
          n_(codes.n_vars),
          m_(codes.n_samples),
          cpu_(codes, policy, test, 1),
          ctx_(DeviceContext::for_device(device)) {
        CUDAG_EXPECTS(tun_.delta >= 1 && tun_.gamma >= 1 && tun_.delta * tun_.gamma <= 1024,
                      "cuda discrete: need delta, gamma >= 1 and delta * gamma <= 1024");
        DeviceGuard guard(device_);
        codes_.resize_discard(codes.codes.size());
        codes_.upload(codes.codes.data(), codes.codes.size(), stream());
        dcards_.resize_discard(cards_.size());
        dcards_.upload(cards_.data(), cards_.size(), stream());
        tests_.resize_discard(1);
        ctx_.synchronize();
    }

    ~CudaDiscreteEngine() override {
        // The members free their buffers after this body, with the engine's device current
        // (binding_ is the first member: it is destroyed last); the stream is the device
        // context's.
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    std::string name() const override { return "cuda"; }
    std::int64_t n_vars() const override { return n_; }

    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                skeleton::Level0Output& out) override {
        DeviceGuard guard(device_);
        std::vector<int2> items;
        std::int64_t words = 0;
        for (std::int64_t i = row_begin; i < row_end; ++i)
            for (std::int64_t j = i + 1; j < n_; ++j) {
                items.push_back(make_int2(static_cast<int>(i), static_cast<int>(j)));
                words = std::max<std::int64_t>(words, std::int64_t(cards_[i]) * cards_[j] + cards_[i] + cards_[j]);
            }
        if (items.empty()) return;
        DiscreteLevelArgs a = args(0, items, words);
        p_.resize_discard(items.size());
        a.p_out = p_.data();
        launch(a);
        std::vector<double> p(items.size());
        p_.download(p.data(), p.size(), stream());
        u64 tests = 0;
        tests_.download(&tests, 1, stream());
        ctx_.synchronize();
        for (std::size_t k = 0; k < items.size(); ++k) {
            const std::int64_t i = items[k].x, j = items[k].y;
            if (dense) out.dense_p[i * n_ - i * (i + 1) / 2 + (j - i - 1)] = p[k];
            if (policy_.independent(p[k])) continue;
            g.add(i, j);
            if (!dense) out.kept_p.push_back({items[k].x, items[k].y, p[k]});
        }
        out.tests += static_cast<std::int64_t>(tests);
    }

    bool splits_rows() const override { return true; }  // an item per entry

    void run_level(int level, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        CUDAG_EXPECTS(level <= kMaxLevel, "cuda discrete: levels above 64 are not supported");
        DeviceGuard guard(device_);
        std::vector<int2> items;
        std::int64_t words = 0;
        for (std::int64_t i = block.row_begin; i < block.row_end; ++i) {
            const std::int64_t d = snap.degree(i);
            if (d - 1 < level) continue;
            const auto [qb, qe] = block.positions(snap, i);
            if (qe <= qb) continue;
            for (std::int64_t q = qb; q < qe; ++q) items.push_back(make_int2(static_cast<int>(i), static_cast<int>(q)));
            words = std::max(words, row_words(snap, i, level));
        }
        if (items.empty()) return;
        const std::size_t entries = snap.nbrs.size();
        offsets_.resize_discard(snap.offsets.size());
        offsets_.upload(snap.offsets.data(), snap.offsets.size(), stream());
        nbrs_.resize_discard(entries);
        nbrs_.upload(snap.nbrs.data(), entries, stream());
        best_.resize_discard(entries);
        best_.fill_bytes(0xff, stream());
        pmax_.resize_discard(entries);
        pmax_.fill_bytes(0, stream());
        p_.resize_discard(entries);
        DiscreteLevelArgs a = args(level, items, words);
        a.offsets = offsets_.data();
        a.nbrs = nbrs_.data();
        a.best = best_.data();
        a.pmax = pmax_.data();
        a.p_out = p_.data();
        launch(a);
        a.winner_pass = true;
        launch(a);
        std::vector<u64> best(entries), pmax(entries);
        std::vector<double> pwin(entries);
        best_.download(best.data(), entries, stream());
        pmax_.download(pmax.data(), entries, stream());
        p_.download(pwin.data(), entries, stream());
        u64 tests = 0;
        tests_.download(&tests, 1, stream());
        ctx_.synchronize();
        std::vector<int> c(static_cast<std::size_t>(level));
        for (const int2& it : items) {
            const std::int64_t e0 = snap.offsets[it.x], e = e0 + it.y;
            const int d = static_cast<int>(snap.degree(it.x));
            out.flags[e] = skeleton::kTested;
            if (best[e] == kNoRank) {
                out.pmax[e] = std::bit_cast<double>(static_cast<std::uint64_t>(pmax[e]));
                continue;
            }
            out.flags[e] |= skeleton::kSeparated;
            out.pmax[e] = pwin[e];
            combination_unrank(static_cast<std::int64_t>(best[e]), level, d - 1, c.data());
            std::int32_t* slot = out.set_slot(static_cast<std::size_t>(e));
            for (int t = 0; t < level; ++t) slot[t] = snap.nbrs[e0 + c[t] + (c[t] >= it.y)];
        }
        out.tests += static_cast<std::int64_t>(tests);
    }

    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return cpu_.p_value(i, j, s);
    }

    /// Any queries (discrete_batch.cuh): the device takes those whose strata keys fit in 62
    /// bits, the CPU engine the others; either way the CPU test's statistic and p bit for bit.
    bool test_batch(const skeleton::FlatQueries& q, std::span<double> statistic, std::span<double> p) override {
        const std::size_t nq = q.size();
        if (nq == 0) return true;
        CUDAG_EXPECTS(q.y.size() == nq && q.offsets.size() == nq + 1 && statistic.size() >= nq && p.size() >= nq,
                      "cuda discrete: malformed test batch");
        const std::int64_t base = q.offsets[0];
        const auto set = [&](std::size_t k) {
            return q.nodes.subspan(static_cast<std::size_t>(q.offsets[k] - base),
                                   static_cast<std::size_t>(q.offsets[k + 1] - q.offsets[k]));
        };
        const auto in_range = [&](std::int32_t v) { return v >= 0 && v < n_; };
        std::vector<std::size_t> device, host;
        for (std::size_t k = 0; k < nq; ++k) {
            const std::span<const std::int32_t> s = set(k);
            CUDAG_EXPECTS(in_range(q.x[k]) && in_range(q.y[k]) && std::all_of(s.begin(), s.end(), in_range),
                          "cuda discrete: a batch query names a variable out of range");
            (discrete_batch_fits(cards_, s) ? device : host).push_back(k);
        }
        if (!device.empty()) {
            DeviceGuard guard(device_);
            discrete_batch_tests({codes_.data(), cards_, m_}, test_.stat, test_.dof, q, device, statistic, p, {},
                                 stream());
        }
        for (const std::size_t k : host) {
            const std::span<const std::int32_t> s = set(k);
            const auto r = cpu_.test(q.x[k], q.y[k], std::vector<std::int32_t>(s.begin(), s.end()));
            statistic[k] = r.statistic;
            p[k] = r.p;
        }
        for (std::size_t k = 0; k < nq; ++k) {
            if (std::isfinite(statistic[k]) && std::isfinite(p[k])) continue;
            std::string given;
            for (const std::int32_t v : set(k)) given += (given.empty() ? "'" : ", '") + names_[v] + "'";
            throw InputError("cuda discrete: the test of '" + names_[q.x[k]] + "' and '" + names_[q.y[k]] +
                             "' given {" + given + "} gave a non-finite " +
                             (std::isfinite(statistic[k]) ? "p-value" : "statistic"));
        }
        return true;
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    /// Upper bound of one group's table words for row i at level l: r_i · r_max · (product
    /// of the l largest neighbour cards) cells plus the strata's marginals.
    std::int64_t row_words(const Adjacency& snap, std::int64_t i, int l) const {
        std::vector<std::int64_t> nc;
        for (std::int64_t e = snap.offsets[i]; e < snap.offsets[i + 1]; ++e) nc.push_back(cards_[snap.nbrs[e]]);
        std::sort(nc.rbegin(), nc.rend());
        double prod = 1;
        for (int t = 0; t < l; ++t) prod *= static_cast<double>(nc[t]);
        const double ri = cards_[i], rmax = static_cast<double>(nc[0]);
        const double words = prod * ri * rmax + prod * (ri + rmax);
        if (words > 1e9)
            throw InputError("cuda discrete: a level-" + std::to_string(l) + " contingency table of variable " +
                             std::to_string(i + 1) + " would need " + std::to_string(words * 4 / 1e9) +
                             " GB; use --backend cpu (its tables grow with the samples only)");
        return static_cast<std::int64_t>(words);
    }

    DiscreteLevelArgs args(int level, const std::vector<int2>& items, std::int64_t words) {
        items_.resize_discard(items.size());
        items_.upload(items.data(), items.size(), stream());
        tests_.fill_bytes(0, stream());
        DiscreteLevelArgs a;
        a.codes = codes_.data();
        a.cards = dcards_.data();
        a.m = m_;
        a.l = level;
        a.items = items_.data();
        a.n_items = static_cast<std::int64_t>(items.size());
        a.stat = static_cast<int>(test_.stat);
        a.dof = static_cast<int>(test_.dof);
        a.alpha = policy_.alpha;
        a.strict = policy_.strict;
        a.tests = tests_.data();
        a.group_words = words;
        return a;
    }

    void launch(DiscreteLevelArgs& a) {
        DiscreteLaunch s;
        s.delta = tun_.delta;
        s.gamma = tun_.gamma;
        a.shared_tables = true;
        if (discrete_shared_bytes(a, s) <= kSharedLimit) {
            s.blocks = std::min(a.n_items, kMaxBlocks);
        } else {
            // Global tables: as many blocks in flight as the scratch budget allows.
            a.shared_tables = false;
            const std::size_t free_b = device_memory_info().first;  // the block cache's memory included
            const std::size_t budget = std::min<std::size_t>(free_b / 2, std::size_t(4) << 30);
            const std::int64_t per_block = static_cast<std::int64_t>(s.gamma) * a.group_words * 4;
            s.blocks = std::min({a.n_items, kMaxBlocks, static_cast<std::int64_t>(budget) / per_block});
            if (s.blocks < 1)
                throw OutOfMemory("cuda discrete: one block's tables need " + std::to_string(per_block) +
                                  " bytes, more than half the free device memory; use --backend cpu");
            const std::size_t need = static_cast<std::size_t>(s.blocks * per_block / 4);
            if (scratch_.size() < need) scratch_.resize_discard(need);
            a.scratch = scratch_.data();
        }
        launch_discrete_level(a, s, stream());
    }

    DeviceBinding binding_;  // first: see the destructor
    std::vector<std::string> names_;  // for error messages
    int device_;
    skeleton::TestPolicy policy_;
    ci::DiscreteTestSpec test_;
    DiscreteTunables tun_;
    std::vector<std::int32_t> cards_;
    std::int64_t n_, m_;
    skeleton::CpuDiscreteEngine cpu_;  // single tests for the orientation rules
    DeviceContext& ctx_;               // the device's stream and block cache
    DeviceBuffer<std::uint8_t> codes_;
    DeviceBuffer<std::int32_t> dcards_, nbrs_;
    DeviceBuffer<std::int64_t> offsets_;
    DeviceBuffer<int2> items_;
    DeviceBuffer<u64> best_, pmax_, tests_;
    DeviceBuffer<double> p_;
    DeviceBuffer<std::uint32_t> scratch_;
};

}  // namespace

std::unique_ptr<skeleton::SkeletonEngine> make_discrete_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                               const ci::DiscreteTestSpec& test,
                                                               const DiscreteTunables& t, int device) {
    if (policy.exhaustive)
        throw InputError("--compat causal-learn runs on the CPU engine only (use --backend cpu or auto)");
    return std::make_unique<CudaDiscreteEngine>(ci::encode_discrete(data, test.dof == ci::DofRule::CausalLearn),
                                                data.names, policy, test, t, device);
}

}  // namespace cudag::cuda
