// SPDX-License-Identifier: Apache-2.0
// pc/bootstrap.hpp (PC's replicates on the bootstrap layer): a replicate's data are its
// resample less the columns constant there, its graph is a direct run on its written
// resample, the counts are the sums of those graphs (B per pair), independent of the
// threads, and the result holds the consensus graph and the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/knowledge.hpp"
#include "io/dataset_io.hpp"
#include "pc/bootstrap.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "support/result_files.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;
using BootstrapTable = bootstrap::Table;

bootstrap::Options options(std::int64_t b, bootstrap::Resample r = bootstrap::Resample::Bootstrap,
                           std::uint64_t seed = 7) {
    bootstrap::Options o;
    o.replicates = b;
    o.resample = r;
    o.seed = seed;
    return o;
}

pc::PcConfig config(skeleton::TestKind kind, int threads = 1) {
    pc::PcConfig cfg;
    cfg.test.kind = kind;
    cfg.alpha = 0.05;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = threads;
    if (kind == skeleton::TestKind::CmiKnn) {
        cfg.test.cmi.knn = 0.2;
        cfg.test.cmi.permutations = 39;
        cfg.test.cmi.seed = 3;
        cfg.max_level = 1;
    }
    return cfg;
}

/// The table's counts by pair, for comparisons that name the pair.
std::map<std::pair<int, int>, std::vector<int>> by_pair(const BootstrapTable& t) {
    std::map<std::pair<int, int>, std::vector<int>> m;
    for (std::size_t e = 0; e < t.size(); ++e)
        m[{t.pairs[2 * e], t.pairs[2 * e + 1]}] =
            std::vector<int>(t.counts.begin() + 5 * static_cast<std::ptrdiff_t>(e),
                             t.counts.begin() + 5 * static_cast<std::ptrdiff_t>(e + 1));
    return m;
}

/// The counts of `graphs` as the table holds them (pairs adjacent in some graph).
std::map<std::pair<int, int>, std::vector<int>> count(const std::vector<Pdag>& graphs) {
    std::map<std::pair<int, int>, std::vector<int>> m;
    for (const Pdag& g : graphs)
        for (std::int32_t i = 0; i < g.n(); ++i)
            for (std::int32_t j : g.neighbours(i))
                if (j > i)
                    m.try_emplace({i, j}, std::vector<int>(5, 0)).first->second[bootstrap::cpdag_kind(g, i, j)]++;
    for (auto& [pair, c] : m) c[0] = static_cast<int>(graphs.size()) - c[1] - c[2] - c[3] - c[4];
    return m;
}

class Bootstrap : public ::testing::Test {
protected:
    void SetUp() override { dir_ = test::fresh_test_dir("cudag_boot"); }
    void TearDown() override { fs::remove_all(dir_); }

    /// Replicates 0..b-1 against direct runs on their written resamples, and the table
    /// against the counts of those direct runs.
    void expect_replicates_are_direct_runs(const Dataset& data, const pc::PcConfig& cfg, bootstrap::Options b) {
        std::vector<Pdag> direct;
        for (std::int64_t r = 0; r < b.replicates; ++r) {
            const auto rows = bootstrap::resample_rows(data.n_samples, b, r);
            const std::string path = (dir_ / ("rep" + std::to_string(r) + ".csv")).string();
            io::write_dataset(bootstrap::resample_data(data, rows, "replicate"), path);
            const Dataset back =
                io::read_dataset(path, "", data.discrete() ? io::TableMode::Labels : io::TableMode::Numeric);
            direct.push_back(pc::run_pc(back, cfg).cpdag);
            EXPECT_EQ(pc::run_replicate(data, cfg, b, r), direct.back()) << "replicate " << r;
        }
        mpi::SerialCommunicator serial;
        const BootstrapTable t = pc::run_bootstrap(data, cfg, b, serial);
        EXPECT_EQ(t.replicates, b.replicates);
        EXPECT_EQ(by_pair(t), count(direct));
        EXPECT_GT(t.size(), 0u);
    }

    fs::path dir_;
};

