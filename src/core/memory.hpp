// SPDX-License-Identifier: Apache-2.0
// Host memory: what is available, and a one-line refusal when a run will not fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_phase.hpp"

namespace cudag {

/// Bytes of host memory available to a new allocation now: the smallest of Linux's
/// MemAvailable (/proc/meminfo), each cgroup memory limit minus its usage (v2 or v1; the
/// process's group from /proc/self/cgroup and every group above it) and
/// RLIMIT_AS minus the address space this process has mapped already (/proc/self/statm);
/// the physical memory when none can be read.
std::int64_t available_host_bytes();

namespace detail {
/// The least room (limit - usage, bytes) of the memory cgroups that `proc_self_cgroup` (the
/// text of /proc/self/cgroup) names under `root` (/sys/fs/cgroup), each group and those
/// above it; -1 where none has a limit.
std::int64_t cgroup_room(const std::string& proc_self_cgroup, const std::string& root);
}  // namespace detail

/// "1.5 GiB", "820 MiB", "12 KiB" or "512 B".
std::string format_bytes(double bytes);

/// This process's peak resident memory so far (getrusage's ru_maxrss), in bytes.
std::int64_t peak_resident_bytes();

/// Start a new peak: peak_resident_bytes() then reports the peak since this call (Linux
/// /proc/self/clear_refs "5"). Returns the peak before the reset; where the reset is not
/// allowed, nothing changes.
std::int64_t restart_peak_resident();

/// Throw OutOfMemory in one line when `needed` bytes exceed available_host_bytes():
/// "<what> needs about <needed> of host memory (<detail>); this machine has <free>
/// available[; <hint>]". `detail` and `hint` may be empty.
void require_host_memory(double needed, const std::string& what, const std::string& detail, const std::string& hint);

/// One run's host memory at its peak, part by part, checked once before any work: the parts
/// held at the same time (the engine's correlation matrix, a bootstrap's replicates, the
/// score table, the chains), each with the option that makes it smaller.
class MemoryPlan {
public:
    /// What a run adds to the parts for what no part names (allocator slack, the engines'
    /// scratch, the result's records): kMarginFraction of the parts plus kMarginBytes. A CPU
    /// Fisher-z run under `ulimit -v` needs about this much above its parts (README, "Memory").
    static constexpr double kMarginFraction = 0.10;
    static constexpr double kMarginBytes = 32.0 * 1024.0 * 1024.0;

    struct Part {
        std::string what;  ///< "the CPU engine's 40000 x 40000 correlation matrix"
        double bytes = 0.0;
        std::string lower;  ///< what makes it smaller ("--chains"); empty: nothing but the data
    };

    /// Add a part (none when bytes <= 0).
    void add(std::string what, double bytes, std::string lower = {});
    const std::vector<Part>& parts() const { return parts_; }
    /// The parts' sum.
    double total() const;
    /// total() with the margin.
    double needed() const;
    /// "the score table 8.1 GiB, the chains' edge sums 17 GiB"
    std::string describe() const;
    /// Throw OutOfMemory in one line when needed() exceeds `available` bytes:
    /// "<run> needs about <needed> of host memory (<parts>, and a margin); this machine
    /// has <available> available; <what lowers the largest part>". `available` < 0:
    /// available_host_bytes().
    void require(const std::string& run, double available = -1.0) const;

private:
    std::vector<Part> parts_;
};

/// Record `plan` (its needed bytes, and what is available now: `available`, or
/// available_host_bytes() when < 0) as the note of out_of_memory_message()
/// (core/memory_phase.hpp).
void set_memory_plan(const MemoryPlan& plan, double available = -1.0);

/// Seconds since this process started (exec, library loading, MPI, GPU set-up included),
/// from /proc (clock-tick resolution); -1 where it cannot be read.
double process_age_seconds();

}  // namespace cudag
