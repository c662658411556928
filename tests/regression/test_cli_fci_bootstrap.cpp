// SPDX-License-Identifier: Apache-2.0
// `cudag fci --bootstrap` end to end (issue 54): each replicate's PAG is `cudag fci` run on
// the replicate's written resample, the table counts the nine PAG edge kinds per pair
// (rows summing to B), the consensus PAG is the result's graph, a run stopped after a
// checkpoint and resumed gives the uninterrupted run's outputs, and bad options are
// one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/pag.hpp"
#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::slurp;
namespace h5 = cudag::io::h5;
namespace fs = std::filesystem;

/// Counts per pair (source, target): none, then the nine edge kinds of edge_kinds().
using Table = std::map<std::pair<std::string, std::string>, std::array<int, 10>>;

std::vector<std::vector<std::string>> tsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> cells;
        std::istringstream cs(line);
        for (std::string cell; std::getline(cs, cell, '\t');) cells.push_back(cell);
        if (!line.empty() && line.back() == '\t') cells.emplace_back();
        rows.push_back(cells);
    }
    return rows;
}

class FciBootstrap : public Cli {
protected:
    std::string f(const std::string& name) const { return (dir_ / name).string(); }
    static std::string g05() { return std::string(CUDAG_SOURCE_DIR) + "/tests/data/fci/datasets/g05.csv"; }
};

TEST_F(FciBootstrap, CountsAreTheDirectRunsOnTheWrittenResamples) {
    constexpr int B = 5;
    for (const std::string variant : {"fci", "rfci"}) {
        const std::string opts = " --alpha 0.05 --variant " + variant + " -q";
        CliRun r = run("fci --data " + g05() + opts + " --seed 9 --bootstrap " + std::to_string(B) + " --out " +
                       f("b.h5") + " --format freq,edges");
        ASSERT_EQ(r.code, 0) << r.err;
        // The counts the direct runs give, by names (a resample keeps the columns' order).
        Table want;
        for (int rep = 0; rep < B; ++rep) {
            const std::string csv = f("rep" + std::to_string(rep) + ".csv");
            r = run("fci --data " + g05() + " --seed 9 --bootstrap 5 --overwrite --write-resample " + csv +
                    " --replicate " + std::to_string(rep) + " -q");
            ASSERT_EQ(r.code, 0) << r.err;
            r = run("fci --data " + csv + opts + " --out " + f("direct.h5") + " --format edges");
            ASSERT_EQ(r.code, 0) << r.err;
            const auto rows = tsv(slurp(dir_ / "direct.edges.tsv"));
            ASSERT_EQ(rows.at(0), (std::vector<std::string>{"source", "target", "mark"}));
            for (std::size_t k = 1; k < rows.size(); ++k) {
                const auto& kinds = cudag::edge_kinds();
                const auto at = std::find(kinds.begin(), kinds.end(), rows[k].at(2));
                ASSERT_NE(at, kinds.end()) << rows[k].at(2);
                ++want[{rows[k].at(0), rows[k].at(1)}][static_cast<std::size_t>(at - kinds.begin()) + 1];
            }
        }
        for (auto& [pair, c] : want) {
            int adjacent = 0;
            for (std::size_t k = 1; k < c.size(); ++k) adjacent += c[k];
            c[0] = B - adjacent;
        }
        // The freq table, frequencies times B back to counts.
        const auto rows = tsv(slurp(dir_ / "b.freq.tsv"));
        ASSERT_EQ(rows.at(0), (std::vector<std::string>{"source", "target", "adjacency", "none", "o->", "<-o", "o-o",
                                                        "-->", "<--", "<->", "---", "o--", "--o", "consensus"}));
        Table got;
        std::size_t in_consensus = 0;
        for (std::size_t k = 1; k < rows.size(); ++k) {
            ASSERT_EQ(rows[k].size(), 14u);
            auto& c = got[{rows[k][0], rows[k][1]}];
            int sum = 0;
            for (std::size_t j = 0; j < 10; ++j) {
                c[j] = static_cast<int>(std::lround(std::stod(rows[k][3 + j]) * B));
                sum += c[j];
            }
            EXPECT_EQ(sum, B) << variant << " row " << k;
            EXPECT_DOUBLE_EQ(std::stod(rows[k][2]), (B - c[0]) / double(B));
            in_consensus += !rows[k][13].empty();
            if (!rows[k][13].empty()) {
                EXPECT_GE(B - c[0], 3) << "consensus 0.5 of 5: adjacent in 3 or more";
            }
        }
        EXPECT_EQ(got, want) << variant;
        EXPECT_GT(want.size(), 5u);
        // The consensus PAG is the result's graph: /pag/edges and --format edges.
        EXPECT_EQ(tsv(slurp(dir_ / "b.edges.tsv")).size(), in_consensus + 1);
        h5::Handle file = h5::open_file(f("b.h5"));
        EXPECT_EQ(h5::read_string_attr(file.get(), "kind", "test"), std::vector<std::string>{"pag"});
        EXPECT_EQ(h5::read_array<std::int32_t>(file.get(), "pag/edges", "test").size(), 4 * in_consensus);
        const auto counts = h5::read_array<std::int32_t>(file.get(), "bootstrap/counts", "test");
        EXPECT_EQ(counts.size(), 10 * (rows.size() - 1));
    }
}

