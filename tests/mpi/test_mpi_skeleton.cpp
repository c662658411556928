// SPDX-License-Identifier: Apache-2.0
// Under mpiexec (ctest runs it with 2, 3 and 4 ranks): the communicator's collectives and
// the strict communicator's checks,
// and the distributed skeleton search against the single-process one on every rank.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <memory>
#include <numeric>

#include "ci/correlation.hpp"
#include "mpi/mpi_communicator.hpp"
#include "sim/gaussian.hpp"
#include "sim/network.hpp"
#include "skeleton/batch_test_engine.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/cpu/ci_test_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/skeleton.hpp"
#include "support/keeping_engine.hpp"
#include "support/mpi_world.hpp"

using namespace cudag;
using mpi::DataType;
using mpi::ReduceOp;

namespace {

testing::AssertionResult same_search(const skeleton::SkeletonResult& got, const skeleton::SkeletonResult& want,
                                     bool root) {
    if (!(got.skeleton == want.skeleton)) return testing::AssertionFailure() << "skeletons differ";
    if (got.levels.size() != want.levels.size())
        return testing::AssertionFailure() << got.levels.size() << " levels, serial " << want.levels.size();
    for (std::size_t l = 0; l < want.levels.size(); ++l)
        if (got.levels[l].tests != want.levels[l].tests || got.levels[l].removed != want.levels[l].removed ||
            got.levels[l].edges_after != want.levels[l].edges_after)
            return testing::AssertionFailure() << "level " << l << " statistics differ";
    if (!root) return testing::AssertionSuccess();
    if (!(got.sepsets == want.sepsets))
        return testing::AssertionFailure() << got.sepsets.size() << " separating sets, serial " << want.sepsets.size()
                                           << " (or their contents differ)";
    if (got.pmax != want.pmax)
        return testing::AssertionFailure()
               << got.pmax.size() << " pMax pairs, serial " << want.pmax.size() << " (or their values differ)";
    return testing::AssertionSuccess();
}

struct Case {
    bool exhaustive;
    bool sparse_pmax;
    bool level0_everywhere = false;  ///< every rank runs all of level 0 (the GPU engines' way)
    bool keeping = false;            ///< the engine keeps pMax and separating sets (the CUDA engine's way)
    bool offers_buffer = false;      ///< keeping: the ranks reduce the engines' tables in place
    bool builds_snapshots = false;   ///< keeping: the engines build the next snapshots
    bool knowledge = false;          ///< forbidden and required pairs (background knowledge)
    bool lists_level0 = false;       ///< keeping: level 0's kept pairs come as a CSR (the CUDA engine's way)
};

/// Background knowledge for a search: every third pair adjacent in a free run forbidden,
/// one in 300 pairs it removed at level 0 and one in 25 it removed later required (a few:
/// each raises two degrees, and the levels grow with them).
void add_knowledge(skeleton::SkeletonOptions& opt, skeleton::SkeletonEngine& engine) {
    const skeleton::SkeletonResult free_run = skeleton::learn_skeleton(engine, opt);
    const std::int64_t n = engine.n_vars();
    int adjacent = 0, removed = 0, later = 0;
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = i + 1; j < n; ++j) {
            if (free_run.skeleton.has(i, j)) {
                if (adjacent++ % 3 == 0) opt.forbidden_pairs.push_back({i, j});
            } else if (free_run.sepsets.get(i, j).empty() ? removed++ % 300 == 0 : later++ % 25 == 0) {
                opt.required_pairs.push_back({i, j});
            }
        }
}

