// SPDX-License-Identifier: Apache-2.0
// GoogleTest main for tests launched by mpiexec (ginkgo's ginkgo_mpi_main): initialises
// MPI, prints only rank 0's results, and fails on every rank when any rank failed.
#include <gtest/gtest.h>

#include "support/mpi_world.hpp"

namespace {
cudag::mpi::Communicator* g_world = nullptr;
}

namespace cudag::test {
mpi::Communicator& world() { return *g_world; }
}  // namespace cudag::test

int main(int argc, char** argv) {
    cudag::mpi::Environment env(argc, argv);
    int rc = 0;
    {
        std::unique_ptr<cudag::mpi::Communicator> world = env.world();
        g_world = world.get();
        ::testing::InitGoogleTest(&argc, argv);
        if (world->rank() != 0) {
            auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
            delete listeners.Release(listeners.default_result_printer());
        }
        rc = RUN_ALL_TESTS();
        rc = world->allreduce(rc, cudag::mpi::ReduceOp::Max);
        g_world = nullptr;
    }
    return rc;
}
