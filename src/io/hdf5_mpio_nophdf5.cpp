// SPDX-License-Identifier: Apache-2.0
// hdf5_mpio.hpp against the serial flavour of HDF5: no MPI-IO driver. Callers check
// parallel_compiled() first (io/parallel_io.hpp's plan), so the others are never reached.
#include "core/error.hpp"
#include "io/hdf5_mpio.hpp"

namespace cudag::io::h5 {

bool parallel_compiled() { return false; }

Handle open_file_mpio(const std::string&, bool) { throw NotCompiled("parallel HDF5"); }

Handle collective_transfer() { throw NotCompiled("parallel HDF5"); }

}  // namespace cudag::io::h5