TEST(BootstrapData, AWorkersReusedResampleOnThreadsIsTheReplicatesData) {
    // One scratch data set through replicates of different shapes (a column constant in some
    // half-samples is left out of those), continuous and discrete, on 1 and 4 threads: each
    // time what replicate_data gives.
    Dataset gauss = sim::simulate_gaussian({70, 40, 0.2, 3}).data;
    for (std::int64_t s = 1; s < gauss.n_samples; ++s) gauss.column(2)[s] = 1.0;
    gauss.column(2)[0] = 2.0;
    Dataset disc;
    disc.n_vars = 70;
    disc.n_samples = 40;
    for (std::int64_t v = 0; v < disc.n_vars; ++v) {
        std::string name = "D";
        name += std::to_string(v);
        disc.names.push_back(name);
        const std::int64_t k = 2 + v % 4;
        disc.levels.emplace_back();
        for (std::int64_t c = 0; c < k; ++c) disc.levels.back().push_back(std::to_string(c));
        for (std::int64_t s = 0; s < disc.n_samples; ++s)
            disc.values.push_back(static_cast<double>(s == 0 ? k - 1 : (s * (v + 1) / 3) % (k - 1)));
    }
    const auto b = options(8, bootstrap::Resample::Half);
    for (const Dataset* d : {&gauss, &disc}) {
        const pc::PcConfig cfg = config(d->discrete() ? skeleton::TestKind::GSquare : skeleton::TestKind::FisherZ);
        for (int threads : {1, 4}) {
            Dataset scratch;
            int shapes = 0;
            std::int64_t last = -1;
            for (std::int64_t r = 0; r < b.replicates; ++r) {
                std::vector<std::int32_t> kept, kept_into;
                const Dataset want = pc::replicate_data(*d, cfg, b, r, kept);
                pc::replicate_data_into(*d, cfg, b, r, kept_into, scratch, threads);
                EXPECT_EQ(kept_into, kept) << r;
                EXPECT_EQ(scratch.n_vars, want.n_vars) << r;
                EXPECT_EQ(scratch.n_samples, want.n_samples) << r;
                EXPECT_EQ(scratch.values, want.values) << "replicate " << r << ", " << threads << " threads";
                EXPECT_EQ(scratch.names, want.names) << r;
                EXPECT_EQ(scratch.levels, want.levels) << r;
                EXPECT_EQ(scratch.source, want.source) << r;
                shapes += want.n_vars != last ? 1 : 0;
                last = want.n_vars;
            }
            if (!d->discrete()) {
                EXPECT_GT(shapes, 1) << "every half-sample had the same columns";
            }
        }
    }
}

TEST_F(Bootstrap, FisherReplicatesAreDirectRunsOnTheirResamples) {
    const Dataset data = sim::simulate_gaussian({12, 200, 0.25, 11}).data;
    expect_replicates_are_direct_runs(data, config(skeleton::TestKind::FisherZ), options(4));
    expect_replicates_are_direct_runs(data, config(skeleton::TestKind::FisherZ), options(3, bootstrap::Resample::Half));
}

TEST_F(Bootstrap, DiscreteReplicatesAreDirectRunsOnTheirResamples) {
    const sim::BayesNet net = sim::random_network({8, 400, 0.4, 3, 17});
    const Dataset data = sim::forward_sample(net, 400, 19, 1);
    pc::PcConfig cfg = config(skeleton::TestKind::GSquare);
    expect_replicates_are_direct_runs(data, cfg, options(3));
    cfg.test.kind = skeleton::TestKind::ChiSquare;
    expect_replicates_are_direct_runs(data, cfg, options(2, bootstrap::Resample::Half));
}

TEST_F(Bootstrap, CmiKnnReplicatesAreDirectRunsOnTheirResamples) {
    const Dataset data = sim::simulate_nonlinear({6, 80, 0.3, 5}).data;
    expect_replicates_are_direct_runs(data, config(skeleton::TestKind::CmiKnn), options(2));
}

