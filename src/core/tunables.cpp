// SPDX-License-Identifier: Apache-2.0
#include "core/tunables.hpp"

#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.hpp"

namespace cudag {

namespace {

std::vector<std::string> comma_items(const std::string& list) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t pos = list.find(',', start);
        if (pos == std::string::npos) pos = list.size();
        if (pos > start) out.push_back(list.substr(start, pos - start));
        start = pos + 1;
    }
    return out;
}

}  // namespace

/// `value` of --tune `key` as a number of GiB in [least, 1e6]; a one-line error otherwise.
double gib_value(const std::string& key, const std::string& value, double least) {
    char* end = nullptr;
    const double gib = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || !(gib >= least) || gib > 1e6)
        throw InputError("--tune " + key + " must be a number of GiB >= " + (least > 0.0 ? "1/1024" : "0") + ", got '" +
                         value + "'");
    return gib;
}

void apply_tunes(const std::vector<std::string>& items, Tunables& tunables) {
    FisherTunables& t = tunables.fisher;
    static const char* keys =
        "variant, beta, gamma, theta, delta, scan-levels, deep-from, deep-span, scan-round-levels, corr-limit, "
        "level0-bits, row-blocks, corr-tile, level0-fused, discrete-delta, discrete-gamma, replicates-at-once, "
        "resident-entries";
    for (const std::string& list : items) {
        for (const std::string& item : comma_items(list)) {
            const std::size_t eq = item.find('=');
            const std::string key = item.substr(0, eq);
            const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
            if (eq == std::string::npos || value.empty())
                throw InputError("--tune takes key=value, got '" + item + "' (keys: " + keys + ")");
            auto integer = [&](int lo, int hi) {
                std::size_t used = 0;
                long v = 0;
                try {
                    v = std::stol(value, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used != value.size() || v < lo || v > hi)
                    throw InputError("--tune " + key + " must be an integer in [" + std::to_string(lo) + ", " +
                                     std::to_string(hi) + "], got '" + value + "'");
                return static_cast<int>(v);
            };
            if (key == "variant") {
                if (value != "s" && value != "e")
                    throw InputError("--tune variant must be s (cuPC-S) or e (cuPC-E), got '" + value + "'");
                t.variant = value[0];
                t.auto_tune = false;
            } else if (key == "beta") {
                t.beta = integer(1, 1024);
            } else if (key == "gamma") {
                t.gamma = integer(1, 1024);
            } else if (key == "theta") {
                t.theta = integer(1, 1024);
            } else if (key == "delta") {
                t.delta = integer(1, 1 << 16);
            } else if (key == "scan-levels") {
                t.scan_levels = value == "all" ? kScanAllLevels : integer(0, 1000000);
            } else if (key == "deep-from") {
                t.scan_deep_from = integer(2, 1000000);
            } else if (key == "deep-span") {
                t.deep_min_span = integer(1, 1 << 30);
            } else if (key == "scan-round-levels") {
                t.scan_round_levels = integer(0, 1000000);
            } else if (key == "discrete-delta") {
                tunables.discrete.delta = integer(1, 1024);
            } else if (key == "discrete-gamma") {
                tunables.discrete.gamma = integer(1, 64);
            } else if (key == "corr-limit") {
                t.corr_limit_bytes = static_cast<std::int64_t>(gib_value(key, value, 0.0) * 1073741824.0);
            } else if (key == "row-blocks") {
                t.row_blocks = integer(0, 1) == 1;
            } else if (key == "resident-entries") {
                t.resident_entries = integer(0, 1 << 30);
            } else if (key == "replicates-at-once") {
                tunables.replicates_at_once = integer(1, 64);
            } else if (key == "level0-fused") {
                t.level0_fused = integer(0, 1) == 1;
            } else if (key == "corr-tile") {
                if (value != "64" && value != "128" && value != "128x64")
                    throw InputError("--tune corr-tile must be 64, 128 or 128x64, got '" + value + "'");
                t.corr_tile = value == "64" ? kCorrTiles64 : value == "128" ? kCorrTiles128 : kCorrTiles128x64;
            } else if (key == "level0-bits") {
                t.level0_bits_bytes = static_cast<std::int64_t>(gib_value(key, value, 1.0 / 1024) * 1073741824.0);
            } else {
                throw InputError("unknown --tune key '" + key + "' (keys: " + keys + ")");
            }
        }
    }
}

}  // namespace cudag
