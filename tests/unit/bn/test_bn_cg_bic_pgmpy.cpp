// SPDX-License-Identifier: Apache-2.0
// cg-bic (bn/cg_bic.hpp) against pgmpy 1.1.2's conditional-Gaussian scores
// (tests/data/cg_bic/, scripts/dev/cg_bic_reference.py): 264 families on 24 mixed data sets
// (empty parents, a continuous child of discrete parents, a discrete child of continuous
// parents, both kinds, all discrete). pgmpy's LogLikelihoodCondGauss uses the unbiased
// covariance; `expected` is its log-likelihood with the exact correction to the
// maximum-likelihood covariance and the parameter count of Andrews et al. (2018), which
// pgmpy's BICCondGauss shares except for a discrete child of two or more continuous parents
// (the script's docstring). Where the counts agree, `expected` is pgmpy's BICCondGauss less
// the correction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bn/cg_bic.hpp"

using namespace cudag;

namespace {

const std::string kDir = std::string(CUDAG_SOURCE_DIR) + "/tests/data/cg_bic/";

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string item;
    while (std::getline(ss, item, sep)) out.push_back(item);
    return out;
}

/// The data sets of data.csv: header set,d0,d1,c2,c3,d4,c5; discrete cells "L<code>".
std::map<int, Dataset> read_sets() {
    std::ifstream in(kDir + "data.csv");
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = split(line, ',');
    std::map<int, std::vector<std::vector<std::string>>> rows;
    while (std::getline(in, line)) {
        std::vector<std::string> f = split(line, ',');
        rows[std::stoi(f[0])].push_back(f);
    }
    std::map<int, Dataset> sets;
    for (const auto& [k, r] : rows) {
        Dataset d;
        d.n_vars = static_cast<std::int64_t>(header.size()) - 1;
        d.n_samples = static_cast<std::int64_t>(r.size());
        d.values.resize(static_cast<std::size_t>(d.n_vars * d.n_samples));
        d.levels.resize(static_cast<std::size_t>(d.n_vars));
        for (std::int64_t v = 0; v < d.n_vars; ++v) {
            const std::string& name = header[static_cast<std::size_t>(v + 1)];
            d.names.push_back(name);
            const bool discrete = name[0] == 'd';
            int levels = 0;
            for (std::int64_t i = 0; i < d.n_samples; ++i) {
                const std::string& cell = r[static_cast<std::size_t>(i)][static_cast<std::size_t>(v + 1)];
                if (discrete) {
                    const int code = std::stoi(cell.substr(1));
                    d.column(v)[i] = code;
                    levels = std::max(levels, code + 1);
                } else {
                    d.column(v)[i] = std::strtod(cell.c_str(), nullptr);
                }
            }
            for (int l = 0; l < levels; ++l) {
                std::string label = "L";  // appended: GCC 12's -Wrestrict misfires on "L" + std::string
                label += std::to_string(l);
                d.levels[static_cast<std::size_t>(v)].push_back(label);
            }
        }
        sets.emplace(k, std::move(d));
    }
    return sets;
}

std::int32_t index_of(const Dataset& d, const std::string& name) {
    for (std::size_t v = 0; v < d.names.size(); ++v)
        if (d.names[v] == name) return static_cast<std::int32_t>(v);
    ADD_FAILURE() << "no column " << name;
    return 0;
}

}  // namespace

TEST(CgBicPgmpy, LocalScoresEqualPgmpysCorrectedToTheMle) {
    const std::map<int, Dataset> sets = read_sets();
    ASSERT_EQ(sets.size(), 24u);
    std::map<int, bn::CgBicScorer> scorers;
    for (const auto& [k, d] : sets) scorers.emplace(k, bn::CgBicScorer(d));
    std::ifstream in(kDir + "scores.tsv");
    std::string line;
    std::getline(in, line);  // comment
    std::getline(in, line);  // header
    int cases = 0, same_count = 0, kinds_mixed = 0;
    double worst = 0.0;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line, '\t');
        ASSERT_EQ(f.size(), 10u) << line;
        const int k = std::stoi(f[0]);
        const Dataset& d = sets.at(k);
        const bn::CgBicScorer& s = scorers.at(k);
        const std::int32_t child = index_of(d, f[1]);
        std::vector<std::int32_t> parents;
        if (f[2] != "-")
            for (const std::string& p : split(f[2], ',')) parents.push_back(index_of(d, p));
        ASSERT_EQ(std::stoll(f[3]), d.n_samples);
        const double bic_pgmpy = std::stod(f[5]), k_pgmpy = std::stod(f[6]), k_paper = std::stod(f[7]);
        const double correction = std::stod(f[8]), expected = std::stod(f[9]);
        const double got = s.local(child, parents);
        const double rel = std::abs(got - expected) / std::abs(expected);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-9) << "set " << k << ": " << f[1] << " | " << f[2] << ": " << got << " vs " << expected;
        if (k_pgmpy == k_paper) {  // pgmpy's BIC itself, less the covariance correction
            ++same_count;
            EXPECT_LE(std::abs(got - (bic_pgmpy - correction)), 1e-9 * std::abs(expected)) << line;
        } else {
            // A discrete child of >= 2 continuous parents: the counts differ by design.
            EXPECT_TRUE(d.is_discrete(child) && parents.size() >= 2) << line;
        }
        bool disc = false, cont = false;
        for (const std::int32_t p : parents) (d.is_discrete(p) ? disc : cont) = true;
        kinds_mixed += (disc && cont) ? 1 : 0;
        ++cases;
    }
    EXPECT_EQ(cases, 264);
    EXPECT_EQ(same_count, 216);  // 9 of the 11 families a set
    EXPECT_GT(kinds_mixed, 0);
    std::cout << "cg-bic vs pgmpy: " << cases << " families, largest relative difference " << worst << '\n';
}
