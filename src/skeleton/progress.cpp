// SPDX-License-Identifier: Apache-2.0
#include "skeleton/progress.hpp"

#include <unistd.h>

#include <memory>
#include <mutex>

namespace cudag::skeleton {

namespace {

std::mutex sink_mutex;
std::shared_ptr<const LineSink> current_sink;  // guarded by sink_mutex

std::shared_ptr<const LineSink> installed_sink() {
    const std::lock_guard<std::mutex> lock(sink_mutex);
    return current_sink;
}

/// One line to the installed sink, else to stderr. The sink is called without the mutex
/// held: it may block (Python's GIL) while another thread installs or removes one.
void emit(const std::string& line) {
    if (const std::shared_ptr<const LineSink> sink = installed_sink()) {
        sink->write(line);
        return;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
}

}  // namespace

void print_line(const std::string& line) { emit(line); }

namespace {

std::string format_count(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

}  // namespace

ScopedLineSink::ScopedLineSink(LineSink sink) {
    const std::lock_guard<std::mutex> lock(sink_mutex);
    current_sink = std::make_shared<const LineSink>(std::move(sink));
}

ScopedLineSink::~ScopedLineSink() {
    const std::lock_guard<std::mutex> lock(sink_mutex);
    current_sink.reset();
}

double Progress::elapsed() const {
    const std::shared_ptr<const LineSink> sink = installed_sink();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - (sink ? sink->start : start_)).count();
}

Progress::Progress(Mode mode, std::string label) : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {
    enabled_ = mode == Mode::Always || (mode == Mode::Auto && isatty(STDERR_FILENO));
}

void Progress::level(const LevelStats& s) {
    if (s.seconds > 0.0 && s.tests > 0) last_rate_ = static_cast<double>(s.tests) / s.seconds;
    if (!enabled_) return;
    const double t = elapsed();
    // Work imbalance over ranks: only worth a word when there are several ranks.
    char balance[96] = "";
    if (s.imbalance != 1.0 || s.tests_imbalance != 1.0 || s.merge_seconds > 0)
        std::snprintf(balance, sizeof balance, ", imbalance %.2f est. %.2f run, merge %.3f s", s.imbalance,
                      s.tests_imbalance, s.merge_seconds);
    char line[160];
    std::snprintf(line, sizeof line, ": level %d: %lld tests, %lld removed, %lld edges left", s.level,
                  static_cast<long long>(s.tests), static_cast<long long>(s.removed),
                  static_cast<long long>(s.edges_after));
    char times[64];
    std::snprintf(times, sizeof times, ", %.3f s (%.3f s total)", s.seconds, t);
    std::string text = label_;
    text += line;
    text += balance;
    text += times;
    emit(text);
}

std::string Progress::duration(double s) {
    char buf[48];
    if (s < 120.0)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 7200.0)
        std::snprintf(buf, sizeof buf, "%.0f min", s / 60.0);
    else if (s < 3.0 * 86400.0)
        std::snprintf(buf, sizeof buf, "%.1f h", s / 3600.0);
    else
        std::snprintf(buf, sizeof buf, "%.3g days", s / 86400.0);
    return buf;
}

std::string Progress::count(double x) { return format_count(x); }

void Progress::level_start(const LevelPlan& plan) {
    if (!enabled_ || (plan.planned_tests < kLongLevelTests && !every_level_)) return;
    const std::string eta = last_rate_ > 0.0 ? "; at level " + std::to_string(plan.level - 1) + "'s rate up to " +
                                                   duration(plan.planned_tests / last_rate_)
                                             : "";
    note("starting level " + std::to_string(plan.level) + " with up to " + format_count(plan.planned_tests) +
         " tests over " + std::to_string(plan.rows) + " rows (largest " + std::to_string(plan.max_degree) +
         " neighbours)" + eta + "; --max-level caps the depth");
}

void Progress::note(const std::string& line) {
    if (!enabled_) return;
    char times[48];
    std::snprintf(times, sizeof times, " (%.3f s total)", elapsed());
    std::string text = label_;
    text += ": ";
    text += line;
    text += times;
    emit(text);
}

void Progress::replicates(std::int64_t done, std::int64_t total, double seconds) {
    counted("bootstrap", "replicates", done, total, seconds);
}

void Progress::counted(const std::string& what, const std::string& unit, std::int64_t done, std::int64_t total,
                       double seconds) {
    if (!enabled_ || (done < total && last_replicate_line_ >= 0.0 && seconds - last_replicate_line_ < 1.0)) return;
    last_replicate_line_ = seconds;
    const double rate = seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
    char line[160];
    std::snprintf(line, sizeof line, ": %lld of %lld ", static_cast<long long>(done), static_cast<long long>(total));
    std::string text = what;
    text += line;
    text += unit;
    std::snprintf(line, sizeof line, ", %.3g/s", rate);
    text += line;
    if (done < total && rate > 0.0) text += ", about " + duration(static_cast<double>(total - done) / rate) + " left";
    note(text);
}

}  // namespace cudag::skeleton
