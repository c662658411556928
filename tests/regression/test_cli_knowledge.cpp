// SPDX-License-Identifier: Apache-2.0
// `cudag pc` and `cudag mcmc` with --forbid, --require and --tiers end to end (issue 23):
// the knowledge holds in the outputs, checkpoints of other knowledge are refused, bad
// files are one-line errors that leave nothing behind.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;

/// The unordered pair {a, b}.
std::pair<std::string, std::string> key(const std::string& a, const std::string& b) {
    return a < b ? std::pair{a, b} : std::pair{b, a};
}

class Knowledge : public Cli {
protected:
    /// A path quoted for the shell (appended, not "'" + ...: GCC 12 warns with a false
    /// -Wrestrict on that once inlined).
    static std::string quoted(const std::string& path) {
        std::string q = "'";
        q += path;
        q += '\'';
        return q;
    }
    std::string f(const std::string& name) const { return quoted((dir_ / name).string()); }
    std::string data() const { return quoted(std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv"); }
    /// The edges (source, target, mark) of an edge list text.
    static std::vector<std::vector<std::string>> edges(const std::string& text) {
        std::vector<std::vector<std::string>> out;
        std::istringstream in(text);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::vector<std::string> cells;
            std::istringstream row(line);
            for (std::string c; std::getline(row, c, '\t');) cells.push_back(c);
            if (cells.size() >= 3) out.push_back({cells[0], cells[1], cells[2]});
        }
        return out;
    }
    static std::string read(const std::filesystem::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    /// Tier of Xk: X1-X7 tier 0, X8-X14 tier 1, X15-X20 tier 2.
    static int tier(const std::string& v) {
        const int k = std::stoi(v.substr(1));
        return k <= 7 ? 0 : k <= 14 ? 1 : 2;
    }
    void SetUp() override {
        Cli::SetUp();
        write("tiers.txt",
              "# three tiers\nX1 X2 X3 X4 X5 X6 X7\nX8 X9 X10 X11 X12 X13 X14\nX15 X16 X17 X18 X19 "
              "X20\n");
    }
};

TEST_F(Knowledge, PcKeepsForbiddenRequiredAndTiers) {
    const CliRun free = run("pc --data " + data() + " --alpha 0.01 -q");
    ASSERT_EQ(free.code, 0) << free.err;
    std::set<std::pair<std::string, std::string>> adjacent;
    for (const auto& e : edges(free.out)) adjacent.insert(key(e[0], e[1]));
    // X3 - X13 and X5 - X12 are true edges the free run finds; X2 - X9 is no edge.
    ASSERT_TRUE(adjacent.count(key("X3", "X13")));
    ASSERT_TRUE(adjacent.count(key("X5", "X12")));
    ASSERT_FALSE(adjacent.count(key("X2", "X9")));
    write("forbid.txt", "X3 -- X13   # a pair\nX12 -> X5\n");
    write("require.txt", "X2 -> X9\n");
    for (const std::string compat : {"pcalg", "causal-learn"}) {
        SCOPED_TRACE(compat);
        const CliRun r = run("pc --data " + data() + " --alpha 0.01 --compat " + compat + " --forbid " +
                             f("forbid.txt") + " --require " + f("require.txt") + " --tiers " + f("tiers.txt") + " -q");
        ASSERT_EQ(r.code, 0) << r.err;
        bool saw_required = false;
        for (const auto& e : edges(r.out)) {
            EXPECT_NE(key(e[0], e[1]), key("X3", "X13"));
            EXPECT_FALSE(e[0] == "X12" && e[1] == "X5" && e[2] == "-->");
            if (e[2] == "-->") {
                EXPECT_LE(tier(e[0]), tier(e[1])) << e[0] << " --> " << e[1];
            }
            if (e[2] == "---") {
                EXPECT_EQ(tier(e[0]), tier(e[1])) << e[0] << " --- " << e[1];
            }
            if (key(e[0], e[1]) == key("X2", "X9")) {
                EXPECT_EQ(e[0] + e[2] + e[1], "X2-->X9");
                saw_required = true;
            }
        }
        EXPECT_TRUE(saw_required);
    }
    // Column indices for data without names: the same knowledge by 0-based index.
    write("forbid_idx.txt", "2 -- 12\n11 -> 4\n");
    const CliRun by_name = run("pc --data " + data() + " --alpha 0.01 --forbid " + f("forbid.txt") + " -q");
    const CliRun by_index = run("pc --data " + data() + " --alpha 0.01 --forbid " + f("forbid_idx.txt") + " -q");
    ASSERT_EQ(by_name.code, 0) << by_name.err;
    EXPECT_EQ(by_name.out, by_index.out);
}

TEST_F(Knowledge, ThreadsDoNotChangeTheResult) {
    write("require.txt", "X2 -> X9\nX1 X4\n");
    const std::string args = "pc --data " + data() + " --alpha 0.01 --require " + f("require.txt") + " --tiers " +
                             f("tiers.txt") + " -q --threads ";
    const CliRun one = run(args + "1"), two = run(args + "2");
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_EQ(one.out, two.out);
}

TEST_F(Knowledge, CheckpointOfOtherKnowledgeIsRefused) {
    write("forbid.txt", "X3 -- X13\n");
    write("forbid2.txt", "X5 -- X12\n");
    const std::string base =
        "pc --data " + data() + " --alpha 0.01 --checkpoint " + f("ck.h5") + " --out " + f("r.h5") + " -q ";
    CliRun r = run(base + "--forbid " + f("forbid.txt") + " --keep-checkpoint");
    ASSERT_EQ(r.code, 0) << r.err;
    r = run(base + "--forbid " + f("forbid2.txt") + " --resume");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("was written for other data or options"), std::string::npos) << r.err;
    r = run(base + "--forbid " + f("forbid.txt") + " --resume");
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(Knowledge, BadKnowledgeIsOneLineAndNoFiles) {
    write("unknown.txt", "X1 -> X2\nX1 -> Y7\n");
    write("both.txt", "X1 X2\n");
    write("req.txt", "X2 -> X1\n");
    write("cycle.txt", "X1 -> X2\nX2 -> X3\nX3 -> X1\n");
    write("back.txt", "X20 -> X1\n");
    const std::set<std::string> inputs = {"tiers.txt", "unknown.txt", "both.txt", "req.txt", "cycle.txt", "back.txt"};
    const std::string base = "pc --data " + data() + " --out " + f("r.h5") + " ";
    expect_error(base + "--forbid " + f("unknown.txt"), "unknown.txt:2: unknown variable 'Y7'");
    expect_error(base + "--forbid " + f("both.txt") + " --require " + f("req.txt"),
                 "'X1' and 'X2' are both required and forbidden to be adjacent");
    expect_error(base + "--require " + f("cycle.txt"), "the required directions form a cycle");
    expect_error(base + "--require " + f("back.txt") + " --tiers " + f("tiers.txt"),
                 "'X20' -> 'X1' is required but runs from tier 2 to the earlier tier 0");
    expect_error(base + "--tiers " + f("missing.txt"), "cannot open knowledge file");
    expect_error("pc --data " + data() + " --out " + f("tiers.txt") + " --tiers " + f("tiers.txt"), "tiers.txt");
    expect_no_outputs(inputs);
}

TEST_F(Knowledge, McmcTakesForbiddenRequiredAndTiersAsParentConstraints) {
    CliRun r =
        run("simulate discrete --vars 8 --samples 800 --density 0.4 --states 3 --max-parents 2 "
            "--seed 5 --out " +
            f("d.csv"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string base =
        "mcmc --data " + f("d.csv") + " --score bdeu --max-parents 2 --chains 2 --iterations 400 -q ";
    r = run(base + "--out " + f("free.h5") + " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto free_edges = edges(read(dir_ / "free.edges.tsv"));
    ASSERT_FALSE(free_edges.empty());
    // Forbid the first edge the free run found, both ways, and put X8..X5 before X4..X1.
    const std::string fa = free_edges[0][0], fb = free_edges[0][1];
    write("forbid.txt", fa + " -- " + fb + "\n");
    write("t.txt", "X5 X6 X7 X8\nX1 X2 X3 X4\n");
    r = run(base + "--forbid " + f("forbid.txt") + " --tiers " + f("t.txt") + " --out " + f("k.h5") +
            " --format edges");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto e = edges(read(dir_ / "k.edges.tsv"));
    for (const auto& x : e) {
        EXPECT_NE(key(x[0], x[1]), key(fa, fb));
        const bool late_src = x[0] <= "X4", early_dst = x[1] >= "X5";
        EXPECT_FALSE(late_src && early_dst) << x[0] << " --> " << x[1];
    }
    // Required directions are mandatory parents (issue 37): the best DAG holds them, in
    // both order scores; one without a direction is refused in one line, no file written.
    write("req.txt", "X8 -> X1\nX1 -> X2\n");
    for (const std::string mode : {"max", "sum"}) {
        r = run(base + "--require " + f("req.txt") + " --order-score " + mode + " --out " + f("req_" + mode + ".h5") +
                " --format edges");
        ASSERT_EQ(r.code, 0) << r.err;
        std::set<std::pair<std::string, std::string>> got;
        for (const auto& x : edges(read(dir_ / ("req_" + mode + ".edges.tsv")))) got.insert({x[0], x[1]});
        EXPECT_TRUE(got.count({"X8", "X1"}) && got.count({"X1", "X2"})) << mode;
    }
    write("pair.txt", "X1 -- X2\n");
    expect_error(base + "--require " + f("pair.txt") + " --out " + f("no.h5"), "'X1' -- 'X2' gives no direction");
    write("three.txt", "X1 -> X4\nX2 -> X4\nX3 -> X4\n");
    expect_error(base + "--require " + f("three.txt") + " --out " + f("no.h5"),
                 "--require gives 'X4' 3 required parents, more than --max-parents 2");
    EXPECT_FALSE(std::filesystem::exists(dir_ / "no.h5"));
}

}  // namespace

// Issue 33 item 16: a UTF-8 byte-order mark at the start of a knowledge file (as Windows
// editors write) is skipped: the file means what it says without one, and an error names
// the first variable as typed, with no invisible character.
TEST_F(Knowledge, ByteOrderMarkIsSkipped) {
    write("forbid.txt", "X3 -- X13\n");
    write("forbid_bom.txt", "\xEF\xBB\xBFX3 -- X13\n");
    const CliRun plain = run("pc --data " + data() + " --alpha 0.01 --forbid " + f("forbid.txt") + " -q");
    const CliRun bom = run("pc --data " + data() + " --alpha 0.01 --forbid " + f("forbid_bom.txt") + " -q");
    ASSERT_EQ(plain.code, 0) << plain.err;
    ASSERT_EQ(bom.code, 0) << bom.err;
    EXPECT_EQ(bom.out, plain.out);
    write("bad_bom.txt", "\xEF\xBB\xBFNOPE -- X13\n");
    const CliRun bad = run("pc --data " + data() + " --alpha 0.01 --forbid " + f("bad_bom.txt") + " -q");
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("'NOPE'"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.err.find("\xEF\xBB\xBF"), std::string::npos) << bad.err;
}
