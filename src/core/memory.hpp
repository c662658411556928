// SPDX-License-Identifier: Apache-2.0
// Host memory: what is available, and a one-line refusal when a run will not fit.
#pragma once

#include <cstdint>
#include <string>

namespace cudag {

/// Bytes of host memory available to a new allocation now: the smallest of Linux's
/// MemAvailable (/proc/meminfo), a cgroup memory limit minus its usage (v2 or v1) and
/// RLIMIT_AS; the physical memory when none can be read.
std::int64_t available_host_bytes();

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

/// Seconds since this process started (exec, library loading, MPI, GPU set-up included),
/// from /proc (clock-tick resolution); -1 where it cannot be read.
double process_age_seconds();

}  // namespace cudag
