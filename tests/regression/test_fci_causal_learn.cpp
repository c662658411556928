// SPDX-License-Identifier: Apache-2.0
// cudag fci --compat causal-learn against causal-learn 0.1.4.8's fci(), on the reference
// outputs in tests/data/fci/causal_learn_fci (made once by scripts/dev/fci_reference, see its
// README): every run on the 19 data sets (Fisher-z on the Gaussian ones, chi-square and G² on
// the discrete ones; alpha 0.01 and 0.05) gives the same PAG, on one thread and on two; and on
// a data set whose causal-learn PAG depends on PYTHONHASHSEED (causal_learn_hashseed),
// --python-hash-seed N gives causal-learn's PAG under PYTHONHASHSEED=N for N = 0..5; and with
// background knowledge (causal_learn_bk), causal-learn's PAG for the same knowledge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/fci_reference.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::read_our_amat;
using cudag::test::read_ref_amat;
using cudag::test::tsv;

const fs::path kData = fs::path(CUDAG_SOURCE_DIR) / "tests" / "data" / "fci";

/// Edges (a < b) whose marks differ, for the failure message.
std::string differences(const std::vector<std::vector<int>>& got, const std::vector<std::vector<int>>& want,
                        const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t a = 0; a < want.size() && a < got.size(); ++a)
        for (std::size_t b = a + 1; b < want.size() && b < got[a].size(); ++b)
            if (got[a][b] != want[a][b] || got[b][a] != want[b][a]) {
                out += ' ';
                out += names[a];
                out += '-';
                out += names[b];
                out += " got ";
                out += std::to_string(got[b][a]);
                out += '/';
                out += std::to_string(got[a][b]);
                out += " want ";
                out += std::to_string(want[b][a]);
                out += '/';
                out += std::to_string(want[a][b]);
                out += ';';
            }
    return out;
}

TEST_F(Cli, FciCompatCausalLearnEqualsCausalLearnOnEveryReferenceRun) {
    ASSERT_TRUE(fs::is_directory(kData)) << kData;
    const auto rows = tsv(kData / "causal_learn_fci" / "manifest.tsv");
    int runs = 0, same = 0;
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const auto& r = rows[k];
        if (r.size() < 7 || r[6] != "ok") continue;
        const std::string ds = r[0], algo = r[1], alpha = r[3], test = r[4];
        const std::string stem = ds + "__" + algo + "__" + alpha;
        std::string opt = " --compat causal-learn";
        if (test == "fisherz") opt += " --test fisher-z";
        if (test == "chisq") opt += " --test chi-square";
        if (test == "gsq") opt += " --test g-square";
        for (const char* threads : {"1", "2"}) {
            const std::string tag = stem + " threads " + threads;
            const CliRun run_ =
                run("fci -q --data " + (kData / "datasets" / (ds + ".csv")).string() + " --alpha " + alpha + opt +
                    " --threads " + threads + " --out " + (dir_ / (stem + ".h5")).string() + " --format amat");
            ASSERT_EQ(run_.code, 0) << tag << ": " << run_.err;
            std::vector<std::string> want_names, got_names;
            const auto want = read_ref_amat(kData / "causal_learn_fci" / (stem + ".amat"), want_names);
            const auto got = read_our_amat(dir_ / (stem + ".pag.amat.csv"), got_names);
            EXPECT_EQ(got_names, want_names) << tag;
            EXPECT_EQ(got, want) << tag << ":" << differences(got, want, want_names);
            if (got == want) ++same;
        }
        ++runs;
    }
    EXPECT_EQ(runs, 24 + 14 + 14);
    EXPECT_EQ(same, 2 * runs);
}

TEST_F(Cli, FciCompatCausalLearnFollowsPythonsHashSeed) {
    const fs::path dir = kData / "causal_learn_hashseed";
    const auto rows = tsv(dir / "manifest.tsv");
    ASSERT_EQ(rows.size(), 7u);
    std::vector<std::vector<int>> first;
    bool seeds_differ = false;
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const std::string ds = rows[k][0], alpha = rows[k][3], seed = rows[k][5];
        const std::string stem = ds + "__fci__" + alpha + "__seed" + seed;
        const CliRun r =
            run("fci -q --compat causal-learn --test fisher-z --data " + (dir / (ds + ".csv")).string() + " --alpha " +
                alpha + " --python-hash-seed " + seed + " --out " + (dir_ / "r.h5").string() + " --format amat");
        ASSERT_EQ(r.code, 0) << stem << ": " << r.err;
        std::vector<std::string> want_names, got_names;
        const auto want = read_ref_amat(dir / (stem + ".amat"), want_names);
        const auto got = read_our_amat(dir_ / "r.pag.amat.csv", got_names);
        EXPECT_EQ(got_names, want_names) << stem;
        EXPECT_EQ(got, want) << stem << ":" << differences(got, want, want_names);
        if (first.empty()) first = want;
        seeds_differ = seeds_differ || want != first;
    }
    EXPECT_TRUE(seeds_differ);  // the data set does depend on the seed
}

/// causal_learn_bk: causal-learn's fci(background_knowledge=...) with forbidden and required
/// directed edges, tiers and all three (PYTHONHASHSEED=0), against --forbid / --require /
/// --tiers files, on one thread and on two.
TEST_F(Cli, FciCompatCausalLearnTakesBackgroundKnowledgeAsCausalLearn) {
    const fs::path dir = kData / "causal_learn_bk";
    const auto rows = tsv(dir / "manifest.tsv");
    int runs = 0, same = 0;
    for (std::size_t k = 1; k < rows.size(); ++k) {
        const auto& r = rows[k];
        ASSERT_EQ(r.size(), 10u);
        ASSERT_EQ(r[9], "ok") << r[0] << ' ' << r[1];
        const std::string stem = r[0] + "__" + r[1] + "__" + r[2];
        std::string opt = " --compat causal-learn --python-hash-seed ";
        opt += r[4];
        opt += r[3] == "fisherz" ? " --test fisher-z" : r[3] == "chisq" ? " --test chi-square" : " --test g-square";
        const char* flags[] = {" --forbid ", " --require ", " --tiers "};
        for (int f = 0; f < 3; ++f)
            if (r[5 + f] != "-") {
                opt += flags[f];
                opt += (dir / r[5 + f]).string();
            }
        for (const char* threads : {"1", "2"}) {
            const std::string tag = stem + " threads " + threads;
            const CliRun run_ =
                run("fci -q --data " + (kData / "datasets" / (r[0] + ".csv")).string() + " --alpha " + r[2] + opt +
                    " --threads " + threads + " --out " + (dir_ / "r.h5").string() + " --format amat");
            ASSERT_EQ(run_.code, 0) << tag << ": " << run_.err;
            std::vector<std::string> want_names, got_names;
            const auto want = read_ref_amat(dir / (stem + ".amat"), want_names);
            const auto got = read_our_amat(dir_ / "r.pag.amat.csv", got_names);
            EXPECT_EQ(got_names, want_names) << tag;
            EXPECT_EQ(got, want) << tag << ":" << differences(got, want, want_names);
            if (got == want) ++same;
        }
        ++runs;
    }
    EXPECT_EQ(runs, 5 * 4);
    EXPECT_EQ(same, 2 * runs);
}

}  // namespace
