// SPDX-License-Identifier: Apache-2.0
#include "io/hdf5_plan.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_mpio.hpp"

namespace cudag::io {

namespace {

/// Why this build cannot write collectively at all ("" when it can).
std::string build_limit() {
    if (!h5::parallel_compiled()) return "serial HDF5";
    if (!CUDAG_HAVE_MPI) return "built without MPI";
    return "";
}

}  // namespace

std::string Hdf5IoPlan::describe() const {
    if (collective) return "collective (MPI-IO, " + std::to_string(ranks) + " ranks)";
    return "gathered on rank 0 (" + why + ")";
}

Hdf5IoPlan plan_hdf5_io(int ranks) {
    Hdf5IoPlan plan;
    plan.ranks = ranks;
    const char* env = std::getenv("CUDAG_HDF5_IO");
    const std::string forced = env ? env : "";
    if (!forced.empty() && forced != "gathered" && forced != "collective")
        throw InputError("CUDAG_HDF5_IO must be 'gathered' or 'collective', got '" + forced + "'");
    plan.why = build_limit();
    if (plan.why.empty() && ranks == 1) plan.why = "one rank";
    if (plan.why.empty() && forced == "gathered") plan.why = "CUDAG_HDF5_IO=gathered";
    plan.collective = plan.why.empty();
    return plan;
}

std::string hdf5_io_summary() {
    const std::string limit = build_limit();
    if (limit.empty()) return "collective (MPI-IO) under mpirun with 2 or more ranks; gathered on rank 0 with one";
    return "gathered on rank 0 (" + limit + ": rank 0 reads, broadcasts and writes)";
}

}  // namespace cudag::io
