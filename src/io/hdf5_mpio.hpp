// SPDX-License-Identifier: Apache-2.0
// The MPI-IO side of the HDF5 layer: files opened by every rank of the job through
// HDF5's MPI-IO driver, and collective transfers. Built from hdf5_mpio_phdf5.cpp against
// the parallel flavour of HDF5 and from hdf5_mpio_nophdf5.cpp against the serial one
// (where every function but parallel_compiled throws NotCompiled).
#pragma once

#include <string>

#include "io/hdf5_file.hpp"

namespace cudag::io::h5 {

/// Whether this build links the parallel (MPI-IO) flavour of HDF5.
bool parallel_compiled();

/// Open the existing file `path` on every rank of MPI_COMM_WORLD through the MPI-IO
/// driver (collective: every rank calls it), read-only or, with `write`, read-write.
/// MPI must be initialised. Errors name `path`.
Handle open_file_mpio(const std::string& path, bool write);

/// A dataset transfer property list asking for collective MPI-IO (every rank calls each
/// H5Dread/H5Dwrite that uses it, with an empty selection when it has nothing to move).
Handle collective_transfer();

}  // namespace cudag::io::h5
