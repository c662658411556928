// SPDX-License-Identifier: Apache-2.0
// Under mpiexec (ctest runs it on 1, 2, 3 and 4 ranks): the bootstrap's replicates spread over
// the ranks give rank 0 the counts one process gets, for Fisher-z and G², with a number of
// replicates that does not divide evenly over the ranks.
#include <gtest/gtest.h>

#include "pc/bootstrap.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "support/mpi_world.hpp"

using namespace cudag;

namespace {

void expect_rank_invariant(const Dataset& data, const pc::PcConfig& cfg, const bootstrap::Options& b) {
    mpi::Communicator& comm = test::world();
    const bootstrap::Table got = pc::run_bootstrap(data, cfg, b, comm);
    mpi::SerialCommunicator serial;
    if (comm.rank() != 0) {
        EXPECT_EQ(got.size(), 0u) << "only rank 0 holds the table";
        return;
    }
    const bootstrap::Table want = pc::run_bootstrap(data, cfg, b, serial);
    ASSERT_GT(want.size(), 0u);
    EXPECT_EQ(got.pairs, want.pairs) << comm.size() << " ranks";
    EXPECT_EQ(got.counts, want.counts) << comm.size() << " ranks";
    EXPECT_EQ(bootstrap::consensus_graph(got, data.n_vars), bootstrap::consensus_graph(want, data.n_vars));
}

TEST(MpiBootstrap, FisherCountsEqualOneProcess) {
    const Dataset data = sim::simulate_gaussian({25, 200, 0.12, 4}).data;
    pc::PcConfig cfg;
    cfg.alpha = 0.05;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 1;
    expect_rank_invariant(data, cfg, {.replicates = 7, .resample = bootstrap::Resample::Bootstrap, .seed = 99});
    expect_rank_invariant(data, cfg, {.replicates = 5, .resample = bootstrap::Resample::Half, .seed = 99});
}

TEST(MpiBootstrap, DiscreteCountsEqualOneProcess) {
    const Dataset data = sim::forward_sample(sim::random_network({10, 600, 0.25, 2, 8}), 600, 9, 1);
    pc::PcConfig cfg;
    cfg.test.kind = skeleton::TestKind::GSquare;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = 1;
    expect_rank_invariant(data, cfg, {.replicates = 5, .resample = bootstrap::Resample::Bootstrap, .seed = 99});
}

}  // namespace
