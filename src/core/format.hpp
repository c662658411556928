// SPDX-License-Identifier: Apache-2.0
// Numbers as text where the exact value matters (provenance, checkpoint settings, TSV), and
// text from files made safe to print.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace cudag {

/// "%.17g": a double that reads back to the same bits.
inline std::string exact_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// Length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 when the bytes there are not
/// one (a stray continuation byte, a truncated or overlong sequence, a surrogate, > U+10FFFF;
/// RFC 3629's table).
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
}

/// `s` safe for one line of a terminal: well-formed UTF-8 kept, every other byte and every
/// control character (a line break, an escape sequence) written as \xNN.
inline std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c >= 0x80 ? utf8_sequence(s, i) : (c < 0x20 || c == 0x7F ? 0 : 1);
        if (n > 0) {
            out.append(s.substr(i, n));
            i += n - 1;
            continue;
        }
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
    }
    return out;
}

}  // namespace cudag
