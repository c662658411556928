// SPDX-License-Identifier: Apache-2.0
// The level loop's path for engines that run levels by themselves (SkeletonEngine::run_levels,
// the CUDA engine's resident levels): an engine built here on the CPU engine, which keeps
// the search's results itself (DeviceResults on the host) and runs levels one after another
// as the resident kernels do (a pair's upper entry counts only where its lower entry found
// no set), must give the CPU engine's skeleton, separating sets, pMax and level statistics,
// whether it runs every level, hands the deeper ones back to the loop, or is declined.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "mpi/communicator.hpp"
#include "sim/gaussian.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/row_work.hpp"
#include "skeleton/skeleton.hpp"
#include "support/skeleton_compare.hpp"

using namespace cudag;

namespace {

/// The CPU engine behind DeviceResults kept on the host and run_levels() up to `cap` levels.
class HostLevelsEngine final : public skeleton::SkeletonEngine, public skeleton::DeviceResults {
public:
    HostLevelsEngine(skeleton::CpuFisherEngine& cpu, int cap) : cpu_(cpu), cap_(cap) {}

    std::string name() const override { return "host levels"; }
    std::int64_t n_vars() const override { return cpu_.n_vars(); }
    void level0(std::int64_t rb, std::int64_t re, bool dense, Graph& g, skeleton::Level0Output& out) override {
        cpu_.level0(rb, re, dense, g, out);
    }
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& b, skeleton::LevelOutput& out) override {
        ++loop_levels;
        if (!out.packed) {
            cpu_.run_level(l, snap, b, out);
            return;
        }
        last_.reset(snap.nbrs.size(), l, false);
        cpu_.run_level(l, snap, b, last_);
        for (std::int64_t k = 0; k < b.entry_end - b.entry_begin; ++k)
            if (last_.flags[static_cast<std::size_t>(b.entry_begin + k)] & skeleton::kSeparated)
                out.removal_bits[static_cast<std::size_t>(k / 8)] |= std::byte(1u << (k % 8));
        out.tests += last_.tests;
    }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return cpu_.p_value(i, j, s);
    }
    skeleton::DeviceResults* device_results() override { return this; }

    int run_levels(int first, int last, const Adjacency& snap, skeleton::SepSetLog& log,
                   std::vector<ResidentLevel>& levels, Adjacency& next) override {
        ++calls;
        if (!adopted_) return 0;
        Adjacency cur = snap;
        int ran = 0;
        for (int l = first; l <= std::min(last, cap_) && cur.max_degree() - 1 >= l; ++l) {
            skeleton::LevelOutput o;
            o.reset(cur.nbrs.size(), l, false);
            cpu_.run_level(l, cur, skeleton::LevelBlock::rows(cur, 0, cur.n), o);
            ResidentLevel r;
            r.plan.level = l;
            const std::vector<double> work = skeleton::row_work(cur, l);
            for (std::int64_t i = 0; i < cur.n; ++i) {
                r.plan.planned_tests += work[static_cast<std::size_t>(i)];
                r.plan.rows += work[static_cast<std::size_t>(i)] > 0.0;
                r.plan.max_degree = std::max(r.plan.max_degree, cur.degree(i));
            }
            r.tests = o.tests;
            const auto sep = [&](std::int64_t a, std::int64_t e) {
                return (o.flags[static_cast<std::size_t>(e)] & skeleton::kSeparated) != 0;
            };
            settle(cur, o, sep, log);
            Adjacency after;
            after.n = cur.n;
            after.offsets.assign(static_cast<std::size_t>(cur.n + 1), 0);
            for (std::int64_t a = 0; a < cur.n; ++a) {
                for (std::int64_t e = cur.offsets[a]; e < cur.offsets[a + 1]; ++e) {
                    const std::int32_t b = cur.nbrs[static_cast<std::size_t>(e)];
                    const bool gone = sep(a, e) || sep(b, cur.find(b, static_cast<std::int32_t>(a)));
                    if (gone) {
                        r.removed += a < b;
                        continue;
                    }
                    after.nbrs.push_back(b);
                }
                after.offsets[static_cast<std::size_t>(a + 1)] = static_cast<std::int64_t>(after.nbrs.size());
            }
            r.edges_after = static_cast<std::int64_t>(after.nbrs.size()) / 2;
            levels.push_back(r);
            cur = std::move(after);
            ++ran;
        }
        if (ran > 0) next = std::move(cur);
        resident_levels += ran;
        return ran;
    }

    // DeviceResults on the host.
    void adopt_pmax(const skeleton::PmaxTable& pmax, bool) override {
        table_ = pmax.is_dense() ? skeleton::PmaxTable::from_pairs(n_vars(), true, pmax.pairs()) : pmax_copy(pmax);
        adopted_ = true;
    }
    void settle_level(const Adjacency& snap, std::span<const std::byte> removal, std::span<const std::int64_t> bit0,
                      skeleton::SepSetLog& log) override {
        const auto sep = [&](std::int64_t a, std::int64_t e) {
            const std::int64_t k = bit0[static_cast<std::size_t>(a)] + e - snap.offsets[a];
            return (static_cast<unsigned>(removal[static_cast<std::size_t>(k / 8)]) >> (k % 8)) & 1u;
        };
        settle(snap, last_, sep, log);
    }
    std::int64_t next_snapshot(const Adjacency&, std::span<const std::byte>, std::span<const std::int64_t>,
                               Adjacency&) override {
        return -1;
    }
    void return_pmax(skeleton::PmaxTable& pmax, bool overwrite) override {
        for (std::size_t k = 0; k < pmax.values().size(); ++k)
            pmax.values()[k] = overwrite ? table_.values()[k] : std::max(pmax.values()[k], table_.values()[k]);
    }
    skeleton::PairPList pmax_pairs() override { return table_.pairs(); }

    int calls = 0, resident_levels = 0, loop_levels = 0;

