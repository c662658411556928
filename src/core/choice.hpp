// SPDX-License-Identifier: Apache-2.0
// An option's choices as one table of words and values (issue 57): the front ends parse a
// word once with it, and messages, result files and checkpoints name a value with it, so the
// words are written once and every refusal reads alike.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace cudag {

/// One choice of an option: its word (as the command line takes it) and its value.
template <class E>
struct Choice {
    const char* word;
    E value;
};

/// The value of `word` among `choices`, or none.
template <class E, std::size_t N>
std::optional<E> find_choice(const Choice<E> (&choices)[N], const std::string& word) {
    for (const Choice<E>& c : choices)
        if (word == c.word) return c.value;
    return std::nullopt;
}

/// The value of `word` among `choices`; anything else is the InputError
/// "unknown <option> '<word>' (available: <the words, in table order>)".
template <class E, std::size_t N>
E parse_choice(const Choice<E> (&choices)[N], const std::string& option, const std::string& word) {
    if (const std::optional<E> value = find_choice(choices, word)) return *value;
    std::string message = "unknown ";
    message += option;
    message += " '";
    message += word;
    message += "' (available: ";
    for (std::size_t k = 0; k < N; ++k) {
        if (k) message += ", ";
        message += choices[k].word;
    }
    message += ")";
    throw InputError(message);
}

/// The word of `value` among `choices` ("?" for a value without a row).
template <class E, std::size_t N>
const char* choice_word(const Choice<E> (&choices)[N], E value) {
    for (const Choice<E>& c : choices)
        if (c.value == value) return c.word;
    return "?";
}

}  // namespace cudag
