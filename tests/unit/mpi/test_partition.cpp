// SPDX-License-Identifier: Apache-2.0
// The level partition (equal-work contiguous row blocks) and the flat accumulators the
// distributed merge uses (pMax table, separating-set log), plus the serial communicator.
#include <gtest/gtest.h>

#include <span>

#include <algorithm>
#include <string>
#include <memory>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "core/graph.hpp"
#include "mpi/communicator.hpp"
#include "mpi/mpi_communicator.hpp"
#include "mpi/partition.hpp"
#include "skeleton/merge.hpp"
#include "skeleton/row_work.hpp"

using namespace cudag;
using mpi::partition_rows;
using mpi::RowPartition;

namespace {

double part_work(const std::vector<double>& w, const RowPartition& p, int k) {
    return std::accumulate(w.begin() + p.begin(k), w.begin() + p.end(k), 0.0);
}

testing::AssertionResult is_cover(const RowPartition& p, std::int64_t rows, int parts) {
    if (p.parts() != parts) return testing::AssertionFailure() << p.parts() << " parts, wanted " << parts;
    if (p.bounds.front() != 0 || p.bounds.back() != rows)
        return testing::AssertionFailure() << "bounds do not span [0, " << rows << ")";
    for (int k = 0; k < parts; ++k)
        if (p.begin(k) > p.end(k)) return testing::AssertionFailure() << "part " << k << " is reversed";
    return testing::AssertionSuccess();
}

}  // namespace

TEST(Partition, UniformWorkSplitsEvenly) {
    const std::vector<double> w(100, 1.0);
    const RowPartition p = partition_rows(w, 4);
    ASSERT_TRUE(is_cover(p, 100, 4));
    EXPECT_EQ(p.bounds, (std::vector<std::int64_t>{0, 25, 50, 75, 100}));
    EXPECT_DOUBLE_EQ(p.imbalance, 1.0);
}

TEST(Partition, SkewedWorkIsBalancedByWorkNotRows) {
    // Level 0: row i has n - 1 - i pairs, so the first block must hold fewer rows.
    Adjacency a;
    a.n = 1000;
    const std::vector<double> w = skeleton::row_work(a, 0);
    const RowPartition p = partition_rows(w, 4);
    ASSERT_TRUE(is_cover(p, 1000, 4));
    EXPECT_LT(p.end(0) - p.begin(0), p.end(3) - p.begin(3));
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(part_work(w, p, k), total / 4, 1000.0) << "part " << k;
    EXPECT_LT(p.imbalance, 1.01);
}

TEST(Partition, OneHeavyRowDominates) {
    std::vector<double> w(10, 1.0);
    w[3] = 1000.0;
    const RowPartition p = partition_rows(w, 3);
    ASSERT_TRUE(is_cover(p, 10, 3));
    // The heavy row sits alone or nearly so; the imbalance reports it.
    int holder = -1;
    for (int k = 0; k < 3; ++k)
        if (p.begin(k) <= 3 && 3 < p.end(k)) holder = k;
    ASSERT_GE(holder, 0);
    EXPECT_GT(p.imbalance, 2.5);
}

TEST(Partition, MoreRanksThanRows) {
    const std::vector<double> w = {5.0, 1.0, 2.0};
    const RowPartition p = partition_rows(w, 8);
    ASSERT_TRUE(is_cover(p, 3, 8));
    int non_empty = 0;
    for (int k = 0; k < 8; ++k) non_empty += p.end(k) > p.begin(k);
    EXPECT_LE(non_empty, 3);
    double sum = 0;
    for (int k = 0; k < 8; ++k) sum += part_work(w, p, k);
    EXPECT_DOUBLE_EQ(sum, 8.0);
}

TEST(Partition, ZeroWorkSplitsByRowCount) {
    const std::vector<double> w(10, 0.0);
    const RowPartition p = partition_rows(w, 3);
    ASSERT_TRUE(is_cover(p, 10, 3));
    EXPECT_EQ(p.bounds, (std::vector<std::int64_t>{0, 3, 6, 10}));
    EXPECT_DOUBLE_EQ(p.imbalance, 1.0);
}

TEST(Partition, NoRowsAndOnePart) {
    EXPECT_TRUE(is_cover(partition_rows(std::vector<double>{}, 4), 0, 4));
    const RowPartition one = partition_rows(std::vector<double>{1, 2, 3}, 1);
    EXPECT_EQ(one.bounds, (std::vector<std::int64_t>{0, 3}));
}