class MpiSkeleton : public testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        data_ = sim::simulate_gaussian({70, 400, 0.08, 11}, 1).data;
        opt_.policy.alpha = 0.05;
        opt_.policy.exhaustive = opt_.policy.strict = opt_.policy.causal_learn_pvalue = GetParam().exhaustive;
        if (GetParam().sparse_pmax) opt_.dense_pmax_limit = 8;
        opt_.level0_on_every_rank = GetParam().level0_everywhere ? 1 : 0;
        cpu_ = std::make_unique<skeleton::CpuFisherEngine>(data_, opt_.policy, 1);
        if (GetParam().knowledge) {
            add_knowledge(opt_, *cpu_);
            ASSERT_GE(opt_.required_pairs.size(), 2u);
            ASSERT_FALSE(opt_.forbidden_pairs.empty());
        }
        serial_ = skeleton::learn_skeleton(*cpu_, opt_);
        if (GetParam().keeping)
            keeping_ = std::make_unique<test::KeepingEngine>(*cpu_, GetParam().offers_buffer,
                                                             GetParam().builds_snapshots, GetParam().lists_level0);
        engine_ = keeping_ ? static_cast<skeleton::SkeletonEngine*>(keeping_.get()) : cpu_.get();
    }
    Dataset data_;
    skeleton::SkeletonOptions opt_;
    std::unique_ptr<skeleton::CpuFisherEngine> cpu_;
    std::unique_ptr<test::KeepingEngine> keeping_;
    skeleton::SkeletonEngine* engine_ = nullptr;  ///< the engine under test
    skeleton::SkeletonResult serial_;
};

}  // namespace

TEST_P(MpiSkeleton, LearnSkeletonIsEquivalentToSerial) {
    ASSERT_GE(serial_.levels.size(), 3u) << "the case should reach level 2";
    for (mpi::Communicator* c : test::communicators()) {
        const skeleton::SkeletonResult got = skeleton::learn_skeleton(*engine_, opt_, *c);
        EXPECT_TRUE(same_search(got, serial_, c->rank() == 0)) << c->name();
        // Rank 0's own sets sorted early, the gathered ones merged in (or, when two ranks
        // logged one pair's two sides, united) at the end.
        skeleton::SkeletonOptions early = opt_;
        early.early_sort_records = 1;
        const skeleton::SkeletonResult got_early = skeleton::learn_skeleton(*engine_, early, *c);
        EXPECT_TRUE(same_search(got_early, serial_, c->rank() == 0)) << c->name() << ", sorted early";
        if (c->rank() != 0) {
            EXPECT_EQ(got.sepsets.size(), 0u) << "separating sets live on rank 0";
        }
        if (keeping_ && GetParam().offers_buffer && c->size() > 1) {
            // The tables were reduced in place: none came back, rank 0's engine listed the pairs.
            EXPECT_GT(keeping_->offered, 0) << c->name();
            EXPECT_EQ(keeping_->returned, 0) << c->name();
            EXPECT_EQ(keeping_->listed, c->rank() == 0 ? 2 : 0) << c->name();
        }
        if (keeping_ && GetParam().builds_snapshots) {
            EXPECT_GE(keeping_->built, 2) << c->name();
        }
        if (keeping_)
            keeping_->offered = keeping_->returned = keeping_->listed = keeping_->levels = keeping_->built = 0;
    }
}

TEST_P(MpiSkeleton, StopAndResumeIsEquivalentToSerial) {
    mpi::Communicator& w = test::world();
    skeleton::SkeletonHooks first;
    std::optional<skeleton::SkeletonState> saved;
    first.on_checkpoint = [&](const skeleton::SkeletonState& s) { saved = s; };
    first.stop_after_level = 1;
    EXPECT_THROW(skeleton::learn_skeleton(*engine_, opt_, w, {}, first), skeleton::StoppedAfterLevel);
    ASSERT_EQ(saved.has_value(), w.rank() == 0);
    if (saved) {
        EXPECT_EQ(saved->next_level, 2);
    }

    skeleton::SkeletonHooks second;
    second.resume = std::move(saved);
    const skeleton::SkeletonResult got = skeleton::learn_skeleton(*engine_, opt_, w, {}, second);
    EXPECT_TRUE(same_search(got, serial_, w.rank() == 0));
}

