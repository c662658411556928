// SPDX-License-Identifier: Apache-2.0
// The PC-stable level loop + CPU engine against straightforward serial
// re-implementations of pcalg's skeleton(method = "stable") and causal-learn's
// stable skeleton_discovery, written here independently of the library loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/keeping_engine.hpp"
#include "support/names.hpp"
#include "support/pcalg_reference.hpp"

using namespace cudag;

namespace {

using test::pcalg_stable;
using test::random_sem;
using test::Reference;

// causal-learn stable skeleton_discovery: every set of the depth from both
// endpoints, p > alpha, sepset = union of the separating sets' nodes.
Reference causal_learn_stable(skeleton::SkeletonEngine& eng, int n, double alpha) {
    Reference r;
    r.adj.assign(n, std::vector<char>(n, 1));
    for (int i = 0; i < n; ++i) r.adj[i][i] = 0;
    for (int depth = 0;; ++depth) {
        int maxdeg = 0;
        for (int i = 0; i < n; ++i) maxdeg = std::max<int>(maxdeg, std::count(r.adj[i].begin(), r.adj[i].end(), 1));
        if (!(maxdeg - 1 >= depth)) break;
        std::set<std::pair<int, int>> removal;
        for (int x = 0; x < n; ++x)
            for (int y = 0; y < n; ++y) {
                if (!r.adj[x][y]) continue;
                std::vector<int> nb;
                for (int k = 0; k < n; ++k)
                    if (r.adj[x][k] && k != y) nb.push_back(k);
                if (static_cast<int>(nb.size()) < depth) continue;
                std::set<int> uni;
                bool sep = false;
                std::vector<int> c(depth);
                for (int t = 0; t < depth; ++t) c[t] = t;
                do {
                    std::vector<std::int32_t> s;
                    for (int t = 0; t < depth; ++t) s.push_back(nb[c[t]]);
                    if (eng.p_value(x, y, s) > alpha) {
                        sep = true;
                        uni.insert(s.begin(), s.end());
                    }
                } while (depth > 0 && next_combination(c.data(), depth, static_cast<int>(nb.size())));
                if (sep) {
                    removal.insert({std::min(x, y), std::max(x, y)});
                    auto& u = r.sepsets[{std::min(x, y), std::max(x, y)}];
                    std::set<int> merged(u.begin(), u.end());
                    merged.insert(uni.begin(), uni.end());
                    u.assign(merged.begin(), merged.end());
                }
            }
        for (auto [a, b] : removal) r.adj[a][b] = r.adj[b][a] = 0;
    }
    return r;
}

::testing::AssertionResult same(const skeleton::SkeletonResult& got, const Reference& want, int n, bool check_pmax) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            if (got.skeleton.has(i, j) != static_cast<bool>(want.adj[i][j]))
                return ::testing::AssertionFailure() << "edge " << i << "-" << j << " differs";
            auto it = want.sepsets.find({i, j});
            const bool has = it != want.sepsets.end() && it->first == std::make_pair(i, j);
            if (!got.skeleton.has(i, j)) {
                const auto& s = got.sepsets.get(i, j);
                const std::vector<int> gs(s.begin(), s.end());
                const std::vector<int> ws = has ? it->second : std::vector<int>{};
                if (gs != ws) return ::testing::AssertionFailure() << "sepset of " << i << "-" << j << " differs";
            }
        }
    if (check_pmax) {
        for (const auto& q : got.pmax) {
            const double w = want.pmax.at({q.i, q.j});
            if (q.p != w)
                return ::testing::AssertionFailure() << "pmax of " << q.i << "-" << q.j << ": " << q.p << " vs " << w;
        }
        if (got.pmax.size() != want.pmax.size())
            return ::testing::AssertionFailure() << "pmax has " << got.pmax.size() << " pairs";
    }
    return ::testing::AssertionSuccess();
}

}  // namespace

