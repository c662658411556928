// SPDX-License-Identifier: Apache-2.0
// MPI lifetime, node-local ranks, rank -> GPU binding and the startup report.
#pragma once

#include <memory>
#include <string>

#include "mpi/communicator.hpp"

namespace cudag::mpi {

/// Whether this process was started by an MPI launcher (mpiexec/mpirun of Open MPI,
/// MPICH, Intel MPI, MVAPICH, or srun with PMI/PMIx), judged from the launcher's
/// environment variables. CUDAG_MPI=0 / CUDAG_MPI=1 overrides the guess.
bool launched_by_mpi();

/// This host's name ("unknown" when it cannot be read).
std::string host_name();

/// MPI for the lifetime of the process (ginkgo `environment`): MPI_Init_thread
/// (funneled) when the process was launched by MPI and MPI is compiled in, MPI_Finalize
/// on destruction. Otherwise a single-process environment. Create one, in main().
class Environment {
public:
    Environment(int& argc, char**& argv);
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;

    /// Whether MPI was initialised here.
    bool mpi() const { return mpi_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    /// Rank among the processes of this node (MPI_Comm_split_type SHARED) and their number.
    int local_rank() const { return local_rank_; }
    /// Seconds MPI's start-up took (0 without MPI).
    double init_seconds() const { return init_seconds_; }
    int local_size() const { return local_size_; }

    /// A communicator over every rank: an MpiCommunicator on a duplicate of
    /// MPI_COMM_WORLD when mpi() (checked at every call when CUDAG_STRICT_COMM asks for
    /// it: strict_if_asked), else a SerialCommunicator.
    std::unique_ptr<Communicator> world() const;

    /// End every rank now (MPI_Abort on MPI_COMM_WORLD; std::_Exit without MPI), for
    /// errors raised where no communicator is at hand (e.g. while building one).
    [[noreturn]] void abort(int code) const;

private:
    // The MPI steps, from environment_mpi.cpp, or no-ops from mpi_none.cpp in a build
    // without MPI (CMake picks the file; there is no #if). init_mpi sets mpi_, the
    // ranks and the node-local ranks; the others are called only when mpi_.
    void init_mpi(int& argc, char**& argv);
    void finalize_mpi();
    void abort_mpi(int code) const;

    bool mpi_ = false;
    int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
    double init_seconds_ = 0.0;
};

/// The GPU a rank drives: its node-local rank modulo the visible devices, or -1 when
/// there are none.
int bind_device(int local_rank, int visible_devices);

/// Collective over `world`: whether every rank has a GPU of its own (on every node, no
/// more ranks than visible devices). NCCL refuses two ranks on one device, so ranks
/// that share GPUs exchange through MPI instead.
bool gpu_per_rank(Communicator& world, const Environment& env, int visible_devices);

/// What one rank runs on, for the startup report.
struct RankInfo {
    int local_rank = 0;
    int device = -1;          ///< -1: CPU
    std::string device_name;  ///< "cpu" or the GPU's name
    double memory_gib = 0.0;  ///< GPU memory, or the host's when on the CPU
    int threads = 1;
};

/// Collective: gather every rank's RankInfo and, on rank 0, return one table (a header
/// and a line per rank: rank, host, local rank, device, memory, threads); "" elsewhere.
std::string startup_report(Communicator& comm, const RankInfo& mine);

/// Physical memory of this host in GiB (0 when unknown).
double host_memory_gib();

}  // namespace cudag::mpi
