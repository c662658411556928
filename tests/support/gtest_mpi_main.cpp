// SPDX-License-Identifier: Apache-2.0
// GoogleTest main for tests launched by mpiexec (ginkgo's ginkgo_mpi_main): initialises
// MPI, prints only rank 0's results, and fails on every rank when any rank failed.
#include <gtest/gtest.h>

#include "core/backend.hpp"
#include "mpi/mpi_communicator.hpp"
#include "support/mpi_world.hpp"

namespace {
cudag::mpi::Communicator* g_world = nullptr;
cudag::mpi::Communicator* g_nccl = nullptr;
}  // namespace

namespace cudag::test {
mpi::Communicator& world() { return *g_world; }
std::vector<mpi::Communicator*> communicators() {
    std::vector<mpi::Communicator*> all = {g_world};
    if (g_nccl) all.push_back(g_nccl);
    return all;
}
}  // namespace cudag::test

int main(int argc, char** argv) {
    cudag::mpi::Environment env(argc, argv);
    int rc = 0;
    {
        std::unique_ptr<cudag::mpi::Communicator> world = env.world();
        g_world = world.get();
        // NCCL too when every rank has a GPU of its own and the build has NCCL (same
        // decision everywhere).
        std::unique_ptr<cudag::mpi::Communicator> nccl;
        const int gpus = world->allreduce(cudag::visible_gpus(), cudag::mpi::ReduceOp::Min);
        if (env.mpi() && cudag::mpi::gpu_per_rank(*world, env, gpus) && cudag::mpi::nccl_compiled()) {
            nccl = cudag::mpi::strict_if_asked(cudag::mpi::make_nccl_communicator(
                cudag::mpi::make_mpi_world_communicator(), cudag::mpi::bind_device(env.local_rank(), gpus), 60.0));
            g_nccl = nccl.get();
        }
        ::testing::InitGoogleTest(&argc, argv);
        if (world->rank() != 0) {
            auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
            delete listeners.Release(listeners.default_result_printer());
        }
        rc = RUN_ALL_TESTS();
        rc = world->allreduce(rc, cudag::mpi::ReduceOp::Max);
        g_nccl = nullptr;
        g_world = nullptr;
    }
    return rc;
}
