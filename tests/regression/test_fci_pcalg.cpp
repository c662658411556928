// SPDX-License-Identifier: Apache-2.0
// cudag fci against pcalg 2.7-12 (issue 54), on the reference outputs in tests/data/fci
// (made once by scripts/dev/fci_reference, see its README):
//  - every pcalg run on the 19 data sets (fci, rfci, conservative, majority rule, without
//    Possible-D-SEP; alpha 0.01 and 0.05; gaussCItest and disCItest): the same PAG, and for
//    fci / rfci / no-pdsep the same separating sets. On discrete data the reference is pcalg
//    with its G² fixed for |S| >= 5 (pcalg_fci_fixS: pcalg 2.7-12's disCItest returns p = 1
//    there; cudag computes the test);
//  - the true PAG of 257 DAGs with latent nodes (pcalg's dag2pag) from FCI on the oracle.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/dsep.hpp"
#include "io/hdf5_file.hpp"
#include "support/cli_fixture.hpp"
#include "support/fci_reference.hpp"
#include "support/fci_oracle.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
using cudag::test::read_our_amat;
using cudag::test::read_ref_amat;
using cudag::test::tsv;

const fs::path kData = fs::path(CUDAG_SOURCE_DIR) / "tests" / "data" / "fci";

/// pcalg's separating sets, "i j: a b" (0-based, i < j) -> "a b".
std::map<std::pair<int, int>, std::string> read_ref_sepsets(const fs::path& p) {
    std::map<std::pair<int, int>, std::string> out;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        std::stringstream ks(line.substr(0, colon));
        int i = 0, j = 0;
        ks >> i >> j;
        std::string rest = line.substr(colon + 1);
        while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
        // The result file keeps only non-empty sets (a pair removed given the empty set at
        // level 0 has no record); pcalg lists integer(0).
        if (!rest.empty()) out[{i, j}] = rest;
    }
    return out;
}

std::map<std::pair<int, int>, std::string> read_our_sepsets(const fs::path& h5) {
    namespace h5n = cudag::io::h5;
    const h5n::Handle f = h5n::open_file(h5.string());
    const auto pairs = h5n::read_array<std::int32_t>(f.get(), "sepsets/pairs", "read");
    const auto offsets = h5n::read_array<std::int64_t>(f.get(), "sepsets/offsets", "read");
    const auto nodes = h5n::read_array<std::int32_t>(f.get(), "sepsets/nodes", "read");
    std::map<std::pair<int, int>, std::string> out;
    for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
        std::string s;
        for (auto k = offsets[r]; k < offsets[r + 1]; ++k) {
            if (!s.empty()) s.push_back(' ');  // piecewise: GCC 12 warns falsely on a + chain (-Wrestrict)
            s += std::to_string(nodes[static_cast<std::size_t>(k)]);
        }
        out[{pairs[2 * r], pairs[2 * r + 1]}] = s;
    }
    return out;
}

TEST_F(Cli, FciEqualsPcalgOnEveryReferenceRun) {
    ASSERT_TRUE(fs::is_directory(kData)) << kData;
    int runs = 0, with_sets = 0;
    for (const char* folder : {"pcalg_fci", "pcalg_fci_fixS"}) {
        const auto rows = tsv(kData / folder / "manifest.tsv");
        for (std::size_t k = 1; k < rows.size(); ++k) {
            const auto& r = rows[k];
            const std::string ds = r[0], algo = r[1], alpha = r[3];
            const bool discrete = ds[0] == 'd';
            if (discrete != (std::string(folder) == "pcalg_fci_fixS")) continue;  // Gaussian: pcalg's own
            const std::string stem = ds + "__" + algo + "__" + alpha;
            std::string opt;
            if (algo == "rfci") opt = " --variant rfci";
            if (algo == "fci-conservative") opt = " --conservative";
            if (algo == "fci-majrule") opt = " --majority-rule";
            if (algo == "fci-nopdsep") opt = " --no-pdsep";
            if (discrete) opt += " --test g-square --dof pcalg";
            const fs::path out = dir_ / (stem + ".h5");
            const CliRun run_ = run("fci -q --data " + (kData / "datasets" / (ds + ".csv")).string() + " --alpha " +
                                    alpha + opt + " --out " + out.string() + " --format amat");
            ASSERT_EQ(run_.code, 0) << stem << ": " << run_.err;
            std::vector<std::string> want_names, got_names;
            const auto want = read_ref_amat(kData / folder / (stem + ".amat"), want_names);
            const auto got = read_our_amat(dir_ / (stem + ".pag.amat.csv"), got_names);
            EXPECT_EQ(got_names, want_names) << stem;
            EXPECT_EQ(got, want) << stem << " (" << folder << ")";
            ++runs;
            if (algo == "fci" || algo == "rfci" || algo == "fci-nopdsep") {
                EXPECT_EQ(read_our_sepsets(out), read_ref_sepsets(kData / folder / (stem + ".sepsets"))) << stem;
                ++with_sets;
            }
        }
    }
    EXPECT_EQ(runs, 24 * 5 + 14 * 5);
    EXPECT_GT(with_sets, 100);
}

