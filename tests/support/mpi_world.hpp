// SPDX-License-Identifier: Apache-2.0
// The world communicator of an MPI test executable (set up by gtest_mpi_main.cpp).
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"

#include <vector>

namespace cudag::test {

/// Every rank of the mpiexec launch (a SerialCommunicator when run without mpiexec).
mpi::Communicator& world();

/// world(), plus an NCCL communicator over the same ranks when this build has NCCL and
/// every rank sees a GPU (so the same tests run on both on a GPU machine).
std::vector<mpi::Communicator*> communicators();

}  // namespace cudag::test
