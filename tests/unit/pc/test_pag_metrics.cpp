// SPDX-License-Identifier: Apache-2.0
// PAG comparison (pc/pag_metrics): hand-counted mark scores and SHD on small PAGs.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "pc/pag_metrics.hpp"

namespace cudag::pc {
namespace {

constexpr Mark o = Mark::Circle;
constexpr Mark a = Mark::Arrow;
constexpr Mark t = Mark::Tail;

// Nodes A = 0, B = 1, C = 2, D = 3.
// Truth:    A o-> B, B <-> C, C --> D.
// Estimate: A o-o B, B <-> C, B o-> D (C - D missing, B - D extra).
Pdag truth4() {
    Pdag g{Graph(4)};
    g.set(0, 1, o, a);
    g.set(1, 2, a, a);
    g.set(2, 3, t, a);
    return g;
}

Pdag estimate4() {
    Pdag g{Graph(4)};
    g.set(0, 1, o, o);
    g.set(1, 2, a, a);
    g.set(1, 3, o, a);
    return g;
}

TEST(ComparePags, CountsMarksOverSharedEdges) {
    const PagComparison c = compare_pags(truth4(), estimate4());
    // Adjacencies: AB and BC in both, BD extra, CD missing.
    EXPECT_EQ(c.skeleton.tp, 2);
    EXPECT_EQ(c.skeleton.fp, 1);
    EXPECT_EQ(c.skeleton.fn, 1);
    EXPECT_DOUBLE_EQ(c.skeleton.precision, 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(c.skeleton.recall, 2.0 / 3.0);
    // SHD: BD, CD, and AB (o-> vs o-o); BC agrees.
    EXPECT_EQ(c.skeleton.shd, 3);
    // Endpoints of AB and BC: A (o / o), B on AB (> / o), B on BC (> / >), C (> / >).
    EXPECT_EQ(c.arrow.in_truth, 3);
    EXPECT_EQ(c.arrow.in_estimate, 2);
    EXPECT_EQ(c.arrow.correct, 2);
    EXPECT_DOUBLE_EQ(c.arrow.precision, 1.0);
    EXPECT_DOUBLE_EQ(c.arrow.recall, 2.0 / 3.0);
    EXPECT_EQ(c.circle.in_truth, 1);
    EXPECT_EQ(c.circle.in_estimate, 2);
    EXPECT_EQ(c.circle.correct, 1);
    EXPECT_DOUBLE_EQ(c.circle.precision, 0.5);
    EXPECT_DOUBLE_EQ(c.circle.recall, 1.0);
    // No tail on a shared edge (C --> D's tail is on a missing edge): 0 / 0 gives 0.
    EXPECT_EQ(c.tail.in_truth, 0);
    EXPECT_EQ(c.tail.in_estimate, 0);
    EXPECT_DOUBLE_EQ(c.tail.precision, 0.0);
    EXPECT_DOUBLE_EQ(c.tail.recall, 0.0);
}

TEST(ComparePags, TailsAndAReversedEdge) {
    // Truth A --> B, B --> C; estimate A <-> B, C --> B.
    Pdag truth{Graph(3)};
    truth.set(0, 1, t, a);
    truth.set(1, 2, t, a);
    Pdag est{Graph(3)};
    est.set(0, 1, a, a);
    est.set(1, 2, a, t);
    const PagComparison c = compare_pags(truth, est);
    EXPECT_EQ(c.skeleton.tp, 2);
    EXPECT_EQ(c.skeleton.shd, 2);
    // Truth tails at A and B (on B - C); the estimate's only tail is at C.
    EXPECT_EQ(c.tail.in_truth, 2);
    EXPECT_EQ(c.tail.in_estimate, 1);
    EXPECT_EQ(c.tail.correct, 0);
    // Truth arrowheads at B (on A - B) and C; the estimate's at A, B, B.
    EXPECT_EQ(c.arrow.in_truth, 2);
    EXPECT_EQ(c.arrow.in_estimate, 3);
    EXPECT_EQ(c.arrow.correct, 1);
    EXPECT_DOUBLE_EQ(c.arrow.precision, 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(c.arrow.recall, 0.5);
}

TEST(ComparePags, SameGraphScoresOne) {
    const PagComparison c = compare_pags(truth4(), truth4());
    EXPECT_EQ(c.skeleton.shd, 0);
    EXPECT_DOUBLE_EQ(c.skeleton.f1, 1.0);
    EXPECT_DOUBLE_EQ(c.arrow.precision, 1.0);
    EXPECT_DOUBLE_EQ(c.arrow.recall, 1.0);
    EXPECT_EQ(c.arrow.in_truth, 4);  // B twice, C on B <-> C, D
    EXPECT_EQ(c.tail.correct, 1);
    EXPECT_EQ(c.circle.correct, 1);
}

TEST(CpdagAsPag, UndirectedEdgesBecomeCircles) {
    Pdag g{Graph(4)};
    g.orient(0, 1);
    g.make_undirected(1, 2);
    g.set(2, 3, a, a);
    const Pdag p = cpdag_as_pag(g);
    EXPECT_TRUE(p.is_directed(0, 1));
    EXPECT_EQ(p.end(1, 2), o);
    EXPECT_EQ(p.end(2, 1), o);
    EXPECT_TRUE(p.is_bidirected(2, 3));
    EXPECT_THROW(cpdag_as_pag(p), InputError);
}

TEST(ComparePags, TableAndJsonHoldTheNumbers) {
    const PagComparison c = compare_pags(truth4(), estimate4());
    EXPECT_EQ(pag_comparison_json(c),
              "{\"n_true_edges\": 3, \"n_est_edges\": 3, \"tp\": 2, \"fp\": 1, \"fn\": 1, "
              "\"precision\": 0.6666666666666666, \"recall\": 0.6666666666666666, \"f1\": 0.6666666666666666, "
              "\"shd\": 3, \"shared_endpoints\": 4, "
              "\"arrow_truth\": 3, \"arrow_estimate\": 2, \"arrow_correct\": 2, \"arrow_precision\": 1, "
              "\"arrow_recall\": 0.6666666666666666, "
              "\"tail_truth\": 0, \"tail_estimate\": 0, \"tail_correct\": 0, \"tail_precision\": 0, "
              "\"tail_recall\": 0, "
              "\"circle_truth\": 1, \"circle_estimate\": 2, \"circle_correct\": 1, \"circle_precision\": 0.5, "
              "\"circle_recall\": 1}");
    const std::string table = pag_comparison_table(c);
    EXPECT_NE(table.find("SHD              3\n"), std::string::npos) << table;
    EXPECT_NE(table.find("marks on the 2 edges in both graphs (4 endpoints):\n"), std::string::npos) << table;
    EXPECT_NE(table.find("arrowhead             3         2        2     1.0000  0.6667\n"), std::string::npos)
        << table;
    EXPECT_NE(table.find("circle                1         2        1     0.5000  1.0000\n"), std::string::npos)
        << table;
}

}  // namespace
}  // namespace cudag::pc