TEST(BootstrapCounts, SumToBPerPairAndDoNotDependOnThreads) {
    const Dataset data = sim::simulate_gaussian({20, 150, 0.15, 21}).data;
    mpi::SerialCommunicator serial;
    const auto b = options(6);
    const BootstrapTable one = pc::run_bootstrap(data, config(skeleton::TestKind::FisherZ, 1), b, serial);
    const BootstrapTable two = pc::run_bootstrap(data, config(skeleton::TestKind::FisherZ, 2), b, serial);
    EXPECT_EQ(one.pairs, two.pairs);
    EXPECT_EQ(one.counts, two.counts);
    ASSERT_GT(one.size(), 0u);
    for (std::size_t e = 0; e < one.size(); ++e) {
        int sum = 0;
        for (int k = 0; k < 5; ++k) sum += one.counts[5 * e + k];
        EXPECT_EQ(sum, 6) << "pair " << e;
        EXPECT_LT(one.counts[5 * e], 6) << "a listed pair is adjacent somewhere";
        EXPECT_LT(one.pairs[2 * e], one.pairs[2 * e + 1]);
        if (e > 0) {
            EXPECT_LT(std::make_pair(one.pairs[2 * e - 2], one.pairs[2 * e - 1]),
                      std::make_pair(one.pairs[2 * e], one.pairs[2 * e + 1]));
        }
    }
    // A different seed gives other resamples, and other counts.
    auto other = b;
    other.seed = 8;
    EXPECT_NE(pc::run_bootstrap(data, config(skeleton::TestKind::FisherZ, 1), other, serial).counts, one.counts);
}

TEST(BootstrapResult, HoldsTheConsensusAndTheTable) {
    const Dataset data = sim::simulate_gaussian({10, 120, 0.3, 2}).data;
    mpi::SerialCommunicator serial;
    auto b = options(5);
    b.consensus = 0.6;
    const pc::PcResult r = pc::bootstrap_pc(data, config(skeleton::TestKind::FisherZ), b, serial);
    ASSERT_TRUE(r.bootstrap.has_value());
    EXPECT_EQ(r.cpdag, bootstrap::consensus_graph(*r.bootstrap, 10));
    EXPECT_EQ(r.skeleton, r.cpdag.skeleton());
    EXPECT_EQ(r.names, data.names);
    EXPECT_TRUE(r.levels.empty());
    const auto has = [&](const std::string& key, const std::string& value) {
        return std::find(r.config.begin(), r.config.end(), std::make_pair(key, value)) != r.config.end();
    };
    EXPECT_TRUE(has("bootstrap_replicates", "5"));
    EXPECT_TRUE(has("bootstrap_resample", "bootstrap"));
    EXPECT_TRUE(has("n_samples", "120"));
}

TEST(BootstrapReplicate, RunsWithoutPmaxGiveTheSameSkeletonSepsetsAndGraph) {
    // A replicate's run (PcConfig::keep_pmax = false) collects no pMax; the rest is the
    // run's, for every test, with and without background knowledge (its pairs dropped).
    const Dataset gauss = sim::simulate_gaussian({24, 400, 0.15, 2}, 1).data;
    const Dataset discrete = sim::forward_sample(sim::random_network({14, 800, 0.2, 3, 4}), 800, 10, 1);
    const Dataset nonlinear = sim::simulate_nonlinear({10, 200, 0.2, 5}, 1).data;
    Knowledge known(24);
    known.forbid_pair(0, 1);
    known.require_pair(2, 3);
    for (const auto& [data, kind] :
         {std::pair{&gauss, skeleton::TestKind::FisherZ}, std::pair{&discrete, skeleton::TestKind::GSquare},
          std::pair{&nonlinear, skeleton::TestKind::CmiKnn}})
        for (const bool with_knowledge : {false, true}) {
            if (with_knowledge && kind != skeleton::TestKind::FisherZ) continue;
            pc::PcConfig cfg = config(kind, 2);
            if (with_knowledge) cfg.knowledge = known;
            const pc::PcResult full = pc::run_pc(*data, cfg);
            cfg.keep_pmax = false;
            const pc::PcResult lean = pc::run_pc(*data, cfg);
            const std::string what = skeleton::to_string(kind) + (with_knowledge ? " with knowledge" : "");
            EXPECT_FALSE(full.pmax.empty()) << what;
            EXPECT_TRUE(lean.pmax.empty()) << what;
            EXPECT_TRUE(lean.skeleton == full.skeleton) << what;
            EXPECT_TRUE(lean.sepsets == full.sepsets) << what;
            EXPECT_EQ(lean.cpdag, full.cpdag) << what;
            EXPECT_EQ(lean.levels.size(), full.levels.size()) << what;
            EXPECT_GT(full.sepsets.size(), 0u) << what;
        }
}