private:
    /// A sparse table with `pmax`'s pairs and values (its -1 slots included).
    skeleton::PmaxTable pmax_copy(const skeleton::PmaxTable& pmax) const {
        Graph g(n_vars());
        for (std::int64_t i = 0; i < n_vars(); ++i)
            for (std::int64_t k = pmax.row_offsets()[i]; k < pmax.row_offsets()[i + 1]; ++k) g.add(i, pmax.cols()[k]);
        skeleton::PmaxTable t = skeleton::PmaxTable::sparse(g);
        std::copy(pmax.values().begin(), pmax.values().end(), t.values().begin());
        return t;
    }
    /// A level's pMax raised and its records logged: every tested entry but an upper one
    /// (b < a) whose lower entry separated, which neither raises nor records.
    template <class Sep>
    void settle(const Adjacency& snap, const skeleton::LevelOutput& o, const Sep& sep, skeleton::SepSetLog& log) {
        for (std::int64_t a = 0; a < snap.n; ++a)
            for (std::int64_t e = snap.offsets[a]; e < snap.offsets[a + 1]; ++e) {
                if (!(o.flags[static_cast<std::size_t>(e)] & skeleton::kTested)) continue;
                const std::int32_t b = snap.nbrs[static_cast<std::size_t>(e)];
                if (b < a && sep(b, snap.find(b, static_cast<std::int32_t>(a)))) continue;
                const auto i = static_cast<std::int32_t>(std::min<std::int64_t>(a, b));
                const auto j = static_cast<std::int32_t>(std::max<std::int64_t>(a, b));
                table_.raise(i, j, o.pmax[static_cast<std::size_t>(e)]);
                if (sep(a, e)) {
                    const auto s = o.set(static_cast<std::size_t>(e));
                    log.add(i, j, std::vector<std::int32_t>(s.begin(), s.end()));
                }
            }
    }

    skeleton::CpuFisherEngine& cpu_;
    const int cap_;
    bool adopted_ = false;
    skeleton::PmaxTable table_;
    skeleton::LevelOutput last_;
};

struct Outcome {
    skeleton::SkeletonResult result;
    std::vector<int> started, ended;  ///< levels told to on_level_start / on_level
};

Outcome search(skeleton::SkeletonEngine& engine, const skeleton::SkeletonOptions& opt) {
    Outcome out;
    mpi::SerialCommunicator serial;
    skeleton::SkeletonHooks hooks;
    hooks.on_level_start = [&](const skeleton::LevelPlan& p) {
        EXPECT_GT(p.planned_tests, 0.0);
        EXPECT_GT(p.rows, 0);
        out.started.push_back(p.level);
    };
    out.result = skeleton::learn_skeleton(
        engine, opt, serial, [&](const skeleton::LevelStats& st) { out.ended.push_back(st.level); }, hooks);
    return out;
}

