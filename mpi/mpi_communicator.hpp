// SPDX-License-Identifier: Apache-2.0
// Factories for the MPI and NCCL communicators (declared without MPI/NCCL headers).
#pragma once

#include <memory>

#include "mpi/communicator.hpp"

namespace cudag::mpi {

/// An MpiCommunicator over a duplicate of MPI_COMM_WORLD (host buffers; errors are
/// returned, not fatal, and thrown as CommError). MPI must be initialised (Environment).
/// Throws NotCompiled("MPI") in a build without MPI.
std::unique_ptr<Communicator> make_mpi_world_communicator();

/// Whether this build has the NCCL communicator.
bool nccl_compiled();

/// A NcclCommunicator on CUDA device `device`, bootstrapped through `host` (rank 0's
/// ncclGetUniqueId broadcast by host->bcast), which it keeps for gatherv and barrier.
/// Collectives accept device buffers, and host buffers staged through a device buffer.
/// Every wait polls ncclCommGetAsyncError and gives up (ncclCommAbort, CommError) after
/// `timeout_s` seconds, so a lost peer ends the job instead of hanging it.
/// Throws NotCompiled("NCCL") in a build without NCCL.
std::unique_ptr<Communicator> make_nccl_communicator(std::unique_ptr<Communicator> host, int device, double timeout_s);

/// `inner` checked at every call (mpi/strict_communicator.cpp): before each collective all
/// ranks compare their calls (kind, root, element type, count or counts, reduction) over a
/// separate MPI communicator, and a transfer's two ranks compare theirs; a disagreement
/// throws CommError on those ranks naming each rank's call site, and a rank that does not
/// arrive within `timeout_s` seconds makes the waiting ones print their call site and
/// end the job (MPI_Abort). `inner` itself when it has one rank, or in a build without MPI.
std::unique_ptr<Communicator> make_strict_communicator(std::unique_ptr<Communicator> inner, double timeout_s);

/// make_strict_communicator(inner, T) when the environment variable CUDAG_STRICT_COMM is
/// set to anything but "" or "0" (T: CUDAG_STRICT_COMM_TIMEOUT seconds, default 300);
/// otherwise `inner`. The test suite runs every MPI test so.
std::unique_ptr<Communicator> strict_if_asked(std::unique_ptr<Communicator> inner);

}  // namespace cudag::mpi