TEST(Partition, DeterministicForSameInput) {
    std::vector<double> w(5000);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>((i * 7919) % 113) * 0.37;
    for (int parts : {2, 3, 7, 64}) {
        const RowPartition a = partition_rows(w, parts), b = partition_rows(w, parts);
        EXPECT_EQ(a.bounds, b.bounds);
        EXPECT_TRUE(is_cover(a, 5000, parts));
    }
}

TEST(Partition, RowWorkCountsTestsOfALevel) {
    Graph g(5);
    for (int j = 1; j < 5; ++j) g.add(0, j);  // a star: row 0 has 4 neighbours
    g.add(1, 2);
    const Adjacency a = Adjacency::from_graph(g);
    const std::vector<double> w1 = skeleton::row_work(a, 1);
    EXPECT_DOUBLE_EQ(w1[0], 4.0 * 3.0);  // 4 neighbours x C(3, 1)
    EXPECT_DOUBLE_EQ(w1[1], 2.0 * 1.0);  // neighbours {0, 2}
    EXPECT_DOUBLE_EQ(w1[3], 0.0);        // one neighbour: nothing to condition on
    const std::vector<double> w3 = skeleton::row_work(a, 3);
    EXPECT_DOUBLE_EQ(w3[0], 4.0);  // 4 x C(3, 3)
    EXPECT_DOUBLE_EQ(w3[1], 0.0);
}

// ---- entries cut inside rows (the hub rows of scale-free graphs) ----------------------

namespace {

/// The work of entries [b, e) of a CSR whose row i's entries cost w[i] each.
double entry_work(const std::vector<std::int64_t>& off, const std::vector<double>& w, std::int64_t b, std::int64_t e) {
    double sum = 0;
    for (std::size_t i = 0; i + 1 < off.size(); ++i) {
        const std::int64_t lo = std::max(b, off[i]), hi = std::min(e, off[i + 1]);
        if (hi > lo) sum += w[i] * static_cast<double>(hi - lo);
    }
    return sum;
}

}  // namespace

TEST(EntryPartition, OneHubRowIsSharedByEveryPart) {
    // A star: row 0 has 4,000 entries of cost 100, the 4,000 leaves one entry of cost 1.
    std::vector<std::int64_t> off{0, 4000};
    std::vector<double> w{100.0};
    for (int k = 0; k < 4000; ++k) {
        off.push_back(off.back() + 1);
        w.push_back(1.0);
    }
    for (int parts : {2, 3, 4, 7}) {
        const mpi::EntryPartition p = mpi::partition_entries(off, w, parts, 8);
        ASSERT_EQ(p.parts(), parts);
        EXPECT_EQ(p.begin(0), 0);
        EXPECT_EQ(p.end(parts - 1), off.back());
        const double total = entry_work(off, w, 0, off.back());
        double heaviest = 0;
        for (int k = 0; k < parts; ++k) {
            EXPECT_LE(p.begin(k), p.end(k));
            if (k > 0) {
                EXPECT_EQ(p.begin(k) % 8, 0) << "cuts lie on multiples of 8 entries";
            }
            heaviest = std::max(heaviest, entry_work(off, w, p.begin(k), p.end(k)));
        }
        // Every part but possibly the last starts inside the hub row.
        EXPECT_LT(p.begin(parts - 1), 4000) << parts << " parts";
        EXPECT_NEAR(p.imbalance, heaviest / (total / parts), 1e-12);
        EXPECT_LE(p.imbalance, 1.02) << parts << " parts";  // cuts within 4 entries (400) of the target
        // A row cut could do no better than the hub alone.
        EXPECT_GT(mpi::partition_rows(
                      [&] {
                          std::vector<double> rw(w.size());
                          for (std::size_t i = 0; i < w.size(); ++i)
                              rw[i] = w[i] * static_cast<double>(off[i + 1] - off[i]);
                          return rw;
                      }(),
                      parts)
                      .imbalance,
                  1.5);
    }
}