namespace {

/// The engine, telling the search it takes whole rows only (the row cut of old).
class WholeRowsEngine final : public skeleton::SkeletonEngine {
public:
    explicit WholeRowsEngine(skeleton::SkeletonEngine& inner) : inner_(inner) {}
    std::string name() const override { return inner_.name(); }
    std::int64_t n_vars() const override { return inner_.n_vars(); }
    void level0(std::int64_t rb, std::int64_t re, bool dense, Graph& g, skeleton::Level0Output& out) override {
        inner_.level0(rb, re, dense, g, out);
    }
    void run_level(int l, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        EXPECT_TRUE(block.whole_rows(snap)) << "a row cut for an engine that takes whole rows";
        inner_.run_level(l, snap, block, out);
    }
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        return inner_.p_value(i, j, s);
    }

private:
    skeleton::SkeletonEngine& inner_;
};

}  // namespace

TEST(MpiSkeletonHubs, HubRowsSplitAcrossRanksGiveTheSerialSearch) {
    // Scale-free data with big hubs: a hub row holds most of a level's tests, so a row cut
    // leaves one rank with it while an entry cut shares it.
    sim::GaussianSimSpec base{150, 400, 0.0, 29};
    sim::NetworkSimSpec net;
    net.graph = sim::GraphKind::ScaleFree;
    net.degree = 2;
    net.hub_exponent = 4.0;
    const Dataset data = sim::simulate_network(base, net).data;
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.max_level = 2;
    skeleton::CpuFisherEngine cpu(data, opt.policy, 2);
    const skeleton::SkeletonResult serial = skeleton::learn_skeleton(cpu, opt);
    ASSERT_GE(serial.levels.size(), 3u);
    WholeRowsEngine whole(cpu);
    for (mpi::Communicator* c : test::communicators()) {
        const skeleton::SkeletonResult split = skeleton::learn_skeleton(cpu, opt, *c);
        const skeleton::SkeletonResult rows = skeleton::learn_skeleton(whole, opt, *c);
        EXPECT_TRUE(same_search(split, serial, c->rank() == 0)) << c->name() << ", rows cut";
        EXPECT_TRUE(same_search(rows, serial, c->rank() == 0)) << c->name() << ", whole rows";
        if (c->size() == 1) continue;
        // The estimated imbalance of every level l >= 1: the entry cut within 2 % of even,
        // far below the row cut at the hub's levels.
        double worst_rows = 1.0;
        for (std::size_t l = 1; l < split.levels.size(); ++l) {
            EXPECT_LE(split.levels[l].imbalance, 1.02) << c->name() << ", level " << l;
            worst_rows = std::max(worst_rows, rows.levels[l].imbalance);
        }
        EXPECT_GT(worst_rows, 1.5) << c->name() << ": the data should have a hub that a row cut cannot share";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, MpiSkeleton,
    testing::Values(Case{false, false}, Case{false, true}, Case{true, false}, Case{true, true}, Case{false, true, true},
                    Case{true, false, true}, Case{false, false, true, true}, Case{false, true, true, true},
                    Case{false, true, false, true}, Case{false, false, true, true, true},
                    Case{false, true, true, true, true}, Case{false, true, true, true, true, true},
                    Case{false, false, false, true, false, true}, Case{false, false, false, false, false, false, true},
                    Case{true, true, false, false, false, false, true}, Case{false, true, true, true, true, true, true},
                    // Level 0 listed as a CSR, split over the ranks (a GPU engine above
                    // 65,536 variables) and run on every rank, sparse and dense pMax.
                    Case{false, true, false, true, true, false, false, true},
                    Case{false, true, false, true, false, true, false, true},
                    Case{false, true, true, true, true, false, false, true},
                    Case{false, false, false, true, false, false, false, true}),
    [](const testing::TestParamInfo<Case>& i) {
        return std::string(i.param.exhaustive ? "CausalLearn" : "Pcalg") +
               (i.param.sparse_pmax ? "SparsePmax" : "DensePmax") +
               (i.param.level0_everywhere ? "Level0Everywhere" : "") + (i.param.keeping ? "EngineKeeps" : "") +
               (i.param.offers_buffer ? "ReducedInPlace" : "") + (i.param.builds_snapshots ? "BuildsSnapshots" : "") +
               (i.param.knowledge ? "Knowledge" : "") + (i.param.lists_level0 ? "ListsLevel0" : "");
    });

namespace {

// Collective checks, run on every communicator of test::communicators().

void check_allreduce(mpi::Communicator& w) {
    const int r = w.rank(), k = w.size();
    EXPECT_EQ(w.allreduce(std::int32_t{r + 1}, ReduceOp::Sum), k * (k + 1) / 2);
    EXPECT_EQ(w.allreduce(std::int64_t{r}, ReduceOp::Max), k - 1);
    EXPECT_EQ(w.allreduce(double(r) + 0.5, ReduceOp::Min), 0.5);
    // Max over bytes written by one rank each is their bitwise OR; large enough to take
    // NCCL's device path rather than the small-message host path.
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(k) * 8192, 0);
    for (std::size_t x = static_cast<std::size_t>(r); x < bytes.size(); x += static_cast<std::size_t>(k))
        bytes[x] = static_cast<std::uint8_t>(1u << (r % 8));
    w.allreduce(std::span<std::uint8_t>(bytes), ReduceOp::Max);
    for (std::size_t x = 0; x < bytes.size(); ++x)
        ASSERT_EQ(bytes[x], 1u << ((x % static_cast<std::size_t>(k)) % 8)) << "byte " << x;
}

void check_allgatherv(mpi::Communicator& w) {
    const int k = w.size();
    std::vector<std::size_t> counts(static_cast<std::size_t>(k));
    for (int q = 0; q < k; ++q)
        counts[static_cast<std::size_t>(q)] = static_cast<std::size_t>(q % 2 ? 0 : 1000 * q + 2);
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    std::vector<std::int64_t> buf(total, -1);
    std::size_t off = 0;
    for (int q = 0; q < w.rank(); ++q) off += counts[static_cast<std::size_t>(q)];
    for (std::size_t x = 0; x < counts[static_cast<std::size_t>(w.rank())]; ++x)
        buf[off + x] = 100000 * w.rank() + static_cast<std::int64_t>(x);
    w.allgatherv(buf.data() + off, buf.data(), counts, DataType::Int64);  // in place
    const std::vector<std::int32_t> gathered = w.allgather(std::int32_t{w.rank()});
    // Checks after the last collective, so that a failing rank cannot leave others waiting.
    std::vector<std::int32_t> ranks(static_cast<std::size_t>(k));
    std::iota(ranks.begin(), ranks.end(), 0);
    EXPECT_EQ(gathered, ranks);
    std::size_t pos = 0;
    for (int q = 0; q < k; ++q)
        for (std::size_t x = 0; x < counts[static_cast<std::size_t>(q)]; ++x)
            ASSERT_EQ(buf[pos++], 100000 * q + static_cast<std::int64_t>(x));
}

void check_gatherv_and_bcast(mpi::Communicator& w) {
    std::vector<std::byte> mine(static_cast<std::size_t>(w.rank()) * 3, std::byte(w.rank()));
    const auto all = w.gatherv(mine, 0);
    // Megabytes (NCCL sends them over the GPUs): rank q sends q * 1,500,007 patterned bytes.
    const auto pattern = [](int q, std::size_t k) { return std::byte(static_cast<unsigned char>(k * 31 + q)); };
    std::vector<std::byte> big(static_cast<std::size_t>(w.rank()) * 1500007);
    for (std::size_t k = 0; k < big.size(); ++k) big[k] = pattern(w.rank(), k);
    const auto all_big = w.gatherv(big, 0);
    std::vector<std::byte> blob;
    if (w.rank() == 0) blob.assign(100000, std::byte{7});
    w.bcast_blob(blob, 0);
    // Checks after the last collective, so that a failing rank cannot leave others waiting.
    EXPECT_EQ(blob, std::vector<std::byte>(100000, std::byte{7}));
    if (w.rank() == 0) {
        ASSERT_EQ(all.size(), static_cast<std::size_t>(w.size()));
        for (int q = 0; q < w.size(); ++q) {
            EXPECT_EQ(all[static_cast<std::size_t>(q)].size(), static_cast<std::size_t>(q) * 3);
            for (std::byte b : all[static_cast<std::size_t>(q)]) EXPECT_EQ(b, std::byte(q));
        }
        ASSERT_EQ(all_big.size(), static_cast<std::size_t>(w.size()));
        for (int q = 0; q < w.size(); ++q) {
            const auto& got = all_big[static_cast<std::size_t>(q)];
            ASSERT_EQ(got.size(), static_cast<std::size_t>(q) * 1500007);
            std::size_t wrong = 0;
            for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != pattern(q, k);
            EXPECT_EQ(wrong, 0u) << "rank " << q << "'s blob";
        }
    } else {
        EXPECT_TRUE(all.empty());
        EXPECT_TRUE(all_big.empty());
    }
}

/// Every rank q > 0 hands rank 0 a block (small, then megabytes: NCCL moves those over the
/// GPUs); the last rank also hands rank 1 one. Ranks not in a transfer pass a null buffer.
void check_transfer(mpi::Communicator& w) {
    const int k = w.size();
    const auto value = [](int q, std::size_t x) { return static_cast<std::int64_t>(x) * 7 + q; };
    std::vector<std::vector<std::int64_t>> got(static_cast<std::size_t>(k));
    for (std::size_t count : {std::size_t{5}, std::size_t{300007}}) {
        for (int q = 1; q < k; ++q) {
            std::vector<std::int64_t> buf;
            if (w.rank() == q)
                for (std::size_t x = 0; x < count; ++x) buf.push_back(value(q, x));
            else if (w.rank() == 0)
                buf.assign(count, -1);
            w.transfer(buf.empty() ? nullptr : buf.data(), count, DataType::Int64, q, 0);
            if (w.rank() == 0) got[static_cast<std::size_t>(q)] = std::move(buf);
        }
        std::vector<std::int64_t> last(w.rank() == 1 || w.rank() == k - 1 ? count : 0, -1);
        if (w.rank() == k - 1)
            for (std::size_t x = 0; x < count; ++x) last[x] = value(k - 1, x);
        if (k > 2) w.transfer(last.empty() ? nullptr : last.data(), count, DataType::Int64, k - 1, 1);
        // Checks after this round's collectives.
        if (w.rank() == 0)
            for (int q = 1; q < k; ++q) {
                std::size_t wrong = 0;
                for (std::size_t x = 0; x < count; ++x) wrong += got[static_cast<std::size_t>(q)][x] != value(q, x);
                EXPECT_EQ(wrong, 0u) << "from rank " << q << ", " << count << " elements";
            }
        if (k > 2 && w.rank() == 1) {
            std::size_t wrong = 0;
            for (std::size_t x = 0; x < count; ++x) wrong += last[x] != value(k - 1, x);
            EXPECT_EQ(wrong, 0u) << "rank " << k - 1 << " to rank 1, " << count << " elements";
        }
    }
}

}  // namespace

