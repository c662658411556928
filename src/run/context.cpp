// SPDX-License-Identifier: Apache-2.0
#include "run/context.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <mutex>
#include <system_error>

#include "core/choice.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "mpi/mpi_communicator.hpp"

namespace cudag::run {
namespace {

/// The early context: its thread and the GPU it made a context on (-1: none).
struct Early {
    std::mutex mutex;
    std::thread thread;
    std::atomic<int> device{-1};
    // At exit without EarlyGpuContext's end (MPI_Abort's exit): not std::terminate.
    ~Early() {
        if (thread.joinable()) thread.detach();
    }
};

Early& early() {
    static Early e;
    return e;
}

/// The node-local rank a launcher's environment gives (OpenMPI, MPICH/Hydra, MVAPICH2,
/// SLURM's srun), or -1.
int launcher_local_rank() {
    for (const char* var :
         {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
        const char* v = std::getenv(var);
        if (v == nullptr || *v == '\0') continue;
        char* end = nullptr;
        const long r = std::strtol(v, &end, 10);
        if (*end == '\0' && r >= 0 && r < 1 << 20) return static_cast<int>(r);
    }
    return -1;
}

/// Whether the command line is one that may bind a GPU: `cudag pc` or `cudag mcmc` without
/// `--backend cpu`.
bool may_use_gpu(int argc, char** argv) {
    if (argc < 2 || (std::strcmp(argv[1], "pc") != 0 && std::strcmp(argv[1], "mcmc") != 0)) return false;
    for (int k = 2; k < argc; ++k) {
        if (std::strcmp(argv[k], "--backend=cpu") == 0) return false;
        if (std::strcmp(argv[k], "--backend") == 0 && k + 1 < argc && std::strcmp(argv[k + 1], "cpu") == 0)
            return false;
    }
    return true;
}

}  // namespace

EarlyGpuContext::EarlyGpuContext(int argc, char** argv) {
    if (!cuda_compiled() || !mpi::launched_by_mpi() || !may_use_gpu(argc, argv)) return;
    if (const char* off = std::getenv("CUDAG_EARLY_GPU"); off != nullptr && std::strcmp(off, "0") == 0) return;
    const int local = launcher_local_rank();
    if (local < 0) return;
    Early& e = early();
    const std::lock_guard<std::mutex> lock(e.mutex);
    try {
        e.thread = std::thread([local, &e] {
            const int gpus = visible_gpus();
            if (gpus <= 0) return;
            const int device = mpi::bind_device(local, gpus);
            make_gpu_context(device);
            e.device = device;
        });
    } catch (const std::system_error&) {
        // No thread: the context is made when the rank is bound, as without this.
    }
}

EarlyGpuContext::~EarlyGpuContext() {
    Early& e = early();
    const std::lock_guard<std::mutex> lock(e.mutex);
    if (e.thread.joinable()) e.thread.join();
}

void end_early_gpu_context(int bound) {
    Early& e = early();
    const std::lock_guard<std::mutex> lock(e.mutex);
    if (e.thread.joinable()) e.thread.join();
    const int made = e.device.exchange(-1);
    if (made >= 0 && made != bound) drop_gpu_context(made);
}

std::string replicates_placement(int ranks, const std::vector<int>& devices) {
    std::string out = " on " + std::to_string(ranks) + " rank" + (ranks == 1 ? "" : "s");
    if (devices.size() < 2) return out;
    out += ranks == 1 ? ", GPUs " : ", rank 0 on GPUs ";
    for (std::size_t k = 0; k < devices.size(); ++k) out += (k == 0 ? "" : ", ") + std::to_string(devices[k]);
    return out;
}

std::vector<int> replicate_gpus(int visible, int local_rank, int local_size, int device) {
    if (local_size < 1 || visible <= local_size || local_rank < 0 || local_rank >= local_size) return {device};
    std::vector<int> out;
    for (int d = local_rank; d < visible; d += local_size) out.push_back(d);
    return out;
}

GpuWarmUp::GpuWarmUp(BackendKind kind, int device, int local_rank, int local_size, GpuKernelPlan kernels) {
    if (kind == BackendKind::Cpu || !cuda_compiled()) return;
    // A later run of the process (Python, R) on a GPU whose context and kernels an earlier
    // run's warm-up made: nothing to do, no thread.
    if (local_size <= 0 && gpu_kernels_ready(device, kernels)) return;
    if (local_size <= 0) {
        const auto t0 = std::chrono::steady_clock::now();
        thread_ = std::thread([this, device, kernels, t0] {
            make_gpu_context(device);
            context_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            kernels_loaded_ = load_gpu_kernels(device, kernels);
            seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        });
        return;
    }
    // The bound GPU's context first (join() waits for it alone), then the others', then the
    // bound GPU's kernels.
    thread_ = std::thread([this, device, local_rank, local_size, kernels] {
        const auto t0 = std::chrono::steady_clock::now();
        make_gpu_context(device);
        context_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        try {
            for (int d : replicate_gpus(visible_gpus(), local_rank, local_size, device))
                if (d != device) others_.emplace_back([d] { make_gpu_context(d); });
        } catch (...) {
            // No thread to spare: the replicates make those contexts themselves.
        }
        kernels_loaded_ = load_gpu_kernels(device, kernels);
        seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
}

GpuKernelPlan skeleton_kernels(std::optional<skeleton::TestKind> test, int max_level) {
    GpuKernelPlan plan;
    plan.max_level = max_level;
    const char* env = std::getenv("CUDAG_WARM_UP_KERNELS");
    if (env != nullptr && std::strcmp(env, "0") == 0) return plan;
    using skeleton::TestKind;
    plan.fisher = !test || *test == TestKind::FisherZ;  // unset: Fisher-z, or χ² on discrete data
    plan.discrete = !test || *test == TestKind::ChiSquare || *test == TestKind::GSquare;
    return plan;
}

GpuWarmUp::~GpuWarmUp() {
    join();  // thread_ alone adds to others_: read only after it ended
    for (std::thread& t : others_)
        if (t.joinable()) t.join();
}

RankPlace place_rank(BackendContext& backend, bool gpu_candidate, const mpi::Environment& env) {
    RankPlace place;
    const auto t0 = std::chrono::steady_clock::now();
    const int gpus = place.gpus = env.mpi() ? visible_gpus() : -1;
    const bool gpu = place.gpu = gpu_candidate && (gpus > 0 || (gpus < 0 && cuda_compiled()));
    mpi::RankInfo& me = place.me;
    me.local_rank = env.local_rank();
    if (env.mpi()) {
        if (gpus > 0) backend.device = mpi::bind_device(env.local_rank(), gpus);
        if (backend.threads == 0) backend.threads = std::max(1, resolve_threads(0) / std::max(1, env.local_size()));
    }
    me.threads = resolve_threads(backend.threads);
    end_early_gpu_context(gpu && env.mpi() ? backend.device : -1);
    if (gpu && env.mpi()) {
        backend.device_info = gpu_device(backend.device);  // this rank's GPU only: no context on the others
        me.device = backend.device;
        me.device_name = backend.device_info ? backend.device_info->name : "?";
        me.memory_gib = backend.device_info ? backend.device_info->total_bytes / 1073741824.0 : 0.0;
    } else {
        me.device_name = "cpu";
        me.memory_gib = mpi::host_memory_gib();
    }
    place.gpu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return place;
}

CommChoice parse_comm(const std::string& name) {
    static constexpr Choice<CommChoice> kComms[] = {
        {"auto", CommChoice::Auto}, {"mpi", CommChoice::Mpi}, {"nccl", CommChoice::Nccl}};
    return parse_choice(kComms, "--comm", name);
}

std::unique_ptr<mpi::Communicator> choose_communicator(CommChoice comm, double timeout,
                                                       std::unique_ptr<mpi::Communicator> world,
                                                       const mpi::Environment& env, const RankPlace& place, int device,
                                                       bool nccl_by_default) {
    const int gpus = place.gpus;
    const bool gpu = place.gpu;
    const bool own_gpu = world->size() > 1 && mpi::gpu_per_rank(*world, env, gpus);
    // The same checks on every rank: agree, so that one line is printed.
    mpi::run_agreed(*world, [&] {
        if (comm == CommChoice::Nccl && !gpu) throw InputError("--comm nccl needs the CUDA backend and a visible GPU");
        if (comm == CommChoice::Nccl && !mpi::nccl_compiled()) throw NotCompiled("NCCL");
        if (comm == CommChoice::Nccl && world->size() > 1 && !own_gpu)
            throw InputError("--comm nccl needs one GPU per rank (" + std::to_string(env.local_size()) +
                             " ranks on this node share " + std::to_string(gpus) + " GPUs)");
    });
    const bool nccl = comm == CommChoice::Nccl ||
                      (comm == CommChoice::Auto && gpu && nccl_by_default && own_gpu && mpi::nccl_compiled());
    if (!nccl) return world;
    return mpi::strict_if_asked(mpi::make_nccl_communicator(std::move(world), device, timeout));
}

void report_startup(mpi::Communicator& comm, const mpi::Environment& env, const mpi::RankInfo& me, bool quiet) {
    if (!env.mpi()) return;
    const std::string table = mpi::startup_report(comm, me);
    if (comm.rank() == 0 && !quiet) std::cerr << table << std::flush;
}

skeleton::Progress::Mode progress_mode(bool quiet, bool verbose, bool root) {
    if (quiet || !root) return skeleton::Progress::Mode::Quiet;
    return verbose ? skeleton::Progress::Mode::Always : skeleton::Progress::Mode::Auto;
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
