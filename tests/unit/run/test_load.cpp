// SPDX-License-Identifier: Apache-2.0
// run::load_result: a PC result, an FCI result (its PAG) and an order-MCMC result written
// by their writers read back equal, part by part (in a dense and, under
// CUDAG_GRAPH_DENSE_LIMIT=0, the sparse graph form); files that are not cudag results
// refused in one line naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "bn/mcmc_result.hpp"
#include "core/error.hpp"
#include "core/pag.hpp"
#include "io/hdf5_file.hpp"
#include "pc/result_file.hpp"
#include "run/load.hpp"
#include "support/result_files.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;

class LoadTest : public ::testing::Test {
protected:
    void SetUp() override { dir_ = test::fresh_test_dir("cudag_load"); }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& file) const { return (dir_ / file).string(); }

private:
    fs::path dir_;
};

/// Five variables: a --> c <-- b, c --- d, d <-> e (a bidirected edge, as a conflict gives),
/// a and b separated by {}, a and d by {c}, b and e by {c, d}.
pc::PcResult small_pc_result() {
    pc::PcResult r;
    r.names = {"a", "b", "c", "d", "e"};
    r.level_labels = {{"x", "y"}, {"0", "1", "2"}, {"lo", "hi"}, {"p", "q"}, {"u", "v"}};
    r.skeleton = Graph(5);
    for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 2}, {1, 2}, {2, 3}, {3, 4}}) r.skeleton.add(i, j);
    r.cpdag = Pdag(r.skeleton);
    r.cpdag.orient(0, 2);
    r.cpdag.orient(1, 2);
    r.cpdag.set(3, 4, Mark::Arrow, Mark::Arrow);
    r.sepsets.set(0, 3, {2});
    r.sepsets.set(1, 4, {2, 3});
    r.pmax = skeleton::PairPList(3);
    r.pmax[0] = {0, 1, 0.5};
    r.pmax[1] = {0, 3, 0.25};
    r.pmax[2] = {1, 4, 0.125};
    skeleton::LevelStats l0;
    l0.level = 0;
    l0.tests = 10;
    l0.removed = 3;
    l0.edges_after = 7;
    l0.seconds = 0.5;
    skeleton::LevelStats l1 = l0;
    l1.level = 1;
    l1.tests = 8;
    l1.removed = 2;
    l1.edges_after = 5;
    l1.imbalance = 1.25;
    r.levels = {l0, l1};
    r.n_samples = 123;
    r.config = {{"alpha", "0.05"}, {"test", "chi-square"}, {"command_line", "cudag pc --data x.csv"}};
    r.seconds_total = 1.5;
    return r;
}

TEST_F(LoadTest, PcResultRoundTrips) {
    const pc::PcResult r = small_pc_result();
    pc::write_result_hdf5(r, path("r.h5"));
    const run::LoadedResult back = run::load_result(path("r.h5"));
    ASSERT_TRUE(back.pc.has_value());
    EXPECT_FALSE(back.mcmc.has_value());
    const pc::PcResult& b = *back.pc;
    EXPECT_EQ(b.names, r.names);
    EXPECT_EQ(b.level_labels, r.level_labels);
    EXPECT_EQ(b.skeleton, r.skeleton);
    EXPECT_EQ(b.cpdag, r.cpdag);
    EXPECT_TRUE(b.cpdag.is_bidirected(3, 4));
    EXPECT_EQ(b.sepsets, r.sepsets);
    ASSERT_EQ(b.pmax.size(), r.pmax.size());
    for (std::size_t k = 0; k < r.pmax.size(); ++k) EXPECT_EQ(b.pmax[k], r.pmax[k]);
    ASSERT_EQ(b.levels.size(), 2u);
    EXPECT_EQ(b.levels[1].tests, 8);
    EXPECT_EQ(b.levels[1].edges_after, 5);
    EXPECT_EQ(b.levels[1].imbalance, 1.25);
    EXPECT_EQ(b.n_samples, 123);
    EXPECT_EQ(b.seconds_total, 1.5);
    // config: in the order written, keys as the file stores them ([A-Za-z0-9_])
    ASSERT_EQ(b.config.size(), r.config.size());
    for (std::size_t k = 0; k < r.config.size(); ++k) {
        EXPECT_EQ(b.config[k].first, io::h5::sanitize_attr_name(r.config[k].first));
        EXPECT_EQ(b.config[k].second, r.config[k].second);
    }
}

