// SPDX-License-Identifier: Apache-2.0
// SIGINT/SIGTERM handling for a command-line run: temporaries removed, children stopped,
// one line printed, exit 130/143. Nothing here knows a learner.
#pragma once

#include <sys/types.h>

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

}  // namespace cudag::interrupt
