// SPDX-License-Identifier: Apache-2.0
// FCI on the d-separation oracle (issue 54): hand-made graphs whose PAGs are known, and
// properties every faithful oracle must keep (conservative and majority-rule decisions equal
// the plain ones; threads change nothing).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/fci_oracle.hpp"

namespace cudag::fci {
namespace {

using test::fci_on_oracle;
using test::oracle_of;
using test::pag_lines;
using Lines = std::vector<std::string>;

Lines run(const std::vector<std::string>& names, const std::vector<std::pair<std::string, std::string>>& edges,
          const std::vector<std::string>& latent = {}, FciOptions opt = {}) {
    const auto r = fci_on_oracle(oracle_of(names, edges, latent), opt);
    return pag_lines(r.pag, r.names);
}

TEST(FciOracle, ColliderIsOrientedAndTheRestLeftCircles) {
    EXPECT_EQ(run({"X", "Y", "Z"}, {{"X", "Y"}, {"Z", "Y"}}), (Lines{"X o-> Y", "Y <-o Z"}));
    EXPECT_EQ(run({"X", "Y", "Z"}, {{"X", "Y"}, {"Y", "Z"}}), (Lines{"X o-o Y", "Y o-o Z"}));
}

TEST(FciOracle, HiddenCommonCauseGivesABidirectedEdge) {
    EXPECT_EQ(run({"C", "A", "L", "B", "D"}, {{"C", "A"}, {"L", "A"}, {"L", "B"}, {"D", "B"}}, {"L"}),
              (Lines{"C o-> A", "A <-> B", "B <-o D"}));
}

TEST(FciOracle, RuleOneOrientsTheYStructure) {
    EXPECT_EQ(run({"X", "W", "Z", "Y"}, {{"X", "Z"}, {"W", "Z"}, {"Z", "Y"}}),
              (Lines{"X o-> Z", "W o-> Z", "Z --> Y"}));
}

TEST(FciOracle, RfciGivesTheSameOnTheseGraphs) {
    FciOptions rfci;
    rfci.variant = Variant::Rfci;
    EXPECT_EQ(run({"C", "A", "L", "B", "D"}, {{"C", "A"}, {"L", "A"}, {"L", "B"}, {"D", "B"}}, {"L"}, rfci),
              (Lines{"C o-> A", "A <-> B", "B <-o D"}));
    EXPECT_EQ(run({"X", "W", "Z", "Y"}, {{"X", "Z"}, {"W", "Z"}, {"Z", "Y"}}, {}, rfci),
              (Lines{"X o-> Z", "W o-> Z", "Z --> Y"}));
}

/// A random DAG with names X0.., and `hidden` of its nodes latent.
std::shared_ptr<const DsepOracle> random_oracle(std::mt19937_64& rng, int n, double density, int hidden) {
    std::vector<std::string> names;
    for (int v = 0; v < n; ++v) {
        std::string name = "X";  // not "X" + to_string(v): GCC 12 warns falsely (-Wrestrict)
        name += std::to_string(v);
        names.push_back(std::move(name));
    }
    std::vector<std::pair<std::string, std::string>> edges;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b)
            if (u(rng) < density)
                edges.emplace_back(names[static_cast<std::size_t>(a)], names[static_cast<std::size_t>(b)]);
    std::vector<std::string> latent;
    std::vector<int> pick(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) pick[static_cast<std::size_t>(v)] = v;
    std::shuffle(pick.begin(), pick.end(), rng);
    for (int k = 0; k < hidden; ++k)
        latent.push_back(names[static_cast<std::size_t>(pick[static_cast<std::size_t>(k)])]);
    return oracle_of(names, edges, latent);
}

TEST(FciOracle, ConservativeAndMajorityEqualThePlainRuleOnAFaithfulOracle) {
    std::mt19937_64 rng(541);
    int with_arrows = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const int n = 5 + static_cast<int>(rng() % 6);
        const auto oracle = random_oracle(rng, n, 0.2 + 0.3 * std::uniform_real_distribution<double>()(rng),
                                          1 + static_cast<int>(rng() % 2));
        FciOptions plain, cons, maj;
        cons.conservative = true;
        maj.majority = true;
        const auto a = fci_on_oracle(oracle, plain);
        const auto b = fci_on_oracle(oracle, cons);
        const auto c = fci_on_oracle(oracle, maj);
        EXPECT_EQ(pag_lines(a.pag, a.names), pag_lines(b.pag, b.names)) << "trial " << trial;
        EXPECT_EQ(pag_lines(a.pag, a.names), pag_lines(c.pag, c.names)) << "trial " << trial;
        for (const auto& l : pag_lines(a.pag, a.names)) with_arrows += l.find('>') != std::string::npos;
    }
    EXPECT_GT(with_arrows, 20);  // the graphs are not all circles
}

TEST(FciOracle, ThreadsChangeNothing) {
    std::mt19937_64 rng(542);
    for (int trial = 0; trial < 30; ++trial) {
        const auto oracle = random_oracle(rng, 9, 0.35, 2);
        FciOptions opt;
        const auto one = fci_on_oracle(oracle, opt, 1);
        const auto four = fci_on_oracle(oracle, opt, 4);
        EXPECT_EQ(one.pag, four.pag) << "trial " << trial;
        EXPECT_EQ(pag_lines(one.pag, one.names), pag_lines(four.pag, four.names));
    }
}

}  // namespace
}  // namespace cudag::fci