TEST(EntryPartition, EmptyRowsZeroWorkAndMorePartsThanEntries) {
    const std::vector<std::int64_t> off{0, 0, 3, 3, 5};
    const std::vector<double> w{0.0, 2.0, 0.0, 1.0};
    const mpi::EntryPartition p = mpi::partition_entries(off, w, 6, 1);
    ASSERT_EQ(p.parts(), 6);
    for (int k = 0; k < 6; ++k) EXPECT_LE(p.begin(k), p.end(k));
    EXPECT_EQ(p.end(5), 5);
    const mpi::EntryPartition none = mpi::partition_entries(off, std::vector<double>(4, 0.0), 2, 1);
    EXPECT_EQ(none.bounds, (std::vector<std::int64_t>{0, 3, 5}));  // by count: 2.5 rounds to 3
    EXPECT_EQ(none.imbalance, 1.0);
    const mpi::EntryPartition empty = mpi::partition_entries(std::vector<std::int64_t>{0}, std::vector<double>{}, 3, 8);
    EXPECT_EQ(empty.bounds, (std::vector<std::int64_t>{0, 0, 0, 0}));
    const mpi::EntryPartition a = mpi::partition_entries(off, w, 3, 2), b = mpi::partition_entries(off, w, 3, 2);
    EXPECT_EQ(a.bounds, b.bounds);
}

TEST(PmaxTable, DenseAndSparseSlotsTakeTheMaximum) {
    skeleton::PmaxTable d = skeleton::PmaxTable::dense(4);
    d.raise(1, 3, 0.2);
    d.raise(1, 3, 0.1);
    d.raise(0, 1, 0.5);
    EXPECT_EQ(d.pairs(), (skeleton::PairPList{{0, 1, 0.5}, {1, 3, 0.2}}));

    Graph g(4);
    g.add(0, 2);
    g.add(3, 1);
    skeleton::PmaxTable s = skeleton::PmaxTable::sparse(g);
    EXPECT_EQ(s.slot(1, 3), 1);
    s.raise(1, 3, 0.7);
    s.raise(0, 2, 0.0);
    EXPECT_EQ(s.pairs(), (skeleton::PairPList{{0, 2, 0.0}, {1, 3, 0.7}}));
    const skeleton::PmaxTable back = skeleton::PmaxTable::from_pairs(4, false, s.pairs());
    EXPECT_EQ(back.pairs(), s.pairs());
}

TEST(SepSetLog, SortsUnitesAndRoundTrips) {
    skeleton::SepSetLog a, b;
    a.add(2, 5, {1, 3});
    a.add(0, 4, std::vector<std::int32_t>{});
    b.add(2, 5, {3, 4});  // the other endpoint's sets of the same pair (exhaustive mode)
    b.add(0, 1, {7});
    a.append(skeleton::SepSetLog::deserialize(b.serialize()));
    const SepSets s = a.to_sepsets();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s.get(2, 5), (std::vector<std::int32_t>{1, 3, 4}));
    EXPECT_EQ(s.get(0, 1), (std::vector<std::int32_t>{7}));
    EXPECT_TRUE(s.has(0, 4));
    EXPECT_EQ(skeleton::SepSetLog::from_sepsets(s).to_sepsets(), s);
}

TEST(SepSetLog, PartsAndThreadsGiveTheSameTable) {
    // Records in no particular order, spread over parts; one pair twice (exhaustive mode).
    std::vector<skeleton::SepSetLog> parts(5);
    skeleton::SepSetLog serial;
    std::uint32_t x = 12345;
    const auto next = [&] { return x = x * 1664525u + 1013904223u; };
    for (int r = 0; r < 3000; ++r) {
        const auto i = static_cast<std::int32_t>(next() % 200), j = i + 1 + static_cast<std::int32_t>(next() % 50);
        std::vector<std::int32_t> set;
        for (std::uint32_t k = next() % 3; k > 0; --k) set.push_back(static_cast<std::int32_t>(k * 7 + i % 5));
        std::sort(set.begin(), set.end());
        parts[static_cast<std::size_t>(r) % parts.size()].add(i, j, set);
    }
    for (const auto& p : parts) serial.append(p);
    skeleton::SepSetLog bulk;
    bulk.add(1000, 1001, {3});
    bulk.append(parts, 3);
    skeleton::SepSetLog want;
    want.add(1000, 1001, {3});
    want.append(serial);
    EXPECT_EQ(bulk.size(), want.size());
    const SepSets s1 = want.to_sepsets(1), s4 = bulk.to_sepsets(4);
    EXPECT_EQ(s1, s4);
    EXPECT_EQ(s4.get(1000, 1001), (std::vector<std::int32_t>{3}));
    // A part larger than one work item of the append (2^18 records) is copied in runs on
    // several threads: the same records, in the same order, as adding them one by one.
    skeleton::SepSetLog big, one_by_one, runs;
    one_by_one.add(7, 9, {1, 2});
    runs.add(7, 9, {1, 2});
    for (int r = 0; r < 600000; ++r) {
        const auto i = static_cast<std::int32_t>(next() % 5000), j = i + 1 + static_cast<std::int32_t>(next() % 50);
        std::vector<std::int32_t> set(next() % 4);
        for (std::size_t k = 0; k < set.size(); ++k) set[k] = static_cast<std::int32_t>(k * 11 + i % 7);
        big.add(i, j, set);
        one_by_one.add(i, j, set);
    }
    runs.append(std::span<const skeleton::SepSetLog>(&big, 1), 4);
    EXPECT_EQ(runs.size(), one_by_one.size());
    EXPECT_TRUE(runs.serialize() == one_by_one.serialize());
    // Unique pairs take the bulk path; it must agree with the record-by-record one.
    skeleton::SepSetLog unique;
    for (int i = 40; i >= 0; --i) unique.add(i, 100 - i, {i % 3});
    const SepSets u = unique.to_sepsets(3);
    ASSERT_EQ(u.size(), 41u);
    SepSets by_hand;
    for (int i = 0; i <= 40; ++i) by_hand.set(i, 100 - i, {i % 3});
    EXPECT_EQ(u, by_hand);
}