TEST(BootstrapReplicate, ErrorsNameTheReplicate) {
    // 10 rows allow Fisher-z's --max-level 4 (m > l + 3); a half-sample's 5 do not.
    const Dataset d = sim::simulate_gaussian({4, 10, 0.5, 1}).data;
    pc::PcConfig cfg = config(skeleton::TestKind::FisherZ);
    cfg.max_level = 4;
    EXPECT_NO_THROW(pc::run_pc(d, cfg));
    mpi::SerialCommunicator serial;
    try {
        pc::run_bootstrap(d, cfg, options(3, bootstrap::Resample::Half), serial);
        FAIL() << "no replicate failed";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("(bootstrap replicate 0)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("too few for --max-level 4"), std::string::npos) << e.what();
    }
}

TEST_F(Bootstrap, AColumnConstantInAResampleIsIsolatedAsInItsWrittenResample) {
    // Column X3 differs from its other values in row 0 only: the half-samples without row 0
    // leave it out (isolated), and the written resample omits it too.
    Dataset d = sim::simulate_gaussian({6, 60, 0.5, 1}).data;
    for (std::int64_t s = 1; s < d.n_samples; ++s) d.column(2)[s] = 1.0;
    d.column(2)[0] = 2.0;
    const pc::PcConfig cfg = config(skeleton::TestKind::FisherZ);
    const auto b = options(6, bootstrap::Resample::Half);
    int left_out = 0;
    for (std::int64_t r = 0; r < b.replicates; ++r) {
        std::vector<std::int32_t> kept;
        const Dataset rd = pc::replicate_data(d, cfg, b, r, kept);
        const Pdag g = pc::run_replicate(d, cfg, b, r);
        if (rd.n_vars == 6) continue;
        ++left_out;
        EXPECT_EQ(kept, (std::vector<std::int32_t>{0, 1, 3, 4, 5}));
        EXPECT_TRUE(g.neighbours(2).empty());
        const std::string path = (dir_ / "rep.csv").string();
        io::write_dataset(rd, path);
        const Pdag direct = pc::run_pc(io::read_dataset(path), cfg).cpdag;
        ASSERT_EQ(direct.n(), 5);
        for (std::int32_t i = 0; i < 5; ++i)
            for (std::int32_t j = 0; j < 5; ++j)
                EXPECT_EQ(g.end(kept[i], kept[j]), direct.end(i, j)) << "replicate " << r << ": " << i << ", " << j;
    }
    EXPECT_GT(left_out, 0) << "no half-sample missed row 0";
    // Background knowledge keeps holding among the columns kept, X3 with it or not.
    pc::PcConfig known = cfg;
    known.knowledge = Knowledge(6);
    known.knowledge.require_pair(0, 1);
    known.knowledge.forbid_pair(3, 4);
    known.knowledge.require_direction(2, 5);  // X3 -> X6: dropped where X3 is left out
    known.knowledge.set_tier(4, 0);
    known.knowledge.set_tier(0, 1);  // X5 before X1
    for (std::int64_t r = 0; r < b.replicates; ++r) {
        const Pdag g = pc::run_replicate(d, known, b, r);
        EXPECT_TRUE(g.adjacent(0, 1)) << r;
        EXPECT_FALSE(g.adjacent(3, 4)) << r;
        EXPECT_NE(g.end(4, 0), Mark::Arrow) << r << ": X1 -> X5 is against the tiers";
    }
    // A column constant in the whole data is refused, as a run refuses it.
    for (std::int64_t s = 0; s < d.n_samples; ++s) d.column(2)[s] = 1.0;
    mpi::SerialCommunicator serial;
    EXPECT_THROW(pc::run_bootstrap(d, cfg, b, serial), InputError);
}

}  // namespace
}  // namespace cudag
