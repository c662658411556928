// SPDX-License-Identifier: Apache-2.0
// What the package's entry points share (cudag_r.cpp: pcalg's face; bnlearn.cpp: bnlearn's):
// the process's one MPI environment, Ctrl-C as a C++ exception, R's data matrix as a Dataset.
#pragma once

#include <Rcpp.h>

#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "mpi/environment.hpp"

namespace cudag::rpkg {

/// The process's MPI environment (a single process unless R was started by an MPI
/// launcher), made on first use and kept until exit.
mpi::Environment& environment();

/// Throws (unwinding the C++ frames) when the user pressed Ctrl-C; R's own check would
/// jump over them.
void throw_if_interrupted();

/// A data matrix from R (samples x variables, column-major: cudag's variable-major layout)
/// as a Dataset. NA / NaN / Inf are refused with the cell named; with `keep_missing`, NA and
/// NaN are missing cells instead (NaN in the values, counted in Dataset::missing).
Dataset matrix_dataset(const Rcpp::NumericMatrix& x, const std::vector<std::string>& names, const std::string& source,
                       bool keep_missing = false);

}  // namespace cudag::rpkg