TEST(MpiCommunicator, TransferBetweenTwoRanks) {
    for (mpi::Communicator* c : test::communicators()) {
        SCOPED_TRACE(c->name());
        check_transfer(*c);
    }
}

TEST(MpiCommunicator, AllreduceOfEachTypeAndOp) {
    for (mpi::Communicator* c : test::communicators()) {
        SCOPED_TRACE(c->name());
        check_allreduce(*c);
    }
}

TEST(MpiCommunicator, AllgathervInPlaceWithUnevenAndEmptyBlocks) {
    for (mpi::Communicator* c : test::communicators()) {
        SCOPED_TRACE(c->name());
        check_allgatherv(*c);
    }
}

TEST(MpiCommunicator, GathervAndBlobBroadcast) {
    for (mpi::Communicator* c : test::communicators()) {
        SCOPED_TRACE(c->name());
        check_gatherv_and_bcast(*c);
    }
}

TEST(MpiCorrelation, IsBitIdenticalToOneRank) {
    for (std::int64_t n : {1, 5, 37, 64}) {
        const Dataset d = sim::simulate_gaussian({n, 50, 0.2, 3}, 1).data;
        const std::vector<double> got = ci::correlation_matrix(d, 1, test::world());
        EXPECT_EQ(got, ci::correlation_matrix(d, 2)) << "n = " << n;
    }
}