class SkeletonParity : public ::testing::TestWithParam<unsigned> {};

TEST_P(SkeletonParity, MatchesSerialPcalgStable) {
    const int n = 18;
    const Dataset d = random_sem(n, 300, 0.25, GetParam());
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.threads = 3;  // the level bookkeeping in runs of rows on threads
    skeleton::CpuFisherEngine eng(d, opt.policy, 3);
    const auto got = skeleton::learn_skeleton(eng, opt);
    const Reference want = pcalg_stable(eng, n, 0.05, -1);
    EXPECT_TRUE(same(got, want, n, true));
    EXPECT_GE(got.levels.size(), 3u) << "the case should reach level 2";
}

TEST_P(SkeletonParity, MatchesSerialCausalLearnStable) {
    const int n = 16;
    const Dataset d = random_sem(n, 250, 0.3, GetParam() + 100);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.policy.strict = true;
    opt.policy.exhaustive = true;
    opt.threads = 2;
    skeleton::CpuFisherEngine eng(d, opt.policy, 2);
    const auto got = skeleton::learn_skeleton(eng, opt);
    EXPECT_TRUE(same(got, causal_learn_stable(eng, n, 0.05), n, false));
}

INSTANTIATE_TEST_SUITE_P(Seeds, SkeletonParity, ::testing::Values(1u, 2u, 3u, 4u, 5u));

TEST(Skeleton, ThreadCountDoesNotChangeTheResult) {
    const Dataset d = random_sem(40, 400, 0.15, 7);
    for (const bool exhaustive : {false, true})
        for (const std::int64_t dense_limit : {std::int64_t{4096}, std::int64_t{0}}) {
            SCOPED_TRACE(std::string(exhaustive ? "exhaustive" : "first set") +
                         (dense_limit ? ", dense pMax" : ", sparse pMax"));
            skeleton::SkeletonOptions one, many;
            one.policy.alpha = many.policy.alpha = 0.01;
            one.policy.exhaustive = many.policy.exhaustive = exhaustive;
            one.dense_pmax_limit = many.dense_pmax_limit = dense_limit;
            many.threads = 5;  // engine and bookkeeping threads
            // and the separating sets of level 1 sorted on a worker thread while the later
            // levels run, the later ones merged in at the end
            one.early_sort_records = 0;
            many.early_sort_records = 1;
            skeleton::CpuFisherEngine e1(d, one.policy, 1), e4(d, many.policy, 4);
            const auto a = skeleton::learn_skeleton(e1, one);
            const auto b = skeleton::learn_skeleton(e4, many);
            EXPECT_TRUE(a.skeleton == b.skeleton);
            EXPECT_TRUE(a.sepsets == b.sepsets);
            EXPECT_EQ(a.pmax, b.pmax);
            EXPECT_GT(a.sepsets.size(), 100u);
            ASSERT_EQ(a.levels.size(), b.levels.size());
            ASSERT_GE(a.levels.size(), 3u);
            for (std::size_t k = 0; k < a.levels.size(); ++k) {
                EXPECT_EQ(a.levels[k].tests, b.levels[k].tests);
                EXPECT_EQ(a.levels[k].removed, b.levels[k].removed);
            }
        }
}

