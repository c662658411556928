// SPDX-License-Identifier: Apache-2.0
// Environment's MPI steps: built only with CUDAG_ENABLE_MPI (mpi_none.cpp otherwise).
#include <mpi.h>

#include "mpi/environment.hpp"

namespace cudag::mpi {

void Environment::init_mpi(int& argc, char**& argv) {
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        throw CommError("MPI_Init_thread failed on " + host_name());
    mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_size(node, &local_size_);
    MPI_Comm_free(&node);
}

void Environment::finalize_mpi() {
    int finalized = 0;
    if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
}

void Environment::abort_mpi(int code) const { MPI_Abort(MPI_COMM_WORLD, code); }

}  // namespace cudag::mpi
