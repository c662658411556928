// SPDX-License-Identifier: Apache-2.0
// The cg-bic score table on the GPU (kernels/bn_table_kernels.cu cg_bic_table_kernel, through
// bn::cuda_table_filler) against the CPU's table, bit for bit: mixed, all-continuous and
// all-discrete data of several sizes, with a prior, in the plus1 space, and families with more
// strata than a GPU thread holds (NaN there, scored by the CPU); a singular stratum gives the
// CPU's InputError; factors declaring levels no row takes, counted (bnlearn's face) or not.
// Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bn/cg_bic.hpp"
#include "bn/engines.hpp"
#include "bn/prior.hpp"
#include "bn/score_table.hpp"
#include "core/error.hpp"
#include "support/gpu.hpp"

namespace {

using cudag::bn::ScoreTable;

/// n variables, `samples` rows: variable v is discrete with levels[v] levels (0:
/// continuous); each depends on the two before it. A splitmix64 stream of the seed.
cudag::Dataset mixed_data(const std::vector<int>& levels, int samples, std::uint64_t seed) {
    const int n = static_cast<int>(levels.size());
    cudag::Dataset d;
    d.n_vars = n;
    d.n_samples = samples;
    d.values.resize(static_cast<std::size_t>(n) * samples);
    bool any = false;
    for (int v = 0; v < n; ++v) {
        std::string name = "v";  // appended: GCC 12's -Wrestrict misfires on "v" + std::string
        name += std::to_string(v);
        d.names.push_back(name);
        any = any || levels[v] > 0;
    }
    if (any)
        for (int v = 0; v < n; ++v) {
            std::vector<std::string> labels;
            for (int i = 0; i < levels[v]; ++i) {
                std::string label = "l";
                label += std::to_string(i);
                labels.push_back(label);
            }
            d.levels.push_back(labels);
        }
    std::uint64_t state = seed;
    auto next = [&] {  // uniform in [-1, 1)
        state += 0x9e3779b97f4a7c15ull;
        std::uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1.0;
    };
    std::vector<double> latent(static_cast<std::size_t>(n));
    for (int i = 0; i < samples; ++i)
        for (int v = 0; v < n; ++v) {
            double x = next() + next() + next();
            for (int u = std::max(0, v - 2); u < v; ++u) x += 0.5 * latent[u];
            latent[v] = x / 2.0;
            if (levels[v] > 0) {
                // Levels by where x falls in [-2, 2] (beyond: the end levels), so each occurs.
                const int c = static_cast<int>(std::floor((x + 2.0) / 4.0 * levels[v]));
                d.column(v)[i] = static_cast<double>(std::clamp(c, 0, levels[v] - 1));
            } else {
                d.column(v)[i] = 10.0 * v + (1.0 + v) * x;
            }
        }
    return d;
}

void expect_same_entries(const ScoreTable& a, const ScoreTable& b) {
    ASSERT_EQ(a.total_entries(), b.total_entries());
    std::int64_t differ = 0;
    for (std::int32_t v = 0; v < a.n_nodes(); ++v) {
        const auto x = a.node_scores(v), y = b.node_scores(v);
        for (std::size_t i = 0; i < x.size(); ++i) differ += !(x[i] == y[i]);
    }
    EXPECT_EQ(differ, 0) << "of " << a.total_entries() << " entries";
}

}  // namespace

