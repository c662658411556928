// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "pc/result.hpp"

namespace cudag::pc {

/// Progress lines on stderr: one per finished level with tests done, edges left
/// and time. Auto mode prints only when stderr is a terminal; Quiet never; Always
/// prints for batch logs too.
class Progress {
public:
    enum class Mode { Auto, Quiet, Always };
    Progress(Mode mode, std::string label);

    bool enabled() const { return enabled_; }
    void level(const LevelStats& s);
    /// Before a level: a line when it may run long (at most plan.planned_tests tests, at
    /// least kLongLevelTests), with the time that would take at the last level's rate, so
    /// that a hopeless run shows early (cap it with --max-level).
    void level_start(const LevelPlan& plan);
    static constexpr double kLongLevelTests = 1e10;
    void note(const std::string& line);

private:
    bool enabled_ = false;
    std::string label_;
    std::chrono::steady_clock::time_point start_;
    double last_rate_ = 0.0;  ///< tests per second of the last level (0: none yet)
};

}  // namespace cudag::pc