TEST(MpiCommunicator, AgreeReportsOnlyTheLowestFailingRank) {
    mpi::Communicator& w = test::world();
    if (w.size() < 2) GTEST_SKIP() << "needs two ranks";
    const int bad = w.size() - 1;
    auto body = [&] {
        mpi::run_agreed(w, [&] {
            if (w.rank() >= bad) throw InputError("boom on " + std::to_string(w.rank()));
        });
    };
    if (w.rank() == bad)
        EXPECT_THROW(body(), mpi::AgreedFailure);
    else
        EXPECT_THROW(body(), mpi::PeerFailed);
    EXPECT_NO_THROW(mpi::run_agreed(w, [] {}));
}

// ---- the strict communicator (mpi/strict_communicator.cpp) ---------------------------

namespace {

/// `fn` throws CommError on this rank, its message naming this file and `what`.
template <class Fn>
void expect_disagreement(Fn&& fn, const std::string& what) {
    try {
        fn();
        ADD_FAILURE() << "no error for " << what;
    } catch (const mpi::CommError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("strict communicator"), std::string::npos) << msg;
        EXPECT_NE(msg.find("test_mpi_skeleton.cpp:"), std::string::npos) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
}

std::unique_ptr<mpi::Communicator> strict_world() {
    return mpi::make_strict_communicator(mpi::make_mpi_world_communicator(), 60.0);
}

}  // namespace