TEST(SepSetsMerge, DisjointTablesMergeByPairAndClashesAreRefused) {
    // Pairs of a and b interleave; several pieces on several threads.
    SepSets a, b, want;
    std::mt19937 rng(5);
    for (std::int32_t i = 0; i < 300; ++i)
        for (std::int32_t j = i + 1; j < 300; j += 1 + static_cast<std::int32_t>(rng() % 7)) {
            std::vector<std::int32_t> set(rng() % 4);
            for (auto& v : set) v = static_cast<std::int32_t>(rng() % 300);
            std::sort(set.begin(), set.end());
            set.erase(std::unique(set.begin(), set.end()), set.end());
            (rng() % 3 ? a : b).append_sorted(i, j, set);
            want.append_sorted(i, j, set);
        }
    ASSERT_GT(a.size(), 1000u);
    ASSERT_GT(b.size(), 1000u);
    for (const int threads : {1, 4}) {
        SepSets got;
        ASSERT_TRUE(SepSets::merge_disjoint(a, b, got, threads));
        EXPECT_TRUE(got == want);
        SepSets reversed;
        ASSERT_TRUE(SepSets::merge_disjoint(b, a, reversed, threads));
        EXPECT_TRUE(reversed == want);
    }
    // Four tables in one k-way merge (and the empty one among them).
    SepSets parts[4], none;
    for (const auto& [key, set] : want.all())
        parts[(key.first * 7 + key.second) % 4].append_sorted(key.first, key.second, set);
    for (const int threads : {1, 3}) {
        const SepSets* views[5] = {&parts[2], &none, &parts[0], &parts[3], &parts[1]};
        SepSets got;
        ASSERT_TRUE(SepSets::merge_disjoint(std::span<const SepSets* const>(views), got, threads));
        EXPECT_TRUE(got == want) << threads << " threads";
    }
    SepSets empty, got;
    ASSERT_TRUE(SepSets::merge_disjoint(empty, b, got));
    EXPECT_TRUE(got == b);
    SepSets clash = b;
    clash.set(0, 1, {7});
    if (!a.has(0, 1)) a.set(0, 1, {3});
    SepSets untouched;
    EXPECT_FALSE(SepSets::merge_disjoint(a, clash, untouched, 4));
    EXPECT_EQ(untouched.size(), 0u);
    const SepSets* three[3] = {&parts[1], &clash, &a};
    EXPECT_FALSE(SepSets::merge_disjoint(std::span<const SepSets* const>(three), untouched, 4));
    EXPECT_EQ(untouched.size(), 0u);
}

namespace {

/// The same skeleton, separating sets, pMax and per-level statistics.
void expect_same_search(const skeleton::SkeletonResult& want, const skeleton::SkeletonResult& got) {
    EXPECT_TRUE(want.skeleton == got.skeleton);
    EXPECT_TRUE(want.sepsets == got.sepsets);
    EXPECT_EQ(want.pmax, got.pmax);
    ASSERT_EQ(want.levels.size(), got.levels.size());
    for (std::size_t k = 0; k < want.levels.size(); ++k) {
        EXPECT_EQ(want.levels[k].tests, got.levels[k].tests) << "level " << k;
        EXPECT_EQ(want.levels[k].removed, got.levels[k].removed) << "level " << k;
        EXPECT_EQ(want.levels[k].edges_after, got.levels[k].edges_after) << "level " << k;
    }
}

/// The CPU engine handing level 0 over as the GPU engine does: kept pairs as an upper CSR
/// and the adjacency as a symmetric one (all rows, no dense p-values), `g` untouched.
class ListingEngine final : public skeleton::SkeletonEngine {
public:
    explicit ListingEngine(skeleton::SkeletonEngine& inner) : inner_(inner) {}
    std::string name() const override { return inner_.name(); }
    std::int64_t n_vars() const override { return inner_.n_vars(); }
    void level0(std::int64_t rb, std::int64_t re, bool dense, Graph& g, skeleton::Level0Output& out) override {
        if (dense || rb != 0 || re != n_vars()) return inner_.level0(rb, re, dense, g, out);
        Graph mine(n_vars());
        inner_.level0(rb, re, dense, mine, out);
        std::sort(out.kept_p.begin(), out.kept_p.end(), [](const skeleton::PairP& x, const skeleton::PairP& y) {
            return x.i != y.i ? x.i < y.i : x.j < y.j;
        });
        out.kept_offsets.assign(static_cast<std::size_t>(n_vars()) + 1, 0);
        for (const skeleton::PairP& q : out.kept_p) {
            ++out.kept_offsets[static_cast<std::size_t>(q.i) + 1];
            out.kept_cols.push_back(q.j);
            out.kept_pvals.push_back(q.p);
        }
        for (std::size_t i = 1; i < out.kept_offsets.size(); ++i) out.kept_offsets[i] += out.kept_offsets[i - 1];
        out.kept_p.clear();
        out.adjacency = Adjacency::from_graph(mine);
        ++lists;
    }
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        inner_.run_level(l, snap, block, out);
    }
    bool splits_rows() const override { return inner_.splits_rows(); }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return inner_.p_value(i, j, s);
    }
    int lists = 0;  ///< level 0s handed over as lists

