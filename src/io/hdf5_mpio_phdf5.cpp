// SPDX-License-Identifier: Apache-2.0
// hdf5_mpio.hpp against the parallel flavour of HDF5 (CUDAG_HAVE_PARALLEL_HDF5): its
// headers bring <mpi.h>. The job's communicators all span MPI_COMM_WORLD, so files are
// opened on it (HDF5 duplicates the communicator).
#include <mpi.h>

#include "core/error.hpp"
#include "io/hdf5_mpio.hpp"

namespace cudag::io::h5 {

bool parallel_compiled() { return true; }

Handle open_file_mpio(const std::string& path, bool write) {
    silence_errors();
    const std::string where = "cannot open '" + path + "' as HDF5 (MPI-IO)";
    Handle fapl = check_id(H5Pcreate(H5P_FILE_ACCESS), where);
    check(H5Pset_fapl_mpio(fapl.get(), MPI_COMM_WORLD, MPI_INFO_NULL), where);
    if (write) check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), where);
    return check_id(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.get()), where);
}

Handle collective_transfer() {
    Handle dxpl = check_id(H5Pcreate(H5P_DATASET_XFER), "cannot create an HDF5 transfer list");
    check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "cannot ask HDF5 for collective I/O");
    return dxpl;
}

}  // namespace cudag::io::h5