TEST(MpiStrictCommunicator, EveryMpiTestRunsUnderIt) {
    // ctest sets CUDAG_STRICT_COMM for every MPI test; the world communicator is then
    // checked (a disagreement on it would fail the test with its call site).
    if (test::world().size() < 2) GTEST_SKIP() << "needs two ranks";
    const char* on = std::getenv("CUDAG_STRICT_COMM");
    ASSERT_NE(on, nullptr);
    EXPECT_STREQ(on, "1");
}

TEST(MpiStrictCommunicator, PassesCallsTheRanksMakeAlike) {
    if (test::world().size() < 2) GTEST_SKIP() << "needs two ranks";
    auto w = strict_world();
    check_allreduce(*w);
    check_allgatherv(*w);
    check_gatherv_and_bcast(*w);
    check_transfer(*w);
}

TEST(MpiStrictCommunicator, NamesTheCallSiteWhenCountsDiffer) {
    if (test::world().size() < 2) GTEST_SKIP() << "needs two ranks";
    auto w = strict_world();
    const int r = w->rank(), last = w->size() - 1;
    std::vector<std::int64_t> v(3, r);
    expect_disagreement([&] { w->allreduce(v.data(), v.data(), r == last ? 3 : 2, DataType::Int64, ReduceOp::Max); },
                        "allreduce(int64 x 2");
    expect_disagreement([&] { w->bcast(v.data(), 2, DataType::Int64, r == last ? 1 : 0); }, "bcast(root 1");
    std::vector<std::size_t> counts(static_cast<std::size_t>(w->size()), 1);
    if (r == last) counts[0] = 2;
    std::vector<std::int64_t> all(static_cast<std::size_t>(w->size()) + 1, 0);
    expect_disagreement([&] { w->allgatherv(v.data(), all.data(), counts, DataType::Int64); }, "allgatherv(int64");
    // A rank in another collective (the hang of issue 32: some ranks broadcast, one not).
    expect_disagreement(
        [&] {
            if (r == last)
                w->barrier();
            else
                w->bcast(v.data(), 1, DataType::Int64, 0);
        },
        "barrier");
    // The communicator is still usable after a detected disagreement.
    EXPECT_EQ(w->allreduce(std::int32_t{1}, ReduceOp::Sum), w->size());
}