private:
    skeleton::SkeletonEngine& inner_;
};

}  // namespace

TEST(Skeleton, SnapshotsBuiltByTheEngineGiveTheSameSearch) {
    const Dataset d = random_sem(40, 400, 0.15, 7);
    for (const bool exhaustive : {false, true}) {
        SCOPED_TRACE(exhaustive ? "exhaustive" : "first set");
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        opt.policy.exhaustive = exhaustive;
        opt.threads = 3;
        opt.dense_pmax_limit = 0;  // level 0's lists: the sparse pMax table is built from them
        skeleton::CpuFisherEngine cpu(d, opt.policy, 2);
        ListingEngine lister(cpu);
        test::KeepingEngine eng(lister, false, true);  // builds every snapshot but level 2's
        const auto want = skeleton::learn_skeleton(cpu, opt);
        const auto got = skeleton::learn_skeleton(eng, opt);
        EXPECT_EQ(lister.lists, 1);
        if (exhaustive) {
            // Every set is tested and the host unites them: results stay on the host.
            EXPECT_EQ(eng.adopted, 0);
            EXPECT_EQ(eng.built, 0);
            EXPECT_EQ(eng.unpacked + 1, static_cast<int>(want.levels.size()));
        } else {
            EXPECT_GE(eng.built, 2);
            EXPECT_EQ(eng.unpacked, 0);
        }
        ASSERT_GE(want.levels.size(), 4u);
        expect_same_search(want, got);
        // The graph at every checkpoint, too (the search catches it up there).
        std::vector<Graph> want_g, got_g;
        skeleton::SkeletonHooks hw, hg;
        hw.on_checkpoint = [&](const skeleton::SkeletonState& s) { want_g.push_back(s.skeleton); };
        hg.on_checkpoint = [&](const skeleton::SkeletonState& s) { got_g.push_back(s.skeleton); };
        mpi::SerialCommunicator serial;
        skeleton::learn_skeleton(cpu, opt, serial, {}, hw);
        skeleton::learn_skeleton(eng, opt, serial, {}, hg);
        ASSERT_EQ(want_g.size(), got_g.size());
        for (std::size_t k = 0; k < want_g.size(); ++k) EXPECT_TRUE(want_g[k] == got_g[k]) << "checkpoint " << k;
    }
}

