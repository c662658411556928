// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "skeleton/types.hpp"

namespace cudag::skeleton {

/// Where progress lines go instead of stderr, process-wide (an in-process caller: the
/// Python module hands them to Python's logging): `write` gets each line without its
/// newline, with "(… s total)" counted from `start` (the caller's call) rather than from
/// the run's stages. May be called from any thread.
struct LineSink {
    std::function<void(const std::string&)> write;
    std::chrono::steady_clock::time_point start;
};

/// Installs `sink` for the lines of every Progress until the returned guard ends (the
/// previous sink back then). One caller at a time (the module runs one command at a time).
class ScopedLineSink {
public:
    explicit ScopedLineSink(LineSink sink);
    ~ScopedLineSink();
    ScopedLineSink(const ScopedLineSink&) = delete;
    ScopedLineSink& operator=(const ScopedLineSink&) = delete;
};

/// One line (without its newline) to the installed LineSink, else to stderr: for the
/// verbose lines written outside a Progress.
void print_line(const std::string& line);

/// Progress lines on stderr (or the installed LineSink): one per finished level with tests done, edges left
/// and time. Auto mode prints only when stderr is a terminal; Quiet never; Always
/// prints for batch logs too.
class Progress {
public:
    enum class Mode { Auto, Quiet, Always };
    Progress(Mode mode, std::string label);

    bool enabled() const { return enabled_; }
    /// Count the "(… s total)" of each line from `t` (a run's start) instead of from this
    /// object's construction (a later stage's own Progress).
    void start_at(std::chrono::steady_clock::time_point t) { start_ = t; }
    void level(const LevelStats& s);
    /// Before a level: a line when it may run long (at most plan.planned_tests tests, at
    /// least kLongLevelTests), with the time that would take at the last level's rate, so
    /// that a hopeless run shows early (cap it with --max-level).
    void level_start(const LevelPlan& plan);
    static constexpr double kLongLevelTests = 1e10;
    /// Announce every level (level_start), however few its tests: for tests that each take
    /// long (CMIknn's permutations), where a level of a thousand tests can take an hour.
    void announce_every_level() { every_level_ = true; }
    /// "12 s", "5 min", "2.5 h", "3.1 days".
    static std::string duration(double seconds);
    /// A count in three significant digits ("1.23e+06").
    static std::string count(double x);
    void note(const std::string& line);
    /// Seconds since the run's start (the LineSink's start when one is installed).
    double elapsed() const;
    /// After a round of bootstrap replicates, `seconds` after the first began: "bootstrap:
    /// 40 of 100 replicates, 3.1/s, about 19 s left"; at most one line a second, and the last.
    void replicates(std::int64_t done, std::int64_t total, double seconds);
    /// The same for any stage counted in items, `seconds` after it began: "<what>: 40 of 100
    /// <unit>, 3.1/s, about 19 s left"; at most one line a second, and the last.
    void counted(const std::string& what, const std::string& unit, std::int64_t done, std::int64_t total,
                 double seconds);

private:
    bool enabled_ = false;
    std::string label_;
    std::chrono::steady_clock::time_point start_;
    double last_rate_ = 0.0;  ///< tests per second of the last level (0: none yet)
    bool every_level_ = false;
    double last_replicate_line_ = -1.0;  ///< seconds of the last replicates() line (-1: none)
};

}  // namespace cudag::skeleton
