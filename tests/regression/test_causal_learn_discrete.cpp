// SPDX-License-Identifier: Apache-2.0
// causal-learn parity for discrete data: cudag pc --compat causal-learn with chisq/gsq
// equals causal-learn's returned CPDAG cell for cell on its discrete test data and on
// every bnlearn network sample that has a reference file. The reference files stay in
// ../shared/data (never copied into the project).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>

#include "io/dataset_io.hpp"
#include "pc/run.hpp"
#include "support/cl_matrix.hpp"
#include "support/paths.hpp"

using namespace cudag;

namespace {

/// Runs `data_file` as the reference file `ref` names it: <data>_pc_<test>_<alpha>_stable_
/// <uc_rule>_<uc_priority>.txt, and compares.
void check(const std::string& data_file, const std::string& ref) {
    static const std::regex re(R"(.*_pc_(chisq|gsq)_([0-9.]+)_stable_(\d)_(-?\d)\.txt)");
    std::smatch m;
    const std::string name = std::filesystem::path(ref).filename().string();
    ASSERT_TRUE(std::regex_match(name, m, re)) << name;
    const Dataset data = io::read_dataset(data_file, "", io::TableMode::Labels);
    pc::PcConfig cfg;
    cfg.test.kind = m[1] == "chisq" ? skeleton::TestKind::ChiSquare : skeleton::TestKind::GSquare;
    cfg.alpha = std::stod(m[2]);
    cfg.compat = skeleton::Compat::CausalLearn;
    cfg.uc_rule = std::stoi(m[3]);
    cfg.uc_priority = std::stoi(m[4]);
    cfg.backend.threads = 2;
    const auto t0 = std::chrono::steady_clock::now();
    const pc::PcResult r = pc::run_pc(data, cfg);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(test::cl_matrices_equal(test::to_cl_matrix(r.cpdag), test::read_cl_matrix(ref), r.names)) << name;
    std::printf("  %-45s %3lld vars: compared in %.2f s\n", name.c_str(), static_cast<long long>(data.n_vars), secs);
}

}  // namespace

TEST(CausalLearnDiscreteParity, DiscreteTenChiSquareAndGSquare) {
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found: parity test skipped";
    const std::string dir = shared + "/causal-learn";
    int seen = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/benchmark_returned_results")) {
        const std::string name = e.path().filename().string();
        if (name.rfind("discrete_10_pc_", 0) != 0) continue;
        check(dir + "/data_discrete_10.txt", e.path().string());
        ++seen;
    }
    EXPECT_GE(seen, 2) << "expected the discrete_10 chisq and gsq reference files";
}

TEST(CausalLearnDiscreteParity, BnlearnNetworksChiSquare) {
    const std::string shared = test::shared_data_dir();
    if (shared.empty()) GTEST_SKIP() << "../shared/data/causal-learn not found: parity test skipped";
    const std::string dir = shared + "/causal-learn/bnlearn_discrete_10000";
    std::vector<std::filesystem::path> refs;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/benchmark_returned_results"))
        refs.push_back(e.path());
    std::sort(refs.begin(), refs.end());
    ASSERT_FALSE(refs.empty());
    for (const auto& ref : refs) {
        const std::string net = ref.filename().string().substr(0, ref.filename().string().find("_pc_"));
        check(dir + "/data/" + net + ".txt", ref.string());
    }
}