TEST(Skeleton, AnEngineKeepingPmaxAndSetsGivesTheSameSearch) {
    const Dataset d = random_sem(40, 400, 0.15, 7);
    for (const bool sparse : {false, true}) {
        SCOPED_TRACE(sparse ? "sparse pMax" : "dense pMax");
        skeleton::SkeletonOptions opt;
        opt.policy.alpha = 0.01;
        opt.threads = 3;
        if (sparse) opt.dense_pmax_limit = 0;
        skeleton::CpuFisherEngine cpu(d, opt.policy, 2);
        test::KeepingEngine eng(cpu);
        const auto want = skeleton::learn_skeleton(cpu, opt);
        const auto got = skeleton::learn_skeleton(eng, opt);
        EXPECT_EQ(eng.adopted, 1);
        // One rank runs level 0 over every row; the CPU engine lists no CSR of kept pairs.
        EXPECT_EQ(eng.from_level0_count, sparse ? 0 : 1);
        EXPECT_EQ(eng.returned, 0);  // one rank: the engine lists the pairs itself
        EXPECT_EQ(eng.listed, 1);
        EXPECT_EQ(eng.levels + 1, static_cast<int>(want.levels.size()));
        ASSERT_GE(want.levels.size(), 4u);
        expect_same_search(want, got);
        // Checkpoints gather at every level: the engine's table comes back each time.
        std::vector<skeleton::PairPList> want_p, got_p;
        skeleton::SkeletonHooks hw, hg;
        hw.on_checkpoint = [&](const skeleton::SkeletonState& s) { want_p.push_back(s.pmax); };
        hg.on_checkpoint = [&](const skeleton::SkeletonState& s) { got_p.push_back(s.pmax); };
        mpi::SerialCommunicator serial;
        skeleton::learn_skeleton(cpu, opt, serial, {}, hw);
        test::KeepingEngine eng2(cpu);
        skeleton::learn_skeleton(eng2, opt, serial, {}, hg);
        EXPECT_EQ(want_p, got_p);
        EXPECT_GE(eng2.returned, 4);
        // A resumed run adopts the table from the checkpoint, not from level 0.
        skeleton::SkeletonHooks stop;
        std::optional<skeleton::SkeletonState> saved;
        stop.on_checkpoint = [&](const skeleton::SkeletonState& s) { saved = s; };
        stop.stop_after_level = 1;
        test::KeepingEngine eng3(cpu);
        EXPECT_THROW(skeleton::learn_skeleton(eng3, opt, serial, {}, stop), skeleton::StoppedAfterLevel);
        skeleton::SkeletonHooks resume;
        resume.resume = std::move(saved);
        test::KeepingEngine eng4(cpu);
        const auto resumed = skeleton::learn_skeleton(eng4, opt, serial, {}, resume);
        EXPECT_EQ(eng4.adopted, 1);
        EXPECT_EQ(eng4.from_level0_count, 0);
        EXPECT_TRUE(want.sepsets == resumed.sepsets);
        EXPECT_EQ(want.pmax, resumed.pmax);
    }
}

TEST(Skeleton, MaxLevelCapsTheSearch) {
    const int n = 18;
    const Dataset d = random_sem(n, 300, 0.3, 11);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.max_level = 1;
    skeleton::CpuFisherEngine eng(d, opt.policy, 2);
    const auto got = skeleton::learn_skeleton(eng, opt);
    EXPECT_EQ(got.levels.back().level, 1);
    EXPECT_TRUE(same(got, pcalg_stable(eng, n, 0.05, 1), n, true));
}

TEST(Skeleton, ChainIsSeparatedByItsMiddle) {
    // Population correlations of X0 -> X1 -> X2: r01 = r12 = 0.5, r02 = 0.25.
    std::vector<double> c = {1, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 1};
    skeleton::SkeletonOptions opt;
    skeleton::CpuFisherEngine eng(c, 3, 1000, opt.policy, 1);
    const auto got = skeleton::learn_skeleton(eng, opt);
    EXPECT_TRUE(got.skeleton.has(0, 1));
    EXPECT_TRUE(got.skeleton.has(1, 2));
    EXPECT_FALSE(got.skeleton.has(0, 2));
    EXPECT_EQ(got.sepsets.get(0, 2), std::vector<std::int32_t>{1});
    ASSERT_EQ(got.levels.size(), 2u);
    EXPECT_EQ(got.levels[1].removed, 1);
}

TEST(Skeleton, TooFewSamplesForALevelIsAnInputError) {
    const Dataset d = random_sem(10, 300, 0.6, 3);
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.max_supported_level = 1;
    opt.supported_level_reason = "test data has 5 samples";
    skeleton::CpuFisherEngine eng(d, opt.policy, 1);
    EXPECT_THROW(skeleton::learn_skeleton(eng, opt), InputError);
}
