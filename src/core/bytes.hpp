// SPDX-License-Identifier: Apache-2.0
// Flat byte serialisation of trivially copyable values and vectors, for blobs that
// travel through a Communicator (bcast_blob, gatherv). Same binary on every rank, so
// no byte-order or layout conversion is done.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace cudag {

/// Appends values to a growing byte buffer.
class ByteWriter {
public:
    /// Room for `bytes` more bytes (one allocation for a blob of known size).
    void reserve(std::size_t bytes) { buf_.reserve(buf_.size() + bytes); }
    template <class T>
    void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const auto* p = reinterpret_cast<const std::byte*>(&v);
        buf_.insert(buf_.end(), p, p + sizeof(T));
    }
    /// The element count (int64), then the elements.
    template <class T, class A>
    void put_vector(const std::vector<T, A>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        put(static_cast<std::int64_t>(v.size()));
        const auto* p = reinterpret_cast<const std::byte*>(v.data());
        buf_.insert(buf_.end(), p, p + v.size() * sizeof(T));
    }
    std::vector<std::byte> take() { return std::move(buf_); }

private:
    std::vector<std::byte> buf_;
};

/// Reads back what a ByteWriter wrote, in the same order; throws LogicError when the
/// blob is shorter than the reads.
class ByteReader {
public:
    explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

    template <class T>
    T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        take(&v, sizeof(T));
        return v;
    }
    template <class T, class V = std::vector<T>>
    V get_vector() {
        const auto n = get<std::int64_t>();
        CUDAG_ASSERT(n >= 0);
        V v(static_cast<std::size_t>(n));
        take(v.data(), v.size() * sizeof(T));
        return v;
    }
    bool done() const { return pos_ == bytes_.size(); }

private:
    void take(void* dst, std::size_t n) {
        CUDAG_ASSERT(pos_ + n <= bytes_.size());
        if (n) std::memcpy(dst, bytes_.data() + pos_, n);
        pos_ += n;
    }
    std::span<const std::byte> bytes_;
    std::size_t pos_ = 0;
};

}  // namespace cudag
