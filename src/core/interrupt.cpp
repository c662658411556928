// SPDX-License-Identifier: Apache-2.0
#include "core/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace cudag::interrupt {

namespace {

// A dedicated watcher thread (sigwait) rather than an asynchronous handler: it may take
// the mutex, walk the vectors and print, none of which is async-signal-safe.
struct Registry {
    std::mutex mutex;
    std::vector<std::string> temporaries;
    std::vector<pid_t> children;
    std::string note;
    bool installed = false;
};

Registry& registry() {
    static Registry* r = new Registry;  // never destroyed: the watcher outlives main()
    return *r;
}

[[noreturn]] void finish(int sig) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (pid_t pid : r.children) ::kill(pid, SIGTERM);
    for (const std::string& t : r.temporaries) ::unlink(t.c_str());
    std::string line = "cudag: interrupted";
    if (!r.note.empty()) line += "; " + r.note;
    line += '\n';
    // write(2), not stdio: another thread may hold stderr's lock.
    const ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    ::_exit(128 + sig);
}

}  // namespace

void install() {
    Registry& r = registry();
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        if (r.installed) return;
        r.installed = true;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
        for (;;) {
            int sig = 0;
            if (sigwait(&set, &sig) == 0 && (sig == SIGINT || sig == SIGTERM)) finish(sig);
        }
    }).detach();
}

bool installed() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.installed;
}

void add_temporary(const std::string& path) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.temporaries.push_back(path);
}

void forget_temporary(const std::string& path) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = std::find(r.temporaries.begin(), r.temporaries.end(), path);
    if (it != r.temporaries.end()) r.temporaries.erase(it);
}

void add_child(pid_t pid) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.children.push_back(pid);
}

void forget_child(pid_t pid) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = std::find(r.children.begin(), r.children.end(), pid);
    if (it != r.children.end()) r.children.erase(it);
}

void set_note(const std::string& note) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.note = note;
}

namespace detail {

struct PollState {
    std::function<void()> check;
    std::chrono::steady_clock::duration interval;
    std::chrono::steady_clock::time_point next;
    unsigned calls = 0;
    bool threw = false;  ///< the check threw: counted in g_stopping until the scope ends
    PollState* outer = nullptr;
};

thread_local PollState* t_poll = nullptr;

namespace {
std::atomic<int> g_stopping{0};  ///< scopes whose check threw, until they end
}  // namespace

void poll_slow(PollState& s, bool counted) {
    if (counted && (++s.calls & 15u) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < s.next) return;
    s.next = now + s.interval;
    try {
        s.check();
    } catch (...) {
        // Stop the workers, then end this loop with the check's exception (it reaches the
        // caller of the run first: parallel_for keeps the first error, and a worker that
        // sees the flag drops its work without throwing).
        if (!s.threw) g_stopping.fetch_add(1, std::memory_order_relaxed);
        s.threw = true;
        throw;
    }
}

bool stop_flag() { return g_stopping.load(std::memory_order_relaxed) != 0; }

}  // namespace detail

PollScope::PollScope(std::function<void()> check, int interval_ms) {
    state_ = new detail::PollState;
    state_->check = std::move(check);
    state_->interval = std::chrono::milliseconds(interval_ms);
    state_->next = std::chrono::steady_clock::now() + state_->interval;
    state_->outer = detail::t_poll;
    detail::t_poll = state_;
}

PollScope::~PollScope() {
    detail::t_poll = state_->outer;
    if (state_->threw) detail::g_stopping.fetch_sub(1, std::memory_order_relaxed);
    delete state_;
}

std::size_t temporaries() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.temporaries.size();
}

}  // namespace cudag::interrupt
