// SPDX-License-Identifier: Apache-2.0
#include "fci/cl_pyhash.hpp"

#include <array>
#include <cstring>

namespace cudag::fci::cl {

namespace {

std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

void round13(std::uint64_t& v0, std::uint64_t& v1, std::uint64_t& v2, std::uint64_t& v3) {
    v0 += v1;
    v2 += v3;
    v1 = rotl(v1, 13) ^ v0;
    v3 = rotl(v3, 16) ^ v2;
    v0 = rotl(v0, 32);
    v2 += v1;
    v0 += v3;
    v1 = rotl(v1, 17) ^ v2;
    v3 = rotl(v3, 21) ^ v0;
    v2 = rotl(v2, 32);
}

std::uint64_t load_le(const std::uint8_t* p, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

std::uint64_t siphash13(std::uint64_t k0, std::uint64_t k1, const std::vector<std::uint8_t>& src) {
    std::uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
    std::uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
    const std::size_t n = src.size();
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const std::uint64_t m = load_le(src.data() + k, 8);
        v3 ^= m;
        round13(v0, v1, v2, v3);
        v0 ^= m;
    }
    const std::uint64_t b = (static_cast<std::uint64_t>(n) << 56) | load_le(src.data() + k, n - k);
    v3 ^= b;
    round13(v0, v1, v2, v3);
    v0 ^= b;
    v2 ^= 0xff;
    round13(v0, v1, v2, v3);
    round13(v0, v1, v2, v3);
    round13(v0, v1, v2, v3);
    return (v0 ^ v1) ^ (v2 ^ v3);
}

/// The str's data as CPython stores it: one, two or four bytes a code point (little endian).
std::vector<std::uint8_t> python_str_bytes(const std::string& utf8) {
    std::vector<std::uint32_t> cps;
    for (std::size_t i = 0; i < utf8.size();) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        const int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        std::uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
        for (int k = 1; k < len && i + static_cast<std::size_t>(k) < utf8.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(utf8[i + static_cast<std::size_t>(k)]) & 0x3fu);
        cps.push_back(cp);
        i += static_cast<std::size_t>(len);
    }
    std::uint32_t top = 0;
    for (const std::uint32_t cp : cps) top = std::max(top, cp);
    const std::size_t width = top <= 0xff ? 1 : top <= 0xffff ? 2 : 4;
    std::vector<std::uint8_t> out;
    for (const std::uint32_t cp : cps)
        for (std::size_t b = 0; b < width; ++b) out.push_back(static_cast<std::uint8_t>(cp >> (8 * b)));
    return out;
}

}  // namespace

std::int64_t python_str_hash(const std::string& name, std::uint32_t seed) {
    const std::vector<std::uint8_t> data = python_str_bytes(name);
    if (data.empty()) return 0;
    std::array<std::uint8_t, 24> secret{};  // _Py_HashSecret_t; siphash's k0, k1 are its first 16 bytes
    if (seed != 0) {
        std::uint32_t x = seed;  // lcg_urandom
        for (std::uint8_t& byte : secret) {
            x = x * 214013u + 2531011u;
            byte = static_cast<std::uint8_t>((x >> 16) & 0xffu);
        }
    }
    const std::uint64_t h = siphash13(load_le(secret.data(), 8), load_le(secret.data() + 8, 8), data);
    std::int64_t s;
    std::memcpy(&s, &h, sizeof(s));
    return s == -1 ? -2 : s;
}

std::vector<std::int32_t> python_set_order(std::span<const std::int32_t> items,
                                           const std::vector<std::int64_t>& hashes) {
    constexpr std::size_t kLinearProbes = 9;
    std::vector<std::int32_t> table(8, -1);
    std::size_t fill = 0;
    auto insert = [&](std::vector<std::int32_t>& t, std::int32_t v) {
        const std::size_t mask = t.size() - 1;
        const auto h = static_cast<std::size_t>(static_cast<std::uint64_t>(hashes[static_cast<std::size_t>(v)]));
        std::size_t perturb = h, i = h & mask;
        for (;;) {
            const std::size_t probes = i + kLinearProbes <= mask ? kLinearProbes : 0;
            for (std::size_t j = 0; j <= probes; ++j)
                if (t[i + j] < 0) {
                    t[i + j] = v;
                    return;
                }
            perturb >>= 5;
            i = (i * 5 + 1 + perturb) & mask;
        }
    };
    for (const std::int32_t v : items) {
        insert(table, v);
        ++fill;
        if (fill * 5 >= (table.size() - 1) * 3) {  // set_table_resize(used * 4)
            std::size_t size = 8;
            while (size <= fill * 4) size <<= 1;
            std::vector<std::int32_t> bigger(size, -1);
            for (const std::int32_t u : table)
                if (u >= 0) insert(bigger, u);
            table = std::move(bigger);
        }
    }
    std::vector<std::int32_t> out;
    for (const std::int32_t u : table)
        if (u >= 0) out.push_back(u);
    return out;
}

}  // namespace cudag::fci::cl
