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
    void note(const std::string& line);

private:
    bool enabled_ = false;
    std::string label_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace cudag::pc
