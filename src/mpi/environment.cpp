// SPDX-License-Identifier: Apache-2.0
#include "mpi/environment.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "cudag/config.hpp"
#include "mpi/mpi_communicator.hpp"

#if CUDAG_HAVE_MPI
#include <mpi.h>
#endif

namespace cudag::mpi {

bool launched_by_mpi() {
    if (const char* force = std::getenv("CUDAG_MPI"); force && *force)
        return std::strcmp(force, "0") != 0;
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                            "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
        if (std::getenv(var)) return true;
    return false;
}

std::string host_name() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

double host_memory_gib() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return 0.0;
    return static_cast<double>(pages) * static_cast<double>(page) / (1024.0 * 1024.0 * 1024.0);
}

Environment::Environment(int& argc, char**& argv) {
    // srun without an MPI plugin starts independent copies that would each do the whole run.
    const char* tasks = std::getenv("SLURM_NTASKS");
    if (!launched_by_mpi() && tasks && std::atoi(tasks) > 1 && std::getenv("SLURM_PROCID"))
        std::fprintf(stderr,
                     "cudag: warning: SLURM started %s tasks but no MPI launcher environment was "
                     "found, so each runs alone; use srun --mpi=pmix (or pmi2)\n",
                     tasks);
#if CUDAG_HAVE_MPI
    if (!launched_by_mpi()) return;
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
#else
    (void)argc;
    (void)argv;
#endif
}

Environment::~Environment() {
#if CUDAG_HAVE_MPI
    int finalized = 0;
    if (mpi_ && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
#endif
}

std::unique_ptr<Communicator> Environment::world() const {
    if (mpi_) return make_mpi_world_communicator();
    return std::make_unique<SerialCommunicator>();
}

void Environment::abort(int code) const {
    std::fflush(stdout);
    std::fflush(stderr);
#if CUDAG_HAVE_MPI
    if (mpi_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::_Exit(code);
}

bool gpu_per_rank(Communicator& world, const Environment& env, int visible_devices) {
    const std::int32_t ok = visible_devices > 0 && env.local_size() <= visible_devices ? 1 : 0;
    return world.allreduce(ok, ReduceOp::Min) == 1;
}

int bind_device(int local_rank, int visible_devices) {
    return visible_devices > 0 ? local_rank % visible_devices : -1;
}

std::string startup_report(Communicator& comm, const RankInfo& mine) {
    // One tab-separated line per rank, gathered as a blob.
    std::ostringstream line;
    line << comm.rank() << '\t' << host_name() << '\t' << mine.local_rank << '\t'
         << (mine.device < 0 ? std::string("cpu")
                             : "GPU " + std::to_string(mine.device) + " " + mine.device_name)
         << '\t' << std::fixed << std::setprecision(1) << mine.memory_gib << " GiB" << '\t'
         << mine.threads;
    const std::string s = line.str();
    std::vector<std::byte> blob(s.size());
    std::memcpy(blob.data(), s.data(), s.size());
    const auto all = comm.gatherv(blob, 0);
    if (comm.rank() != 0) return "";

    std::vector<std::vector<std::string>> rows = {
        {"rank", "host", "local", "device", "memory", "threads"}};
    for (const auto& b : all) {
        std::string text(reinterpret_cast<const char*>(b.data()), b.size());
        std::vector<std::string> cells;
        std::stringstream ss(text);
        std::string cell;
        while (std::getline(ss, cell, '\t')) cells.push_back(cell);
        rows.push_back(cells);
    }
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], r[c].size());
    std::ostringstream os;
    for (const auto& r : rows) {
        os << "cudag:";
        for (std::size_t c = 0; c < r.size() && c < width.size(); ++c)
            os << "  " << std::left << std::setw(static_cast<int>(width[c])) << r[c];
        os << '\n';
    }
    return os.str();
}

}  // namespace cudag::mpi
