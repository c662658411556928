// SPDX-License-Identifier: Apache-2.0
// The phase a run is in, for the one-line error of an allocation that fails although the
// run's memory plan admitted it. Header-only, so that mpi/ (below cudag_core) can name it.
#pragma once

#include <mutex>
#include <string>

namespace cudag {

namespace detail {

struct MemoryPhase {
    std::mutex mutex;
    std::string phase;  ///< "cudag mcmc: the local-score table"
    std::string plan;   ///< "the run's memory plan: about 1.2 GiB, with 3.0 GiB available when it began"
};

inline MemoryPhase& memory_phase() {
    static MemoryPhase* r = new MemoryPhase;  // never destroyed: read by a late error
    return *r;
}

}  // namespace detail

/// The phase the run is in now (empty: none). Thread-safe.
inline void set_memory_phase(const std::string& phase) {
    detail::MemoryPhase& r = detail::memory_phase();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.phase = phase;
}

/// What the run's memory plan said (core/memory.hpp's set_memory_plan writes it). Thread-safe.
inline void set_memory_plan_note(const std::string& note) {
    detail::MemoryPhase& r = detail::memory_phase();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.plan = note;
}

/// The line a std::bad_alloc becomes: "out of host memory in <phase> (<the plan's note>)".
inline std::string out_of_memory_message() {
    detail::MemoryPhase& r = detail::memory_phase();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::string s = "out of host memory";
    if (!r.phase.empty()) s += " in " + r.phase;
    if (!r.plan.empty()) s += " (" + r.plan + ")";
    return s + "; free memory, or run on fewer variables";
}

}  // namespace cudag
