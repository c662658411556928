// SPDX-License-Identifier: Apache-2.0
// Backends: the kind a run asks for, the GPUs this build and machine can use, and the
// backend context an engine factory is given. Knows no learner: which engine runs which
// test is the registry's (skeleton/engines.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/tunables.hpp"

namespace cudag {

enum class BackendKind { Auto, Cpu, Cuda };

/// "auto", "cpu" or "cuda"; anything else is an InputError.
BackendKind parse_backend(const std::string& name);
std::string to_string(BackendKind k);

/// One visible CUDA device as the runtime describes it.
struct DeviceInfo {
    int id = 0;
    std::string name;
    std::int64_t total_bytes = 0;    ///< device memory (cudaMemGetInfo's total)
    std::int64_t free_bytes = 0;     ///< free device memory when asked
    int cc_major = 0, cc_minor = 0;  ///< compute capability
};

/// What an engine factory is given besides the data and the test: built once by the
/// command's run context (cli/pc.cpp), passed as `const BackendContext&`.
struct BackendContext {
    BackendKind kind = BackendKind::Auto;
    int device = 0;   ///< CUDA device id (this rank's, under MPI)
    int threads = 0;  ///< host threads; 0: all hardware threads (the run resolves it)
    /// Device memory budget of the largest structure an engine keeps on the GPU (bytes;
    /// 0: what is free) and the kernel knobs (core/tunables.hpp), from hidden --tune.
    Tunables tunables;
    /// `device` as the runtime describes it, when the context was built for a GPU run
    /// that needed it (the MPI start-up table); unset otherwise.
    std::optional<DeviceInfo> device_info;
    /// The engine puts its GPU work on a stream of its own instead of the device's shared
    /// stream, so that engines driven at once from several host threads (a bootstrap's
    /// replicates on one GPU) overlap on the device. The CUDA Fisher-z engine honours it.
    bool own_stream = false;
    /// The GPUs this process runs a bootstrap's replicates on, each replicate whole on one
    /// of them (run::replicate_gpus: every visible GPU for one process, under MPI those of
    /// the node the rank's node-local rank selects); empty: `device` alone.
    std::vector<int> replicate_devices;
};

/// Number of CUDA devices this build can use (0 in a CPU-only build or without a GPU).
int visible_gpus();
/// Every visible CUDA device (empty in a CPU-only build, without a GPU, or when a device's
/// properties cannot be read). Never throws.
std::vector<DeviceInfo> gpu_devices();
/// Device `device` alone (nothing when it cannot be read, or in a CPU-only build): unlike
/// gpu_devices(), creates no context on the other devices, so that each of several ranks
/// sharing a host touches only the GPU it is bound to. Never throws.
std::optional<DeviceInfo> gpu_device(int device);
/// One line per visible GPU (id, name, memory), or a sentence saying why there are none.
std::string gpu_report();
/// The GPU kernels a run will launch, which its warm-up loads: CUDA (12.2 and later) loads a
/// kernel lazily, at its first launch, which then waits for it (a skeleton's level 1: some
/// ms); loaded on the warm-up thread, they are ready when the levels start.
struct GpuKernelPlan {
    /// The Fisher-z skeleton engine's: correlation, level 0, levels 1.. (set-, edge-parallel,
    /// scans, deep levels), compaction (with CUB's), results.
    bool fisher = false;
    bool discrete = false;  ///< the χ² / G² skeleton engine's: its level kernel and the compaction
    int max_level = -1;     ///< the deepest level that will run (-1: no limit): deeper levels' kernels are left
    bool any() const { return fisher || discrete; }
};

/// Loads the kernels of `plan` on `device` (its context made first) on the calling thread
/// and returns how many: each kernel's attributes read (cudaFuncGetAttributes, which loads
/// it), and CUB's routines (scans, selection) run once on a few bytes, counted one a
/// routine. Kernels this process already loaded on the device (an earlier run's warm-up in
/// the same context) are not loaded or counted again. 0 without CUDA or without the device;
/// errors are left for the engine to report; 0 for a plan of none. Adds the count to
/// gpu_kernels_loaded(). Never throws.
int load_gpu_kernels(int device, const GpuKernelPlan& plan) noexcept;
/// Whether every kernel of `plan` (a plan of some) is loaded on `device` in its current
/// context by an earlier load_gpu_kernels of this process: a warm-up would do nothing (a
/// Python or R session's later call). false without CUDA. Never throws.
bool gpu_kernels_ready(int device, const GpuKernelPlan& plan) noexcept;
/// The kernels load_gpu_kernels loaded in this process so far (tests, verbose notes).
long long gpu_kernels_loaded() noexcept;

/// Start creating the CUDA context of `device` on a background thread when `kind` may
/// use the GPU (a no-op otherwise), then loading the kernels of `kernels`; the returned
/// thread must be joined before the engine is built. Overlaps the context's creation and
/// the kernels' loading with reading the input. `loaded` (when given): set to the number of
/// kernels loaded before the thread ends.
std::thread warm_up_gpu(BackendKind kind, int device, GpuKernelPlan kernels = {}, int* loaded = nullptr);
/// Make `device`'s CUDA context now, on the calling thread (nothing without CUDA or when the
/// device is not there). Never throws.
void make_gpu_context(int device) noexcept;
/// Destroy `device`'s context made for nothing (a rank bound to another GPU after all).
/// Never throws.
void drop_gpu_context(int device) noexcept;
/// Whether this build has the CUDA engines.
bool cuda_compiled();
/// Hand back to the driver the device memory kept for reuse after earlier searches of this
/// process (see kernels/device_memory.hpp); a no-op without CUDA.
void release_gpu_memory();

/// Whether `kind` runs on a GPU: Cuda always (NotCompiled in a CPU-only build, an
/// InputError when no device is visible), Auto when a GPU is visible, Cpu never.
bool picks_gpu(BackendKind kind);

}  // namespace cudag