TEST(CudaCgBic, TableEqualsTheCpuTableBitForBit) {
    CUDAG_REQUIRE_GPU();
    struct Case {
        std::string name;
        std::vector<int> levels;
        int samples, s;
        bool gpu_only;  ///< every family within the GPU's strata: no node left to the CPU
    };
    const std::vector<Case> cases = {
        {"mixed, 150 rows (small strata left out)", {3, 0, 2, 0, 0, 4, 0, 2}, 150, 3, true},
        {"mixed, 700 rows, s = 4", {2, 0, 0, 3, 0, 2, 0}, 700, 4, true},
        {"mixed, 2000 rows", {0, 3, 0, 0, 2, 0, 3, 0, 0, 2}, 2000, 3, true},
        {"mixed, many levels (CPU entries)", {6, 0, 7, 0, 5, 0, 6}, 600, 3, false},
        {"all continuous", {0, 0, 0, 0, 0, 0, 0, 0}, 300, 4, true},
        {"all discrete", {3, 2, 4, 2, 3, 2}, 500, 3, true},
        {"one discrete variable, 64 rows", {0, 0, 4, 0, 0}, 64, 4, true},
    };
    std::uint64_t seed = 77;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const cudag::bn::CgBicScorer base(mixed_data(c.levels, c.samples, seed++));
        const auto n = static_cast<std::int32_t>(c.levels.size());
        cudag::bn::StructurePrior prior;
        prior.edge_penalty = 1.3;
        prior.belief.assign(static_cast<std::size_t>(n) * n, 0.5);
        for (std::size_t i = 0; i < prior.belief.size(); i += 5) prior.belief[i] = (i % 3) / 2.0;
        for (std::int32_t v = 0; v < n; ++v) prior.belief[static_cast<std::size_t>(v) * n + v] = 0.5;
        const cudag::bn::PriorScorer scorer(base, prior);
        const ScoreTable cpu = ScoreTable::build(scorer, c.s, 2);
        const ScoreTable gpu = ScoreTable::build(scorer, c.s, 2, cudag::bn::cuda_table_filler(base, scorer, 0));
        expect_same_entries(cpu, gpu);
        if (c.gpu_only)
            EXPECT_EQ(gpu.fill_times().host_nodes, 0);  // every entry finite from the GPU
        else
            EXPECT_GT(gpu.fill_times().host_nodes, 0);  // families of > 128 strata: the CPU's
        // The plus1 space.
        std::vector<std::vector<std::int32_t>> cands(n), extras(n);
        for (std::int32_t v = 0; v < n; ++v)
            for (std::int32_t u = 0; u < n; ++u)
                if (u != v) ((u + 2 * v) % 3 == 0 ? cands[v] : extras[v]).push_back(u);
        const ScoreTable cpu1 = ScoreTable::build(scorer, cands, c.s, 2, extras);
        const ScoreTable gpu1 =
            ScoreTable::build(scorer, cands, c.s, 2, extras, cudag::bn::cuda_table_filler(base, scorer, 0));
        expect_same_entries(cpu1, gpu1);
    }
}

// bnlearn's face counts a factor's declared levels, used or not (CgBicScorer's
// declared_levels): the penalties the GPU forms from observed() follow them.
TEST(CudaCgBic, DeclaredLevelsTableEqualsTheCpuTableBitForBit) {
    CUDAG_REQUIRE_GPU();
    cudag::Dataset d = mixed_data({3, 0, 2, 0, 0, 4, 0, 2}, 900, 91);
    d.levels[0].push_back("unused");
    d.levels[5].push_back("unused_a");
    d.levels[5].push_back("unused_b");
    for (const bool declared : {false, true}) {
        SCOPED_TRACE(declared ? "declared levels" : "observed levels");
        const cudag::bn::CgBicScorer scorer(d, declared);
        EXPECT_EQ(scorer.observed()[5], declared ? 6.0 : 4.0);
        const cudag::bn::PriorScorer prior(scorer, {});
        const ScoreTable cpu = ScoreTable::build(prior, 3, 2);
        const ScoreTable gpu = ScoreTable::build(prior, 3, 2, cudag::bn::cuda_table_filler(scorer, prior, 0));
        expect_same_entries(cpu, gpu);
        EXPECT_EQ(gpu.fill_times().host_nodes, 0);
    }
}

TEST(CudaCgBic, SingularStratumGivesTheCpusError) {
    // v1 constant where v0 = l1: the GPU leaves those entries NaN, the CPU names the family
    // (the first in node order: v0 given {v1}).
    CUDAG_REQUIRE_GPU();
    cudag::Dataset d = mixed_data({2, 0, 0, 0}, 200, 5);
    for (int i = 0; i < 200; ++i)
        if (d.column(0)[i] == 1.0) d.column(1)[i] = 4.0;
    const cudag::bn::CgBicScorer base(d);
    const cudag::bn::PriorScorer scorer(base, cudag::bn::StructurePrior{});
    std::string cpu_error, gpu_error;
    try {
        (void)ScoreTable::build(scorer, 2, 1);
    } catch (const cudag::InputError& e) {
        cpu_error = e.what();
    }
    try {
        (void)ScoreTable::build(scorer, 2, 1, cudag::bn::cuda_table_filler(base, scorer, 0));
    } catch (const cudag::InputError& e) {
        gpu_error = e.what();
    }
    EXPECT_NE(cpu_error.find("cg-bic: the local score of 'v0' given {'v1'}"), std::string::npos) << cpu_error;
    EXPECT_NE(cpu_error.find("is singular"), std::string::npos) << cpu_error;
    EXPECT_EQ(cpu_error, gpu_error);
}
