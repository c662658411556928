// SPDX-License-Identifier: Apache-2.0
#include "run/context.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "mpi/mpi_communicator.hpp"

namespace cudag::run {

RankPlace place_rank(BackendContext& backend, bool gpu_candidate, const mpi::Environment& env) {
    RankPlace place;
    const int gpus = place.gpus = env.mpi() ? visible_gpus() : -1;
    const bool gpu = place.gpu = gpu_candidate && (gpus > 0 || (gpus < 0 && cuda_compiled()));
    mpi::RankInfo& me = place.me;
    me.local_rank = env.local_rank();
    if (env.mpi()) {
        if (gpus > 0) backend.device = mpi::bind_device(env.local_rank(), gpus);
        if (backend.threads == 0) backend.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));
    }
    me.threads = resolve_threads(backend.threads);
    if (gpu && env.mpi()) {
        backend.device_info = gpu_device(backend.device);  // this rank's GPU only: no context on the others
        me.device = backend.device;
        me.device_name = backend.device_info ? backend.device_info->name : "?";
        me.memory_gib = backend.device_info ? backend.device_info->total_bytes / 1073741824.0 : 0.0;
    } else {
        me.device_name = "cpu";
        me.memory_gib = mpi::host_memory_gib();
    }
    return place;
}

std::unique_ptr<mpi::Communicator> choose_communicator(const std::string& comm, double timeout,
                                                       std::unique_ptr<mpi::Communicator> world,
                                                       const mpi::Environment& env, const RankPlace& place, int device,
                                                       bool nccl_by_default) {
    const int gpus = place.gpus;
    const bool gpu = place.gpu;
    const bool own_gpu = world->size() > 1 && mpi::gpu_per_rank(*world, env, gpus);
    // The same checks on every rank: agree, so that one line is printed.
    mpi::run_agreed(*world, [&] {
        if (comm != "auto" && comm != "mpi" && comm != "nccl")
            throw InputError("unknown --comm '" + comm + "' (available: auto, mpi, nccl)");
        if (comm == "nccl" && !gpu) throw InputError("--comm nccl needs the CUDA backend and a visible GPU");
        if (comm == "nccl" && !mpi::nccl_compiled()) throw NotCompiled("NCCL");
        if (comm == "nccl" && world->size() > 1 && !own_gpu)
            throw InputError("--comm nccl needs one GPU per rank (" + std::to_string(env.local_size()) +
                             " ranks on this node share " + std::to_string(gpus) + " GPUs)");
    });
    const bool nccl = comm == "nccl" || (comm == "auto" && gpu && nccl_by_default && own_gpu && mpi::nccl_compiled());
    if (!nccl) return world;
    return mpi::strict_if_asked(mpi::make_nccl_communicator(std::move(world), device, timeout));
}

void report_startup(mpi::Communicator& comm, const mpi::Environment& env, const mpi::RankInfo& me, bool quiet) {
    if (!env.mpi()) return;
    const std::string table = mpi::startup_report(comm, me);
    if (comm.rank() == 0 && !quiet) std::cerr << table << std::flush;
}

pc::Progress::Mode progress_mode(bool quiet, bool verbose, bool root) {
    if (quiet || !root) return pc::Progress::Mode::Quiet;
    return verbose ? pc::Progress::Mode::Always : pc::Progress::Mode::Auto;
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.3f s", s);
    return buf;
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

}  // namespace cudag::run
