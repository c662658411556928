// SPDX-License-Identifier: Apache-2.0
// One error hierarchy for the whole project. Only main() catches.
#pragma once

#include <stdexcept>
#include <string>

namespace cudag {

/// Base of every cudag error; what() is one line meant for the user.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Bad input: a file, a cell, an option. The message names what and where.
class InputError : public Error {
public:
    using Error::Error;
};

/// A backend asked for that this build does not have.
class NotCompiled : public Error {
public:
    explicit NotCompiled(const std::string& what)
        : Error(what +
                " support was not compiled into this cudag build "
                "(reconfigure with the toolkit installed)") {}
};

/// Host or device memory exhausted; the message says how much was needed.
class OutOfMemory : public Error {
public:
    using Error::Error;
};

/// An internal invariant failed (a bug, not bad input).
class LogicError : public Error {
public:
    using Error::Error;
};

}  // namespace cudag

/// Throw cudag::InputError(msg) unless cond holds.
#define CUDAG_EXPECTS(cond, msg)                     \
    do {                                             \
        if (!(cond)) throw ::cudag::InputError(msg); \
    } while (0)

/// Throw cudag::LogicError naming the failed invariant and its location.
#define CUDAG_ASSERT(cond)                                                                                \
    do {                                                                                                  \
        if (!(cond))                                                                                      \
            throw ::cudag::LogicError(std::string("internal error: ") + #cond + " at " + __FILE__ + ":" + \
                                      std::to_string(__LINE__));                                          \
    } while (0)
