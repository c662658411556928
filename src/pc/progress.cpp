// SPDX-License-Identifier: Apache-2.0
#include "pc/progress.hpp"

#include <unistd.h>

namespace cudag::pc {

Progress::Progress(Mode mode, std::string label)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {
    enabled_ = mode == Mode::Always || (mode == Mode::Auto && isatty(STDERR_FILENO));
}

void Progress::level(const LevelStats& s) {
    if (!enabled_) return;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // Work imbalance over ranks: only worth a word when there are several ranks.
    char balance[96] = "";
    if (s.imbalance != 1.0 || s.tests_imbalance != 1.0 || s.merge_seconds > 0)
        std::snprintf(balance, sizeof balance, ", imbalance %.2f est. %.2f run, merge %.3f s",
                      s.imbalance, s.tests_imbalance, s.merge_seconds);
    std::fprintf(stderr, "%s: level %d: %lld tests, %lld removed, %lld edges left%s, %.3f s (%.3f s total)\n",
                 label_.c_str(), s.level, static_cast<long long>(s.tests),
                 static_cast<long long>(s.removed), static_cast<long long>(s.edges_after), balance,
                 s.seconds, t);
    std::fflush(stderr);
}

void Progress::note(const std::string& line) {
    if (!enabled_) return;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "%s: %s (%.3f s total)\n", label_.c_str(), line.c_str(), t);
    std::fflush(stderr);
}

}  // namespace cudag::pc