TEST(MpiStrictCommunicator, NamesBothSidesOfATransferThatDisagree) {
    if (test::world().size() < 2) GTEST_SKIP() << "needs two ranks";
    auto w = strict_world();
    const int r = w->rank(), last = w->size() - 1;
    std::vector<std::int64_t> buf(8, r);
    if (r == 0 || r == last) {
        expect_disagreement([&] { w->transfer(buf.data(), r == 0 ? 4 : 8, DataType::Int64, last, 0); },
                            "transfer(" + std::to_string(last) + " -> 0, int64 x 8");
    } else {
        // Not one of the two ranks: returns at once, without communicating.
        EXPECT_NO_THROW(w->transfer(buf.data(), 8, DataType::Int64, last, 0));
    }
    EXPECT_EQ(w->allreduce(std::int32_t{1}, ReduceOp::Sum), w->size());
}

// Issue 55: the mixed-data test (cg-lrt) and test-wise deletion over ranks: the engine of
// single tests and the batch-driven engine (skeleton::BatchTestEngine, the GPU's way, here
// over the CPU's batch) give the serial search on every rank.
TEST(MpiSkeletonMixed, CgLrtAndTestwiseSearchesGiveTheSerialSearch) {
    // Mixed data: every third column discrete (3 levels, from its predecessor), the others
    // Gaussian in the column before; then 10 % of a copy's cells missing.
    const Dataset cont = sim::simulate_gaussian(sim::GaussianSimSpec{24, 300, 0.15, 11}).data;
    Dataset mixed = cont;
    mixed.levels.assign(static_cast<std::size_t>(mixed.n_vars), {});
    for (std::int64_t v = 0; v < mixed.n_vars; v += 3) {
        mixed.levels[static_cast<std::size_t>(v)] = {"a", "b", "c"};
        double* col = mixed.column(v);
        for (std::int64_t s = 0; s < mixed.n_samples; ++s) col[s] = col[s] < -0.4 ? 0.0 : (col[s] < 0.4 ? 1.0 : 2.0);
    }
    Dataset holes = cont;
    for (std::int64_t k = 0; k < holes.n_vars * holes.n_samples; k += 10) {
        holes.values[static_cast<std::size_t>(k)] = std::numeric_limits<double>::quiet_NaN();
        ++holes.missing;
    }
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = 0.05;
    opt.max_level = 2;
    skeleton::TestSpec cg;
    cg.kind = skeleton::TestKind::CgLrt;
    skeleton::TestSpec fz;
    fz.kind = skeleton::TestKind::FisherZ;
    for (const auto& [data, spec] : {std::pair{&mixed, cg}, std::pair{&holes, fz}}) {
        const Dataset& d = *data;
        const skeleton::TestSpec s = spec;
        const skeleton::CiTestFactory make = [&d, s] {
            return skeleton::make_ci_test(d, s, skeleton::Compat::Pcalg, 1);
        };
        skeleton::CpuCiTestEngine single(d.n_vars, make, opt.policy, 2);
        const skeleton::SkeletonResult serial = skeleton::learn_skeleton(single, opt);
        ASSERT_GE(serial.levels.size(), 2u);
        for (mpi::Communicator* c : test::communicators()) {
            skeleton::BatchTestEngine batch(d.n_vars, std::make_unique<ci::CpuBatchTest>(make, 2, d.names), opt.policy,
                                            2, 97);
            EXPECT_TRUE(same_search(skeleton::learn_skeleton(single, opt, *c), serial, c->rank() == 0))
                << c->name() << ", " << s.name() << ", single tests";
            EXPECT_TRUE(same_search(skeleton::learn_skeleton(batch, opt, *c), serial, c->rank() == 0))
                << c->name() << ", " << s.name() << ", batches";
        }
    }
}
