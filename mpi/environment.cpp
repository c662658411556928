// SPDX-License-Identifier: Apache-2.0
// The parts of the environment that need no MPI; Environment's MPI steps are in
// environment_mpi.cpp (or mpi_none.cpp in a build without MPI).
#include "mpi/environment.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "mpi/mpi_communicator.hpp"

namespace cudag::mpi {

bool launched_by_mpi() {
    if (const char* force = std::getenv("CUDAG_MPI"); force && *force) return std::strcmp(force, "0") != 0;
    for (const char* var :
         {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
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
    if (!launched_by_mpi()) return;
    const auto t0 = std::chrono::steady_clock::now();
    init_mpi(argc, argv);
    init_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Environment::~Environment() {
    if (mpi_) finalize_mpi();
}

std::unique_ptr<Communicator> strict_if_asked(std::unique_ptr<Communicator> inner) {
    const char* on = std::getenv("CUDAG_STRICT_COMM");
    if (on == nullptr || *on == '\0' || std::strcmp(on, "0") == 0) return inner;
    double timeout_s = 300.0;
    if (const char* t = std::getenv("CUDAG_STRICT_COMM_TIMEOUT"); t != nullptr && *t != '\0') {
        char* end = nullptr;
        timeout_s = std::strtod(t, &end);
        if (end == t || *end != '\0' || !(timeout_s > 0.0))
            throw InputError("CUDAG_STRICT_COMM_TIMEOUT must be a number of seconds > 0, got '" + std::string(t) + "'");
    }
    return make_strict_communicator(std::move(inner), timeout_s);
}

std::unique_ptr<Communicator> Environment::world() const {
    if (mpi_) return strict_if_asked(make_mpi_world_communicator());
    return std::make_unique<SerialCommunicator>();
}

void Environment::abort(int code) const {
    std::fflush(stdout);
    std::fflush(stderr);
    if (mpi_) abort_mpi(code);
    std::_Exit(code);
}

bool gpu_per_rank(Communicator& world, const Environment& env, int visible_devices) {
    const std::int32_t ok = visible_devices > 0 && env.local_size() <= visible_devices ? 1 : 0;
    return world.allreduce(ok, ReduceOp::Min) == 1;
}

int bind_device(int local_rank, int visible_devices) { return visible_devices > 0 ? local_rank % visible_devices : -1; }

std::string startup_report(Communicator& comm, const RankInfo& mine) {
    // One tab-separated line per rank, gathered as a blob.
    std::ostringstream line;
    line << comm.rank() << '\t' << host_name() << '\t' << mine.local_rank << '\t'
         << (mine.device < 0 ? std::string("cpu") : "GPU " + std::to_string(mine.device) + " " + mine.device_name)
         << '\t' << std::fixed << std::setprecision(1) << mine.memory_gib << " GiB" << '\t' << mine.threads;
    const std::string s = line.str();
    std::vector<std::byte> blob(s.size());
    std::memcpy(blob.data(), s.data(), s.size());
    const auto all = comm.gatherv(blob, 0);
    if (comm.rank() != 0) return "";

    std::vector<std::vector<std::string>> rows = {{"rank", "host", "local", "device", "memory", "threads"}};
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
        for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
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
