// SPDX-License-Identifier: Apache-2.0
// core/digest.hpp against the 64-bit FNV-1a definition and its published test vectors,
// and pc::config_hash against the same definition applied to its documented byte stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/digest.hpp"
#include "pc/run.hpp"

namespace cudag {
namespace {

/// FNV-1a 64 written out from its definition: offset basis 14695981039346656037,
/// prime 1099511628211, for each octet h = (h xor octet) * prime (mod 2^64).
std::uint64_t fnv1a_reference(const std::vector<unsigned char>& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char b : bytes) {
        h ^= b;
        h *= 1099511628211ull;
    }
    return h;
}

/// A byte stream built by hand, independent of Digest.
class Bytes {
public:
    template <class T>
    void value(const T& v) {
        unsigned char b[sizeof v];
        std::memcpy(b, &v, sizeof v);
        bytes_.insert(bytes_.end(), b, b + sizeof v);
    }
    void raw(const std::string& s) { bytes_.insert(bytes_.end(), s.begin(), s.end()); }
    void string(const std::string& s) {
        value(s.size());
        raw(s);
    }
    const std::vector<unsigned char>& get() const { return bytes_; }

private:
    std::vector<unsigned char> bytes_;
};

std::uint64_t of(const std::string& s) {
    Digest d;
    d.add_bytes(s.data(), s.size());
    return d.value();
}

TEST(Digest, PublishedTestVectors) {
    EXPECT_EQ(of(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(of("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(of("foobar"), 0x85944171f73967e8ull);
    for (const std::string s : {"", "a", "foobar", "cudag-pc-config-2"}) {
        Bytes b;
        b.raw(s);
        EXPECT_EQ(of(s), fnv1a_reference(b.get())) << s;
    }
}

TEST(Digest, HexIsSixteenLowerCaseDigits) {
    EXPECT_EQ(Digest().hex(), "cbf29ce484222325");
    Digest d;
    d.add_bytes("foobar", 6);
    EXPECT_EQ(d.hex(), "85944171f73967e8");
}

TEST(Digest, ValuesAndStringsAreTheirBytes) {
    Digest d;
    d.add_string("ab").add_value(std::int64_t{-3}).add_value(0.25).add_string("");
    Bytes b;
    b.string("ab");
    b.value(std::int64_t{-3});
    b.value(0.25);
    b.string("");
    EXPECT_EQ(d.value(), fnv1a_reference(b.get()));
    // The length prefix separates strings.
    Digest x, y;
    x.add_string("ab").add_string("c");
    y.add_string("a").add_string("bc");
    EXPECT_NE(x.value(), y.value());
}

/// config_hash is FNV-1a 64 over: "cudag-pc-config-2", n_vars, n_samples, the names, the
/// values' bytes, the resolved test's digest entries, alpha, compat; strings carry their
/// size_t length first. Recomputed here from that definition, so a change of the hash
/// (which would refuse every existing checkpoint) fails this test.
std::string config_hash_by_definition(const Dataset& data, const pc::PcConfig& cfg) {
    Bytes b;
    b.string("cudag-pc-config-2");
    b.value(data.n_vars);
    b.value(data.n_samples);
    for (const std::string& nm : data.names) b.string(nm);
    for (double v : data.values) b.value(v);
    for (const std::string& e : pc::resolve_test(cfg, data).digest_entries(data.n_samples)) b.string(e);
    b.value(cfg.alpha);
    b.string(skeleton::to_string(cfg.compat));
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a_reference(b.get())));
    return hex;
}

TEST(Digest, ConfigHashFollowsItsDefinition) {
    Dataset data;
    data.n_vars = 3;
    data.n_samples = 5;
    data.names = {"x", "y", "z"};
    for (int k = 0; k < 15; ++k) data.values.push_back(0.5 * k - 1.0 + (k % 3) * 0.125);
    data.source = "test";
    pc::PcConfig cfg;
    cfg.alpha = 0.05;
    EXPECT_EQ(pc::config_hash(data, cfg), config_hash_by_definition(data, cfg));
    cfg.compat = skeleton::Compat::CausalLearn;
    EXPECT_EQ(pc::config_hash(data, cfg), config_hash_by_definition(data, cfg));
    cfg.test.kind = skeleton::TestKind::CmiKnn;
    EXPECT_EQ(pc::config_hash(data, cfg), config_hash_by_definition(data, cfg));
}

}  // namespace
}  // namespace cudag
