// SPDX-License-Identifier: Apache-2.0
// The world communicator of an MPI test executable (set up by gtest_mpi_main.cpp).
#pragma once

#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"

namespace cudag::test {

/// Every rank of the mpiexec launch (a SerialCommunicator when run without mpiexec).
mpi::Communicator& world();

}  // namespace cudag::test
