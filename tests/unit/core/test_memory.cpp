// SPDX-License-Identifier: Apache-2.0
// Host memory (core/memory.hpp, issue 53 item 3): what is available under an address-space
// limit, and a run's memory plan refused in one line with its margin and what to lower.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "bn/mcmc_run.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"

namespace cudag {
namespace {

TEST(AvailableHostBytes, AnAddressSpaceLimitCountsWhatIsMappedAlready) {
    // Under `ulimit -v` the libraries, threads and data this process has mapped count
    // against the limit: what is left is the limit less them, not the whole limit.
    ::unsetenv("CUDAG_TEST_AVAILABLE_BYTES");
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_AS, &old), 0);
    std::int64_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const std::int64_t mapped = pages * ::sysconf(_SC_PAGE_SIZE);
    ASSERT_GT(mapped, 0);
    const std::int64_t room = std::int64_t{512} << 20;
    rlimit lim = old;
    lim.rlim_cur = static_cast<rlim_t>(mapped + room);
    if (old.rlim_max != RLIM_INFINITY && lim.rlim_cur > old.rlim_max) GTEST_SKIP() << "hard limit too low";
    ASSERT_EQ(::setrlimit(RLIMIT_AS, &lim), 0);
    const std::int64_t avail = available_host_bytes();
    ASSERT_EQ(::setrlimit(RLIMIT_AS, &old), 0);
    EXPECT_LE(avail, room);
    EXPECT_GT(avail, room - (std::int64_t{64} << 20));  // what was mapped meanwhile
}

TEST(AvailableHostBytes, CgroupLimitsOfTheProcesssGroupAndThoseAboveIt) {
    // A SLURM job's limit sits on its own group (/slurm/uid_1/job_2), not on the root that
    // was the only one read: every group on the path counts, the least room wins.
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("cudag_cgroup_" + std::to_string(::getpid()));
    fs::remove_all(root);
    const auto put = [&](const fs::path& dir, const char* file, const std::string& value) {
        fs::create_directories(dir);
        std::ofstream(dir / file) << value << "\n";
    };
    // v1: the job's group 1000 - 400, above it 5000 - 100, the root unlimited.
    put(root / "memory", "memory.limit_in_bytes", "9223372036854771712");
    put(root / "memory", "memory.usage_in_bytes", "100");
    put(root / "memory/slurm", "memory.limit_in_bytes", "5000");
    put(root / "memory/slurm", "memory.usage_in_bytes", "100");
    put(root / "memory/slurm/job_2", "memory.limit_in_bytes", "1000");
    put(root / "memory/slurm/job_2", "memory.usage_in_bytes", "400");
    EXPECT_EQ(detail::cgroup_room("12:pids:/\n4:memory:/slurm/job_2\n0::/\n", root.string()), 600);
    EXPECT_EQ(detail::cgroup_room("4:cpu,memory:/slurm\n", root.string()), 4900);
    EXPECT_EQ(detail::cgroup_room("4:pids:/slurm/job_2\n", root.string()), -1);  // no memory line
    // v2: "max" is no limit; the group above limits.
    put(root / "job", "memory.max", "max");
    put(root / "job", "memory.current", "10");
    put(root, "memory.max", "3000");
    put(root, "memory.current", "1000");
    EXPECT_EQ(detail::cgroup_room("0::/job\n", root.string()), 2000);
    fs::remove_all(root);
}

TEST(MemoryPlan, RefusalNamesThePartsTheMarginAndWhatLowersTheLargest) {
    MemoryPlan plan;
    plan.add("the local-score table", 100.0 * (1 << 20), "lower --max-parents");
    plan.add("the chains' edge sums", 300.0 * (1 << 20), "run fewer chains per rank");
    plan.add("the data", 500.0 * (1 << 20));  // nothing lowers it: not named as the advice
    plan.add("nothing", 0.0);
    EXPECT_EQ(plan.parts().size(), 3u);
    EXPECT_DOUBLE_EQ(plan.total(), 900.0 * (1 << 20));
    EXPECT_DOUBLE_EQ(plan.needed(), 900.0 * (1 << 20) * (1.0 + MemoryPlan::kMarginFraction) + MemoryPlan::kMarginBytes);
    EXPECT_NO_THROW(plan.require("a run", plan.needed()));
    try {
        plan.require("cudag mcmc on 9 variables", 900.0 * (1 << 20));  // the parts fit, the margin not
        FAIL() << "not refused";
    } catch (const OutOfMemory& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_EQ(m.rfind("cudag mcmc on 9 variables needs about 1022 MiB of host memory (the local-score table "
                          "100 MiB, the chains' edge sums 300 MiB, the data 500 MiB, and 10% + 32 MiB for the rest); "
                          "this machine has 900 MiB available; run fewer chains per rank",
                          0),
                  0u)
            << m;
    }
}

TEST(MemoryPlan, AFailedAllocationBecomesALineNamingThePhase) {
    set_memory_phase("cudag mcmc, the local-score table and the chains");
    set_memory_plan_note("the run's memory plan: about 1.0 GiB");
    EXPECT_EQ(out_of_memory_message(),
              "out of host memory in cudag mcmc, the local-score table and the chains (the run's memory plan: about "
              "1.0 GiB); free memory, or run on fewer variables");
    set_memory_phase("");
    set_memory_plan_note("");
    EXPECT_EQ(out_of_memory_message(), "out of host memory; free memory, or run on fewer variables");
}

TEST(ChainMemory, EdgeSumsDoNotDependOnIterationsOnlyOnChainsHere) {
    // Issue 53 item 7: the n x n edge sums are the chains' (and rank 0's combination), not
    // the iterations'; the traces are the iterations'.
    bn::OrderMcmcOptions opts;
    opts.chains = 4;
    opts.burn_in = 0;
    opts.thin = 1;
    opts.iterations = 100;
    const bn::ChainMemory few = bn::chain_memory(opts, 1000, 4, true);
    opts.iterations = 100000;
    const bn::ChainMemory many = bn::chain_memory(opts, 1000, 4, true);
    EXPECT_DOUBLE_EQ(few.edge_sums, many.edge_sums);
    EXPECT_DOUBLE_EQ(few.edge_sums, (4 + 1) * 16.0 * 1000 * 1000);
    EXPECT_GT(many.traces, few.traces);
    EXPECT_DOUBLE_EQ(bn::chain_memory(opts, 1000, 1, false).edge_sums, 16.0 * 1000 * 1000);  // another rank's
    EXPECT_EQ(bn::kept_iterations(opts), 100000);
}

}  // namespace
}  // namespace cudag