TEST(PmaxTable, PairsAreTheSameOnAnyThreadCount) {
    skeleton::PmaxTable d = skeleton::PmaxTable::dense(300);
    Graph g(300);
    for (std::int32_t i = 0; i < 300; ++i)
        for (std::int32_t j = i + 1; j < 300; j += 1 + (i % 7)) g.add(i, j);
    skeleton::PmaxTable s = skeleton::PmaxTable::sparse(g);
    for (std::int32_t i = 0; i < 300; i += 3)
        for (std::int32_t j = i + 1; j < 300; j += 1 + (i % 7)) {
            d.raise(i, j, 0.001 * (i + j));
            s.raise(i, j, 0.002 * (i + j));
        }
    for (const skeleton::PmaxTable* t : {&d, &s}) {
        const auto one = t->pairs(1);
        EXPECT_GT(one.size(), 1000u);
        EXPECT_EQ(t->pairs(7), one);
        EXPECT_TRUE(std::is_sorted(one.begin(), one.end(), [](const skeleton::PairP& a, const skeleton::PairP& b) {
            return std::pair{a.i, a.j} < std::pair{b.i, b.j};
        }));
    }
}

TEST(SerialCommunicator, CollectivesCopyAndAgreeRethrows) {
    mpi::SerialCommunicator c;
    EXPECT_EQ(c.size(), 1);
    EXPECT_EQ(c.allreduce(std::int64_t{42}, mpi::ReduceOp::Sum), 42);
    std::vector<double> send = {1.5, 2.5}, recv(2);
    c.allgatherv(send.data(), recv.data(), {2}, mpi::DataType::Float64);
    EXPECT_EQ(recv, send);
    const auto blobs = c.gatherv({std::byte{1}, std::byte{2}}, 0);
    ASSERT_EQ(blobs.size(), 1u);
    EXPECT_EQ(blobs[0].size(), 2u);
    EXPECT_NO_THROW(mpi::run_agreed(c, [] {}));
    // One process keeps the original exception type.
    EXPECT_THROW(mpi::run_agreed(c, [] { throw InputError("x"); }), InputError);
}

TEST(StrictCommunicatorEnv, BadTimeoutIsAOneLineInputError) {
    // CUDAG_STRICT_COMM_TIMEOUT must be a positive number of seconds; one process gets its
    // communicator back unchecked (nothing to compare).
    ::setenv("CUDAG_STRICT_COMM", "1", 1);
    for (const char* bad : {"abc", "0", "-5", "3s"}) {
        ::setenv("CUDAG_STRICT_COMM_TIMEOUT", bad, 1);
        try {
            (void)mpi::strict_if_asked(std::make_unique<mpi::SerialCommunicator>());
            ADD_FAILURE() << "no error for '" << bad << "'";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("CUDAG_STRICT_COMM_TIMEOUT must be a number of seconds > 0, got '" +
                                                 std::string(bad) + "'"),
                      std::string::npos)
                << e.what();
        }
    }
    ::setenv("CUDAG_STRICT_COMM_TIMEOUT", "30", 1);
    EXPECT_EQ(mpi::strict_if_asked(std::make_unique<mpi::SerialCommunicator>())->name(), "serial");
    ::unsetenv("CUDAG_STRICT_COMM_TIMEOUT");
    ::unsetenv("CUDAG_STRICT_COMM");
}
