// SPDX-License-Identifier: Apache-2.0
// A build without MPI (CUDAG_ENABLE_MPI off): what stands in for environment_mpi.cpp and
// mpi_communicator.cpp. The environment stays a single process even under mpirun, and
// asking for the MPI communicator throws NotCompiled.
#include "mpi/environment.hpp"
#include "mpi/mpi_communicator.hpp"

namespace cudag::mpi {

void Environment::init_mpi(int&, char**&) {}
void Environment::finalize_mpi() {}
void Environment::abort_mpi(int) const {}

std::unique_ptr<Communicator> make_mpi_world_communicator() { throw NotCompiled("MPI"); }

std::unique_ptr<Communicator> make_strict_communicator(std::unique_ptr<Communicator> inner, double) {
    return inner;  // one process: nothing to compare
}

}  // namespace cudag::mpi
