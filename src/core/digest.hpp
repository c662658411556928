// SPDX-License-Identifier: Apache-2.0
// A 64-bit FNV-1a digest over byte ranges, for configuration hashes that decide whether a
// checkpoint may be resumed. Not cryptographic; nothing here knows a learner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace cudag {

/// 64-bit FNV-1a (Fowler-Noll-Vo): for each byte, h = (h xor byte) * prime, starting from
/// the offset basis. Values are added as their bytes in host order, strings as their
/// length (a std::size_t) followed by their bytes, so that ("ab", "c") and ("a", "bc")
/// differ. A digest written to a file is therefore tied to the host's byte order and
/// size_t width, as checkpoints are.
class Digest {
public:
    static constexpr std::uint64_t offset_basis = 14695981039346656037ull;
    static constexpr std::uint64_t prime = 1099511628211ull;

    /// Add `n` bytes from `data` (host memory).
    Digest& add_bytes(const void* data, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t k = 0; k < n; ++k) h_ = (h_ ^ p[k]) * prime;
        return *this;
    }

    /// Add an integer or floating-point value as its sizeof(T) bytes.
    template <class T>
    Digest& add_value(const T& v) {
        static_assert(std::is_arithmetic_v<T>, "Digest::add_value takes integers and doubles");
        return add_bytes(&v, sizeof v);
    }

    /// Add a string as its length (std::size_t) and then its bytes.
    Digest& add_string(const std::string& s) {
        add_value(s.size());
        return add_bytes(s.data(), s.size());
    }

    /// The digest so far.
    std::uint64_t value() const { return h_; }

    /// The digest as 16 lower-case hexadecimal digits.
    std::string hex() const {
        char buf[17];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
        return buf;
    }

private:
    std::uint64_t h_ = offset_basis;
};

}  // namespace cudag
