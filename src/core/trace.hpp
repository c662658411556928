// SPDX-License-Identifier: Apache-2.0
// CUDAG_TRACE: per-level timing lines on stderr (host steps, GPU kernels), for finding
// where a run's time goes. Off unless the variable is set and not empty.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace cudag {

inline bool trace_enabled() {
    static const bool on = [] {
        const char* v = std::getenv("CUDAG_TRACE");
        return v != nullptr && *v != '\0';
    }();
    return on;
}

/// With CUDAG_TRACE set: the host time of a sequence of steps, printed as one line.
class StepTrace {
public:
    void start() {
        if (!on_) return;
        line_.clear();
        last_ = std::chrono::steady_clock::now();
    }
    void mark(const char* step) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        char buf[96];
        std::snprintf(buf, sizeof buf, " %s %.3f ms,", step,
                      std::chrono::duration<double, std::milli>(now - last_).count());
        line_ += buf;
        last_ = now;
    }
    /// "<what>:<steps>" on stderr, e.g. print("host level 3").
    void print(const char* what) const {
        if (on_) std::fprintf(stderr, "%s:%s\n", what, line_.c_str());
    }

private:
    bool on_ = trace_enabled();
    std::string line_;
    std::chrono::steady_clock::time_point last_;
};

/// With CUDAG_TRACE set: "trace: <what> at <wall-clock seconds since the epoch> (pid P)" on
/// stderr, for lining a process's steps up with a launcher's times (start-up, exit).
inline void trace_moment(const char* what) {
    if (!trace_enabled()) return;
    const double t = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::fprintf(stderr, "trace: %s at %.3f (pid %ld)\n", what, t, static_cast<long>(::getpid()));
}

}  // namespace cudag
