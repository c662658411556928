// SPDX-License-Identifier: Apache-2.0
// Reading a data set from a text table or HDF5, and writing one back.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "mpi/communicator.hpp"
#include "io/output_set.hpp"
#include "io/table_reader.hpp"

namespace cudag::io {

/// The file name that messages give for standard input.
inline constexpr const char* kStdinName = "<stdin>";

/// Read a data set, choosing the reader by content: HDF5 when the file carries the HDF5
/// signature (\x89HDF\r\n\x1a\n, at offset 0 or after a user block), else a text table
/// (read_table). `dataset_path` selects the HDF5 dataset ("" = the only 2-D one); it is
/// an error to give it for a text file. Throws InputError("cannot open 'path': ...")
/// when the file is missing or unreadable.
/// `path` "-" reads a text table from standard input, named kStdinName in messages and
/// Dataset::source; HDF5 there is an InputError (HDF5 needs a file it can seek in).
/// TableMode::Labels reads discrete data (see read_table; HDF5 values are discretised by
/// value, see discretize).
/// `na_values` (--na-values): tokens that are missing values in a text table (read_table);
/// an InputError for HDF5 input.
Dataset read_dataset(const std::string& path, const std::string& dataset_path = "", TableMode mode = TableMode::Numeric,
                     const std::vector<std::string>& na_values = {});
/// The same with every reading option (ReadOptions::keep_missing keeps NaN cells of HDF5
/// input as missing too).
Dataset read_dataset(const std::string& path, const std::string& dataset_path, const ReadOptions& options);

/// Read a 2-D numeric HDF5 dataset of shape samples × variables (any integer or float
/// type; converted to double). With `dataset_path` empty, the only 2-D numeric dataset
/// in the file (searched recursively) is used; several or none is an InputError listing
/// the candidates. Variable names come from a string-array attribute of the dataset named
/// "names", "columns" or "variable_names" (fixed- or variable-length strings), else
/// X1..Xn. NaN and ±Inf are InputErrors naming the row and column (counted from 1).
/// Dataset::source is "path:/dataset".
/// With `keep_missing`, NaN values are missing cells (Dataset::missing counts them); ±Inf
/// stay errors.
Dataset read_hdf5(const std::string& path, const std::string& dataset_path, bool keep_missing = false);

/// When `group` names a group of the HDF5 file `path` (a path inside it, with or without the
/// leading '/'), the datasets directly in it, as paths from the root, in increasing order of
/// their names (HDF5's name index, h5py's order); else (a dataset, a text file, "-", an
/// empty `group`) none. Throws InputError for a group that does not exist.
std::vector<std::string> hdf5_group_datasets(const std::string& path, const std::string& group);

/// The collective form of read_hdf5 (parallel HDF5 only; NotCompiled otherwise): every
/// rank of `comm` (spanning the job) opens `path` through the MPI-IO driver and reads its
/// block of columns by collective hyperslab reads (contiguous and chunked layouts alike);
/// one allgatherv then gives every rank the whole data set. The same Dataset and the same
/// errors (every rank throws them) as read_hdf5.
Dataset read_hdf5_collective(const std::string& path, const std::string& dataset_path, mpi::Communicator& comm,
                             bool keep_missing = false);

/// read_dataset for an HDF5 file, read collectively (read_hdf5_collective).
Dataset read_dataset_collective(const std::string& path, const std::string& dataset_path, TableMode mode,
                                mpi::Communicator& comm);
Dataset read_dataset_collective(const std::string& path, const std::string& dataset_path, const ReadOptions& options,
                                mpi::Communicator& comm);

/// Every rank of `comm` gets the data set that `read` returns on rank 0: the file is read
/// once, then sent by one broadcast of its header (names, labels, source) and one of its
/// values. A failure of `read` is agreed on (rank 0 reports it, every rank stops). One
/// rank: read().
Dataset share_dataset(mpi::Communicator& comm, const std::function<Dataset()>& read);

/// Write `d`, choosing the format by the extension of `path` (case-insensitive):
/// .h5/.hdf5 → HDF5 dataset "/data" (samples × variables, float64) with a "names"
/// attribute of variable-length UTF-8 strings; .csv → comma-separated with header;
/// .tsv/.txt → tab-separated with header; discrete data are written as their level labels
/// in text and as codes in HDF5. Text numbers use the shortest representation
/// that round-trips exactly (std::to_chars). The file is written under a temporary name
/// and renamed into place, so `path` is either the old file or the complete new one.
/// "-" writes comma-separated text to standard output.
void write_dataset(const Dataset& d, const std::string& path);

/// The same, written to `outputs`' temporary for `path` (the caller commits), so that a
/// command's files appear together; "-" writes to standard output at once.
void write_dataset(const Dataset& d, const std::string& path, OutputSet& outputs);

}  // namespace cudag::io