TEST_F(LoadTest, McmcResultRoundTrips) {
    bn::McmcOutput o;
    o.names = {"a", "b", "c"};
    o.n_samples = 50;
    o.best_dag = Pdag(Graph(3));
    o.best_dag.orient(0, 1);
    o.best_dag.orient(2, 1);
    o.cpdag = o.best_dag;
    o.result.edge_prob = {0, 0.9, 0.1, 0.05, 0, 0.2, 0.3, 0.8, 0};
    o.result.kept_per_chain = 2;
    for (int c = 0; c < 2; ++c) {
        bn::OrderChainResult ch;
        ch.trace = {-10.0 - c, -9.5 - c};
        ch.acceptance_rate = 0.25 + c;
        ch.best_order = {2, 0, 1};
        ch.final_order = {0, 2, 1};
        ch.best_score = -9.0 - c;
        o.result.chains.push_back(ch);
    }
    o.best_chain = 1;
    o.best_dag_score = -9.25;
    o.diagnostics.score_psrf = 1.05;
    o.diagnostics.score_ess = 40.0;
    o.diagnostics.edges.max_psrf = std::numeric_limits<double>::infinity();
    o.diagnostics.edges.edges_counted = 4;
    o.burn_in = 10;
    o.thin = 3;
    o.config = {{"score", "bdeu"}, {"chains", "2"}};
    o.seconds_total = 2.5;
    bn::write_mcmc_result_hdf5(o, {-1.0, -2.0, -3.0}, path("m.h5"));
    const run::LoadedResult back = run::load_result(path("m.h5"));
    ASSERT_TRUE(back.mcmc.has_value());
    EXPECT_FALSE(back.pc.has_value());
    const bn::McmcOutput& b = *back.mcmc;
    EXPECT_EQ(b.names, o.names);
    EXPECT_EQ(b.n_samples, 50);
    EXPECT_EQ(b.best_dag, o.best_dag);
    EXPECT_EQ(b.cpdag, o.cpdag);
    EXPECT_EQ(b.result.edge_prob, o.result.edge_prob);
    ASSERT_EQ(b.result.chains.size(), 2u);
    for (std::size_t c = 0; c < 2; ++c) {
        EXPECT_EQ(b.result.chains[c].trace, o.result.chains[c].trace);
        EXPECT_EQ(b.result.chains[c].acceptance_rate, o.result.chains[c].acceptance_rate);
        EXPECT_EQ(b.result.chains[c].best_order, o.result.chains[c].best_order);
        EXPECT_EQ(b.result.chains[c].final_order, o.result.chains[c].final_order);
        EXPECT_EQ(b.result.chains[c].best_score, o.result.chains[c].best_score);
    }
    EXPECT_EQ(b.best_chain, 1);
    EXPECT_EQ(b.best_dag_score, -9.25);
    EXPECT_EQ(b.diagnostics.score_psrf, 1.05);
    EXPECT_EQ(b.diagnostics.score_ess, 40.0);
    EXPECT_TRUE(std::isinf(b.diagnostics.edges.max_psrf));
    EXPECT_EQ(b.diagnostics.edges.edges_counted, 4);
    EXPECT_EQ(b.burn_in, 10);
    EXPECT_EQ(b.thin, 3);
    EXPECT_EQ(b.config, o.config);
    EXPECT_EQ(b.seconds_total, 2.5);
}

TEST_F(LoadTest, RefusesWhatIsNotACudagResult) {
    { std::ofstream(path("x.csv")) << "a,b\n1,2\n"; }
    try {
        run::load_result(path("x.csv"));
        FAIL() << "a CSV file was loaded";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path("x.csv") + ": not an HDF5 file"), std::string::npos) << what;
    }
    {
        io::h5::Handle f = io::h5::create_file(path("other.h5"));
        io::h5::write_string_attr(f.get(), "format", "someone-else-1", "other.h5");
    }
    try {
        run::load_result(path("other.h5"));
        FAIL() << "an HDF5 file of another format was loaded";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("not a cudag result (root attribute format = 'someone-else-1'"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos);
    }
}

TEST_F(LoadTest, RefusesACpdagOffTheSkeleton) {
    pc::PcResult r = small_pc_result();
    r.cpdag.orient(0, 4);  // an edge the skeleton does not have
    pc::write_result_hdf5(r, path("bad.h5"));
    EXPECT_THROW(run::load_result(path("bad.h5")), InputError);
}

/// small_pc_result as a bootstrap's result: three pairs counted over B = 4 replicates.
pc::PcResult small_bootstrap_result() {
    pc::PcResult r = small_pc_result();
    bootstrap::Table t;
    t.replicates = 4;
    t.resample = "half";
    t.seed = (std::uint64_t{1} << 63) + 5;  // above int64: the attribute is uint64
    t.consensus = 0.3;
    t.pairs = {0, 2, 1, 2, 3, 4};
    t.counts = {0, 4, 0, 0, 0, 1, 2, 1, 0, 0, 2, 0, 0, 1, 1};
    r.bootstrap = t;
    return r;
}