TEST_F(FciBootstrap, ConsensusTakesTheCommonestKindTiesToTheLessCommittal) {
    // B = 2 with --consensus 0.5: a pair adjacent once is in; its kind is the only one
    // counted, or, where two kinds tie, the first of o-o, o->, <-o, -->, <--, <->, ---.
    CliRun r = run("fci --data " + g05() + " --alpha 0.05 --seed 1 --bootstrap 2 --consensus 0.5 -q --out " +
                   f("b.h5") + " --format freq");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::vector<std::string> order{"o-o", "o->", "<-o", "-->", "<--", "<->", "---", "o--", "--o"};
    const std::vector<std::string> columns{"o->", "<-o", "o-o", "-->", "<--", "<->", "---", "o--", "--o"};
    const auto rows = tsv(slurp(dir_ / "b.freq.tsv"));
    ASSERT_GT(rows.size(), 3u);
    for (std::size_t k = 1; k < rows.size(); ++k) {
        std::map<std::string, double> freq;
        for (std::size_t j = 0; j < columns.size(); ++j) freq[columns[j]] = std::stod(rows[k][4 + j]);
        std::string best = order[0];
        for (const auto& kind : order)
            if (freq[kind] > freq[best]) best = kind;
        EXPECT_EQ(rows[k][13], best) << rows[k][0] << " " << rows[k][1];
    }
}

TEST_F(FciBootstrap, StoppedAtAReplicateBoundaryAndResumedGivesTheSameResult) {
    // cudag fci --bootstrap --checkpoint as cudag pc's: a run stopped after a checkpoint of
    // 3 replicates or more, resumed, writes what an uninterrupted run writes (every text file
    // byte for byte, the result's table and consensus PAG); the checkpoint covers FCI's
    // options, and a finished run removes it.
    for (const std::string variant : {"fci", "rfci"}) {
        const std::string base = "fci --data " + g05() + " --alpha 0.05 --variant " + variant +
                                 " --bootstrap 7 --seed 2 -q --format freq,edges,amat --out ";
        for (const auto& e : fs::directory_iterator(dir_)) fs::remove_all(e.path());  // the other variant's
        CliRun r = run(base + f("full.h5"));
        ASSERT_EQ(r.code, 0) << r.err;
        // A kill after 3 replicates or more (--stop-after-level, hidden: a testing aid).
        r = run(base + f("part.h5") + " --checkpoint " + f("ck.h5") + " --stop-after-level 3");
        EXPECT_EQ(r.code, 3) << r.err;
        ASSERT_TRUE(fs::exists(dir_ / "ck.h5"));
        EXPECT_FALSE(fs::exists(dir_ / "part.h5")) << "a stopped run writes no result";
        // The FCI options are the checkpoint's too: another one is refused, naming it.
        const std::string other = variant == "fci" ? " --conservative" : " --majority-rule";
        r = run(base + f("x.h5") + other + " --checkpoint " + f("ck.h5") + " --resume");
        EXPECT_NE(r.code, 0);
        const std::string named = variant == "fci" ? "--conservative was off" : "--majority-rule was off";
        EXPECT_NE(r.err.find(named + " in the checkpoint, on now"), std::string::npos) << r.err;
        // So is a cudag pc --bootstrap run's (another command).
        r = run("pc --data " + g05() + " --alpha 0.05 --bootstrap 7 --seed 2 -q --out " + f("x.h5") + " --checkpoint " +
                f("ck.h5") + " --resume");
        EXPECT_NE(r.code, 0);
        EXPECT_FALSE(fs::exists(dir_ / "x.h5"));
        r = run(base + f("part.h5") + " --checkpoint " + f("ck.h5") + " --resume");
        ASSERT_EQ(r.code, 0) << r.err;
        for (const char* file : {".freq.tsv", ".edges.tsv", ".pag.amat.csv"})
            EXPECT_EQ(slurp(dir_ / ("part" + std::string(file))), slurp(dir_ / ("full" + std::string(file))))
                << variant << " " << file;
        h5::Handle full = h5::open_file(f("full.h5")), part = h5::open_file(f("part.h5"));
        for (const char* set : {"bootstrap/pairs", "bootstrap/counts", "pag/edges", "skeleton/edges"})
            EXPECT_EQ(h5::read_array<std::int32_t>(part.get(), set, "test"),
                      h5::read_array<std::int32_t>(full.get(), set, "test"))
                << variant << " " << set;
        EXPECT_FALSE(fs::exists(dir_ / "ck.h5")) << "a finished run removes its checkpoint";
    }
}

TEST_F(FciBootstrap, RefusalsAreOneLine) {
    const std::string base = "fci --data " + g05() + " -q --bootstrap 3";
    for (const auto& [opts, what] : std::vector<std::pair<std::string, std::string>>{
             {" --consensus 1.5", "--consensus must be in (0, 1], got 1.5"},
             {" --resample thirds", "unknown --resample 'thirds'"},
             {" --resume --out " + f("x.h5"), "--resume needs --checkpoint FILE"},
             {" --replicate 4 --write-resample " + f("r.csv"), "--replicate 4 is not below --bootstrap 3"}}) {
        const CliRun r = run(base + opts);
        EXPECT_NE(r.code, 0) << opts;
        EXPECT_NE(r.err.find(what), std::string::npos) << opts << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    const CliRun r = run("fci --data " + g05() + " -q --format freq --out " + f("y.h5"));
    EXPECT_NE(r.err.find("--format freq (the edge frequencies) needs --bootstrap B"), std::string::npos) << r.err;
}

}  // namespace
