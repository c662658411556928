// SPDX-License-Identifier: Apache-2.0
// A build without NCCL (CUDAG_ENABLE_NCCL off): what stands in for kernels/nccl_communicator.cpp.
#include "mpi/mpi_communicator.hpp"

namespace cudag::mpi {

bool nccl_compiled() { return false; }

std::unique_ptr<Communicator> make_nccl_communicator(std::unique_ptr<Communicator>, int, double) {
    throw NotCompiled("NCCL");
}

}  // namespace cudag::mpi
