// SPDX-License-Identifier: Apache-2.0
// cuda::load_kernels (engines.hpp): the kernels of a run's skeleton engine loaded on the
// warm-up thread (run/context.hpp's GpuWarmUp) while the data are read.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

#include "compact.cuh"
#include "correlation.cuh"
#include "device_handles.hpp"
#include "engines.hpp"
#include "fisher_resident.cuh"
#include "pc_discrete.cuh"
#include "pc_gaussian.cuh"

namespace cudag::cuda {

namespace {

/// What load_kernels loaded on a device in this process: a context keeps its kernels for its
/// life, so a later run (a Python or R session's next call) loads nothing again.
struct Loaded {
    bool compact = false;
    bool fisher = false;  ///< correlation and level 0
    int levels = 0;       ///< Fisher-z levels 1..levels loaded (INT_MAX: every level)
    bool deep = false;
    bool discrete = false;
};

std::mutex loaded_mutex;
std::map<int, Loaded>& loaded_on() {
    static std::map<int, Loaded> m;
    return m;
}

int levels_of(int max_level) { return max_level < 0 ? INT_MAX : max_level; }

/// Whether a run to `max_level` (-1: every level) can reach the deep scan
/// (Tunables::scan_deep_from >= 2).
bool reaches_deep(int max_level) { return max_level < 0 || max_level >= 2; }

bool covers(const Loaded& have, const GpuKernelPlan& plan) {
    if (!plan.any()) return true;
    if (!have.compact) return false;
    if (plan.discrete && !have.discrete) return false;
    if (plan.fisher) {
        if (!have.fisher || have.levels < levels_of(plan.max_level)) return false;
        if (reaches_deep(plan.max_level) && !have.deep) return false;
    }
    return true;
}

/// The record of `device`, dropped when its primary context is gone (reset): the caller
/// holds loaded_mutex.
Loaded& record_of(int device) {
    Loaded& have = loaded_on()[device];
    if (have.compact && !primary_context_active(device)) have = Loaded{};
    return have;
}

}  // namespace

bool kernels_loaded(int device, const GpuKernelPlan& plan) noexcept {
    const std::lock_guard<std::mutex> lock(loaded_mutex);
    return covers(record_of(device), plan);
}

void forget_kernels(int device) noexcept {
    const std::lock_guard<std::mutex> lock(loaded_mutex);
    loaded_on().erase(device);
}

int load_kernels(int device, const GpuKernelPlan& plan) noexcept {
    if (!plan.any()) return 0;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count ||
        cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();  // the engine reports the error when it is built
        return 0;
    }
    // One loader at a time (two runs' warm-ups in one process load each kernel once).
    const std::lock_guard<std::mutex> lock(loaded_mutex);
    Loaded& have = record_of(device);
    const int max_level = plan.max_level;
    int n = 0;
    if (!have.compact) n += preload_compact_kernels();
    if (plan.fisher) {
        if (!have.fisher) n += preload_correlation_kernels() + preload_level0_kernels();
        if (max_level != 0 && have.levels < levels_of(max_level))
            n += preload_level_kernels(max_level) + preload_scan_kernels(max_level) +
                 preload_resident_kernels(max_level);
        if (reaches_deep(max_level) && !have.deep) n += preload_deep_kernels();
    }
    if (plan.discrete && !have.discrete) n += preload_discrete_level_kernels();
    cudaGetLastError();  // a kernel that would not load reports at its launch
    have.compact = true;
    if (plan.fisher) {
        have.fisher = true;
        have.levels = std::max(have.levels, levels_of(max_level));
        have.deep = have.deep || reaches_deep(max_level);
    }
    have.discrete = have.discrete || plan.discrete;
    return n;
}

}  // namespace cudag::cuda