Dataset simulated(std::int64_t n, std::int64_t m, double degree, std::uint64_t seed) {
    sim::GaussianSimSpec spec{n, m, degree / static_cast<double>(n - 1), seed};
    return sim::simulate_gaussian(spec, 0).data;
}

TEST(EngineLevels, TheEnginesLevelsGiveTheLoopsResult) {
    const Dataset data = simulated(40, 500, 5, 13);
    for (const std::int64_t dense_limit : {std::int64_t{4096}, std::int64_t{10}}) {  // dense, sparse pMax
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.05;
        opt.dense_pmax_limit = dense_limit;
        skeleton::CpuFisherEngine cpu(data, opt.policy, 1);
        const Outcome want = search(cpu, opt);
        ASSERT_GE(want.result.levels.size(), 4u) << "the case should reach level 3";
        const int deepest = want.result.levels.back().level;
        // Every level by the engine; levels 1-2 by it, the rest by the loop; none (cap 0).
        for (const int cap : {100, 2, 0}) {
            HostLevelsEngine eng(cpu, cap);
            const Outcome got = search(eng, opt);
            const std::string label = "cap " + std::to_string(cap) + " dense limit " + std::to_string(dense_limit);
            EXPECT_TRUE(test::same_result(got.result, want.result, 0.0)) << label;
            EXPECT_EQ(eng.resident_levels, std::min(cap, deepest)) << label;
            EXPECT_EQ(eng.loop_levels, deepest - std::min(cap, deepest)) << label;
            // Asked before every level the loop would run: once for the levels it ran, then
            // again before each level after them.
            EXPECT_EQ(eng.calls, cap == 0 ? deepest : 1 + deepest - std::min(cap, deepest)) << label;
            ASSERT_EQ(got.result.levels.size(), want.result.levels.size()) << label;
            for (std::size_t k = 0; k < want.result.levels.size(); ++k) {
                EXPECT_EQ(got.result.levels[k].level, want.result.levels[k].level) << label;
                EXPECT_EQ(got.result.levels[k].tests, want.result.levels[k].tests) << label << " level " << k;
                EXPECT_EQ(got.result.levels[k].removed, want.result.levels[k].removed) << label << " level " << k;
                EXPECT_EQ(got.result.levels[k].edges_after, want.result.levels[k].edges_after) << label;
            }
            EXPECT_EQ(got.started, want.started) << label;
            EXPECT_EQ(got.ended, want.ended) << label;
        }
    }
}

TEST(EngineLevels, TheLoopKeepsWhatTheEngineCannotRun) {
    const Dataset data = simulated(40, 500, 5, 13);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 1);
    // max_level caps the engine's levels too.
    {
        skeleton::SkeletonOptions upto = opt;
        upto.max_level = 2;
        HostLevelsEngine eng(cpu, 100);
        const Outcome got = search(eng, upto);
        EXPECT_TRUE(test::same_result(got.result, search(cpu, upto).result, 0.0));
        EXPECT_EQ(eng.resident_levels, 2);
        EXPECT_EQ(got.ended, (std::vector<int>{0, 1, 2}));
    }
    // Background knowledge, a stop after a level, exhaustive sets: every level by the loop,
    // the engine never asked.
    skeleton::SkeletonOptions knowledge = opt;
    knowledge.forbidden_pairs = {{0, 1}};
    skeleton::SkeletonOptions exhaustive = opt;
    exhaustive.policy.exhaustive = true;
    for (const skeleton::SkeletonOptions& o : {knowledge, exhaustive}) {
        skeleton::CpuFisherEngine c(data, o.policy, 1);
        HostLevelsEngine eng(c, 100);
        EXPECT_TRUE(test::same_result(search(eng, o).result, search(c, o).result, 0.0));
        EXPECT_EQ(eng.calls, 0);
        EXPECT_GT(eng.loop_levels, 0);
    }
    HostLevelsEngine eng(cpu, 100);
    mpi::SerialCommunicator serial;
    skeleton::SkeletonHooks stop;
    stop.stop_after_level = 1;
    EXPECT_THROW(skeleton::learn_skeleton(eng, opt, serial, {}, stop), skeleton::StoppedAfterLevel);
    EXPECT_EQ(eng.calls, 0);
    EXPECT_EQ(eng.loop_levels, 1);
}

}  // namespace
