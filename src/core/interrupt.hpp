// SPDX-License-Identifier: Apache-2.0
// SIGINT/SIGTERM handling for a command-line run: temporaries removed, children stopped,
// one line printed, exit 130/143. Nothing here knows a learner.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace cudag::interrupt {

/// Block SIGINT and SIGTERM in the calling thread (and so in every thread it starts
/// later) and start one watcher thread that waits for them with sigwait. On a signal
/// the watcher removes every registered temporary, sends SIGTERM to every registered
/// child process, prints "cudag: interrupted[; <note>]" on stderr and ends the process
/// with _exit(128 + signal) (130 for SIGINT, 143 for SIGTERM). Call once, from main(),
/// before any other thread starts. Idempotent.
void install();

/// Whether install() has run in this process.
bool installed();

/// A temporary file the watcher removes on a signal (until forgotten). Thread-safe.
void add_temporary(const std::string& path);
/// Forget a temporary (renamed into place or removed by its owner). Thread-safe.
void forget_temporary(const std::string& path);

/// A child process the watcher stops with SIGTERM on a signal. Thread-safe.
void add_child(pid_t pid);
/// Forget a child (it was waited for). Thread-safe.
void forget_child(pid_t pid);

/// The note printed after "cudag: interrupted; " (e.g. "the last checkpoint is level 3
/// (continue with --resume)"); empty: none. Thread-safe.
void set_note(const std::string& note);

/// Number of temporaries registered now (tests).
std::size_t temporaries();

// ---- in-process runs (the Python and R bindings): Ctrl-C inside long loops ------------
// There the signal is the host language's (Python's KeyboardInterrupt, R's interrupt) and
// can only be looked at on the thread that called in. A PollScope on that thread names the
// look (`check`, which throws to end the run); the long loops (a skeleton level's rows and
// conditioning sets, level 0's rows, a batch engine's rounds) call poll(), which runs the
// check on that thread at most every `interval`, and nothing elsewhere (a CLI run, a
// worker thread: one thread-local load). A thread that waits for workers (a bootstrap's
// rounds) calls poll_waiting() between slices of its wait. Once the check has thrown,
// stop_requested() is true on every thread until the scope ends: workers drop what they
// hold and the run ends with the check's exception.

namespace detail {
struct PollState;
extern thread_local PollState* t_poll;
/// `counted`: poll()'s way (the clock read on every 16th call only); else every call.
void poll_slow(PollState& s, bool counted);
bool stop_flag();
}  // namespace detail

/// While it lives, poll() on this thread runs `check` about every `interval_ms`.
/// Nested scopes: the innermost serves.
class PollScope {
public:
    explicit PollScope(std::function<void()> check, int interval_ms = 50);
    ~PollScope();
    PollScope(const PollScope&) = delete;
    PollScope& operator=(const PollScope&) = delete;

private:
    detail::PollState* state_ = nullptr;
};

/// Called often from long loops (costs a thread-local load off a PollScope's thread; on it,
/// a counter, and a clock read every 16 calls). May throw what the scope's check throws.
inline void poll() {
    if (detail::t_poll != nullptr) detail::poll_slow(*detail::t_poll, true);
}

/// poll() for a thread that waits on others' work a slice at a time (a few per interval):
/// the clock is read on every call, so the check runs once `interval` has passed.
inline void poll_waiting() {
    if (detail::t_poll != nullptr) detail::poll_slow(*detail::t_poll, false);
}

/// Whether a PollScope's check threw (the run is ending): loops on other threads give up.
inline bool stop_requested() { return detail::stop_flag(); }

}  // namespace cudag::interrupt