TEST_F(LoadTest, BootstrapTableRoundTrips) {
    const pc::PcResult r = small_bootstrap_result();
    pc::write_result_hdf5(r, path("b.h5"));
    const pc::PcResult b = *run::load_result(path("b.h5")).pc;
    ASSERT_TRUE(b.bootstrap.has_value());
    EXPECT_EQ(b.bootstrap->replicates, 4);
    EXPECT_EQ(b.bootstrap->resample, "half");
    EXPECT_EQ(b.bootstrap->seed, r.bootstrap->seed);
    EXPECT_EQ(b.bootstrap->consensus, 0.3);
    EXPECT_EQ(b.bootstrap->pairs, r.bootstrap->pairs);
    EXPECT_EQ(b.bootstrap->counts, r.bootstrap->counts);
    pc::write_result_hdf5(small_pc_result(), path("plain.h5"));
    EXPECT_FALSE(run::load_result(path("plain.h5")).pc->bootstrap.has_value());
}

TEST_F(LoadTest, RefusesAnInconsistentBootstrapTable) {
    const auto refused = [this](pc::PcResult r, const std::string& file) {
        pc::write_result_hdf5(r, path(file));
        try {
            run::load_result(path(file));
            ADD_FAILURE() << file << " was loaded";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("/bootstrap row"), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos);
        }
    };
    pc::PcResult r = small_bootstrap_result();
    r.bootstrap->counts[0] = 1;  // row 0 sums to 5, not B = 4
    refused(r, "sum.h5");
    r = small_bootstrap_result();
    r.bootstrap->pairs = {0, 2, 3, 4, 1, 2};  // out of order
    refused(r, "order.h5");
    r = small_bootstrap_result();
    r.bootstrap->pairs[5] = 7;  // a node beyond the five
    refused(r, "node.h5");
}

/// small_pc_result as `cudag fci` leaves it: the CPDAG empty, a PAG on the skeleton
/// a o-> c, b --> c, c <-> d, d o-o e.
pc::PcResult small_fci_result() {
    using namespace marks;
    pc::PcResult r = small_pc_result();
    r.cpdag = Pdag(Graph(5));
    Pag g(5);
    g.add(0, 2, kCircle, kArrow);
    g.add(1, 2, kTail, kArrow);
    g.add(2, 3, kArrow, kArrow);
    g.add(3, 4, kCircle, kCircle);
    r.pag = g;
    r.config.emplace_back("learner", "fci");
    return r;
}

TEST_F(LoadTest, PagRoundTrips) {
    const pc::PcResult r = small_fci_result();
    pc::write_result_hdf5(r, path("f.h5"));
    const pc::PcResult b = *run::load_result(path("f.h5")).pc;
    ASSERT_TRUE(b.pag.has_value());
    EXPECT_EQ(*b.pag, *r.pag);
    EXPECT_EQ(edge_string(*b.pag, 0, 2), "o->");
    EXPECT_EQ(edge_string(*b.pag, 2, 3), "<->");
    EXPECT_EQ(b.cpdag, Pdag(Graph(5)));
    EXPECT_EQ(b.skeleton, r.skeleton);
    EXPECT_EQ(b.sepsets, r.sepsets);
    EXPECT_EQ(b.levels.size(), 2u);
    EXPECT_FALSE(run::load_result(path("f.h5")).mcmc.has_value());
    pc::write_result_hdf5(small_pc_result(), path("plain.h5"));
    EXPECT_FALSE(run::load_result(path("plain.h5")).pc->pag.has_value());
}

TEST_F(LoadTest, RefusesAnInconsistentPag) {
    const auto refused = [this](const pc::PcResult& r, const std::string& file, const std::string& says) {
        pc::write_result_hdf5(r, path(file));
        try {
            run::load_result(path(file));
            ADD_FAILURE() << file << " was loaded";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(says), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos);
        }
    };
    pc::PcResult r = small_fci_result();
    r.pag->add(0, 4, marks::kTail, marks::kArrow);  // an edge the skeleton does not have
    refused(r, "off.h5", "/pag/edges and /skeleton/edges do not join the same pairs");
    r = small_fci_result();
    r.pag->set(0, 2, 7);  // not a mark
    refused(r, "mark.h5", "/pag/edges row 0 is not (a, b, mark at a, mark at b)");
}

}  // namespace
}  // namespace cudag