/// One DAG block of oracle_pags.txt.
struct OracleCase {
    int id = 0;
    std::vector<std::string> latent, observed;
    std::vector<std::pair<std::string, std::string>> edges;
    std::vector<std::vector<int>> pcalg;
};

std::vector<std::vector<int>> parse_rows(const std::string& s) {
    std::vector<std::vector<int>> m;
    std::stringstream ss(s);
    std::vector<int> row;
    for (std::string tok; ss >> tok;) {
        if (tok == ";") {
            m.push_back(row);
            row.clear();
        } else {
            row.push_back(std::stoi(tok));
        }
    }
    m.push_back(row);
    return m;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    if (s == "-") return out;
    std::stringstream ss(s);
    for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
    return out;
}

std::vector<OracleCase> read_oracle_cases() {
    std::ifstream in(kData / "oracle_pags.txt");
    std::vector<OracleCase> cases;
    OracleCase c;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::stringstream ls(line);
        std::string key;
        ls >> key;
        std::string rest;
        std::getline(ls, rest);
        if (!rest.empty() && rest[0] == ' ') rest.erase(rest.begin());
        if (key == "dag") {
            c = OracleCase{};
            std::stringstream ds(rest);
            std::string w, lat;
            int nodes = 0;
            ds >> c.id >> w >> nodes >> w >> lat;
            c.latent = split(lat);
        } else if (key == "edge") {
            std::stringstream es(rest);
            std::string a, b;
            es >> a >> b;
            c.edges.emplace_back(a, b);
        } else if (key == "observed") {
            c.observed = split(rest);
        } else if (key == "pcalg") {
            c.pcalg = parse_rows(rest);
        } else if (key == "end") {
            cases.push_back(c);
        }
    }
    return cases;
}

TEST(FciOraclePags, FciOnTheOracleGivesPcalgsTruePagOfEveryDag) {
    const auto cases = read_oracle_cases();
    ASSERT_GE(cases.size(), 250u);
    int arrows = 0;
    for (const OracleCase& c : cases) {
        // Nodes in first-appearance order, as cudag pc --oracle reads an edge list.
        std::vector<std::string> names;
        for (const auto& [a, b] : c.edges)
            for (const std::string& v : {a, b})
                if (std::find(names.begin(), names.end(), v) == names.end()) names.push_back(v);
        const auto oracle = cudag::test::oracle_of(names, c.edges, c.latent);
        for (const auto variant : {cudag::fci::Variant::Fci}) {
            cudag::fci::FciOptions opt;
            opt.variant = variant;
            const auto r = cudag::test::fci_on_oracle(oracle, opt);
            ASSERT_EQ(r.names, c.observed) << "dag " << c.id;
            std::vector<std::vector<int>> got(c.observed.size(), std::vector<int>(c.observed.size(), 0));
            for (std::int32_t a = 0; a < r.pag.n(); ++a)
                for (const std::int32_t b : r.pag.neighbours(a)) {
                    got[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = r.pag(a, b);
                    arrows += r.pag(a, b) == 2;
                }
            EXPECT_EQ(got, c.pcalg) << "dag " << c.id;
        }
    }
    EXPECT_GT(arrows, 200);
}

}  // namespace
