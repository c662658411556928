// SPDX-License-Identifier: Apache-2.0
// Which way a run's HDF5 files move between the ranks and the disk: collectively (every
// rank opens the file through MPI-IO and reads or writes its own part) or gathered (rank
// 0 reads and broadcasts; rank 0 gathers what it needs and writes alone).
#pragma once

#include <string>

namespace cudag::io {

/// The HDF5 I/O path of a run on `ranks` ranks.
struct Hdf5IoPlan {
    /// MPI-IO: the input read by column blocks on every rank, the result and checkpoint
    /// records (separating sets, pMax) written by the rank that holds them.
    bool collective = false;
    int ranks = 1;
    /// Why the path is gathered ("serial HDF5", "one rank", ...); empty when collective.
    std::string why;
    /// "collective (MPI-IO, 4 ranks)" or "gathered on rank 0 (serial HDF5)".
    std::string describe() const;
};

/// The path for `ranks` ranks: collective with the parallel flavour of HDF5, MPI and more
/// than one rank, unless the environment variable CUDAG_HDF5_IO is "gathered" (a hidden
/// switch, so that tests and benchmarks run both paths in one build; "collective" or
/// unset: the automatic choice). Another value of CUDAG_HDF5_IO is an InputError.
Hdf5IoPlan plan_hdf5_io(int ranks);

/// What `cudag info` says: whether collective HDF5 I/O is available in this build, and
/// why not.
std::string hdf5_io_summary();

}  // namespace cudag::io
