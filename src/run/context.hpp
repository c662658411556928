// SPDX-License-Identifier: Apache-2.0
// A run's place on its process: the rank's GPU and threads, the communicator, the MPI
// start-up table and the CUDA warm-up; the same for every command and the Python module.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/backend.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "skeleton/progress.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::run {

/// A rank's place: its GPU (node-local rank mod the visible devices) and threads, and
/// what the start-up table prints of it.
struct RankPlace {
    int gpus = -1;     ///< visible GPUs under MPI (-1: one process, not asked)
    bool gpu = false;  ///< a GPU engine may run
    mpi::RankInfo me;
    double gpu_seconds = 0.0;  ///< binding: the device count and the GPU's context (or waiting for it)
};

/// Before MPI starts (cli::run): on a rank that a launcher started for `cudag pc` or
/// `cudag mcmc` (not `--backend cpu`), the CUDA context of the GPU the rank will be bound to
/// (its node-local rank from the launcher's environment, modulo the visible GPUs, as
/// mpi::bind_device binds it) is made on a thread of its own, so that it overlaps MPI's
/// start-up. CUDAG_EARLY_GPU=0 turns it off. Ended by end_early_gpu_context (place_rank and
/// the MCMC run's binding call it), or at the end of the scope.
class EarlyGpuContext {
public:
    EarlyGpuContext(int argc, char** argv);
    ~EarlyGpuContext();
    EarlyGpuContext(const EarlyGpuContext&) = delete;
    EarlyGpuContext& operator=(const EarlyGpuContext&) = delete;
};

/// Waits for the early context's thread (nothing when none started) and drops its context
/// when the rank is not bound to that GPU after all (`bound`: the GPU id, -1 for none).
void end_early_gpu_context(int bound);

/// Binds this rank to its GPU and sets its threads (in `backend`). `gpu_candidate`: the
/// engine registry may pick a GPU engine for the job (skeleton::gpu_candidate). Under MPI the
/// binding needs the device count now; one process does not ask: CUDA's start-up (driver
/// and context, a few hundred ms) then runs on the warm-up thread while the data are read.
RankPlace place_rank(BackendContext& backend, bool gpu_candidate, const mpi::Environment& env);

/// The communicator of a run: `world` (MPI or serial), or NCCL over it for GPU runs
/// (`comm` "auto" picks it when `nccl_by_default`: the engine keeps its level results on
/// the GPU). NCCL needs a GPU per rank; ranks sharing a GPU stay on MPI. `comm` is the
/// --comm choice (auto, mpi, nccl), refused on every rank alike when unknown.
/// --comm's choices: auto (NCCL for GPU runs when built with it), mpi or nccl.
enum class CommChoice { Auto, Mpi, Nccl };
/// --comm's value; anything else is an InputError naming --comm and the choices.
CommChoice parse_comm(const std::string& name);

std::unique_ptr<mpi::Communicator> choose_communicator(CommChoice comm, double timeout,
                                                       std::unique_ptr<mpi::Communicator> world,
                                                       const mpi::Environment& env, const RankPlace& place, int device,
                                                       bool nccl_by_default);

/// Under MPI: the start-up table (rank, host, GPU, memory) from rank 0 on stderr unless
/// `quiet`. Collective.
void report_startup(mpi::Communicator& comm, const mpi::Environment& env, const mpi::RankInfo& me, bool quiet);

/// The progress mode of a run: quiet off rank 0 or when asked, every line when verbose,
/// else on a terminal.
skeleton::Progress::Mode progress_mode(bool quiet, bool verbose, bool root);

/// The GPUs a rank runs a bootstrap's replicates on, of `visible` ones: those whose id is
/// congruent to its node-local rank modulo the ranks on its node, so that the ranks of a
/// node share its GPUs without overlap (every GPU for one process, local_size 1; GPUs 1
/// and 3 of 4 for local rank 1 of 2); `device` alone (the GPU the rank is bound to) when
/// the node has no more GPUs than ranks.
std::vector<int> replicate_gpus(int visible, int local_rank, int local_size, int device);

/// The bootstrap's note of where its replicates run: " on R rank(s)", then, where a rank
/// drives several GPUs, ", GPUs 0, 1, ..." (one process) or ", rank 0 on GPUs ...".
std::string replicates_placement(int ranks, const std::vector<int>& devices);

/// The CUDA context of `device` made on a thread of its own (nothing for the CPU backend)
/// while the caller reads the data, then the kernels of `kernels` loaded on it (CUDA loads a
/// kernel at its first launch otherwise: core/backend.hpp's GpuKernelPlan; environment
/// CUDAG_WARM_UP_KERNELS=0 leaves them to load lazily); with `local_size` > 0 (a bootstrap),
/// also the contexts of the rank's other replicate GPUs (replicate_gpus of the visible ones
/// for `local_rank` of `local_size`), each on a thread of its own once `device`'s is made.
/// Nothing (no thread) when an earlier warm-up of the process loaded every kernel of `kernels`
/// on `device` in its current context (gpu_kernels_ready: a Python or R session's later call).
/// join() waits for `device`'s context and kernels only: the driver makes a process's
/// contexts one after the other (about 0.3 s each), so the replicates start on the first GPU
/// while the others' come; the destructor waits for all.
class GpuWarmUp {
public:
    GpuWarmUp(BackendKind kind, int device, int local_rank = 0, int local_size = 0, GpuKernelPlan kernels = {});
    GpuWarmUp(const GpuWarmUp&) = delete;
    GpuWarmUp& operator=(const GpuWarmUp&) = delete;
    ~GpuWarmUp();
    void join() {
        if (thread_.joinable()) thread_.join();
    }
    /// The kernels loaded (after join()): 0 when none were asked for or CUDA is absent.
    int kernels_loaded() const { return kernels_loaded_; }
    /// The seconds from the start to the kernels loaded (after join(); 0 for none).
    double seconds() const { return seconds_; }
    /// The seconds from the start to the context made (after join()).
    double context_seconds() const { return context_seconds_; }

private:
    std::thread thread_;
    std::vector<std::thread> others_;  ///< the other replicate GPUs' (started by thread_)
    int kernels_loaded_ = 0;           ///< written by thread_
    double seconds_ = 0.0;             ///< written by thread_
    double context_seconds_ = 0.0;     ///< written by thread_
};

/// The kernels a PC or FCI run's warm-up loads: its test's GPU skeleton engine (Fisher-z,
/// χ² / G²; none for the others; both where the data will choose, `test` unset) up to
/// `max_level` (-1: every level); none when the environment sets CUDAG_WARM_UP_KERNELS=0.
GpuKernelPlan skeleton_kernels(std::optional<skeleton::TestKind> test, int max_level);

/// " 1.234 s", for the verbose phase timings.
std::string seconds_text(double s);

/// The current time as ISO 8601 UTC ("2024-01-02T03:04:05Z"), for provenance.
std::string utc_now();

}  // namespace cudag::run
