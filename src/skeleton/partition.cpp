// SPDX-License-Identifier: Apache-2.0
#include "skeleton/partition.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "mpi/partition.hpp"

namespace cudag::skeleton::detail {

double cut_level(const Adjacency& snap, const std::vector<double>& work, int parts, int me, bool split_rows,
                 LevelFrame& f) {
    const std::int64_t n = snap.n;
    std::vector<std::int64_t> entry_cut(static_cast<std::size_t>(parts) + 1);
    double imbalance = 1.0;
    const bool split = parts > 1 && split_rows;
    if (split) {
        std::vector<double> per_entry(static_cast<std::size_t>(n), 0.0);
        for (std::int64_t i = 0; i < n; ++i)
            if (const std::int64_t d = snap.degree(i); d > 0)
                per_entry[static_cast<std::size_t>(i)] = work[static_cast<std::size_t>(i)] / static_cast<double>(d);
        const mpi::EntryPartition part = mpi::partition_entries(snap.offsets, per_entry, parts, 1);
        entry_cut = part.bounds;
        imbalance = part.imbalance;
        f.eb = part.begin(me);
        f.ee = part.end(me);
        // The rows holding the block's entries (none when it is empty).
        const auto row_of = [&](std::int64_t e) {
            return static_cast<std::int64_t>(std::upper_bound(snap.offsets.begin(), snap.offsets.end(), e) -
                                             snap.offsets.begin()) -
                   1;
        };
        f.rb = f.ee > f.eb ? row_of(f.eb) : 0;
        f.re = f.ee > f.eb ? row_of(f.ee - 1) + 1 : 0;
    } else {
        const mpi::RowPartition part = mpi::partition_rows(work, parts);
        for (int r = 0; r <= parts; ++r)
            entry_cut[static_cast<std::size_t>(r)] =
                snap.offsets[static_cast<std::size_t>(part.bounds[static_cast<std::size_t>(r)])];
        imbalance = part.imbalance;
        f.rb = part.begin(me);
        f.re = part.end(me);
        f.eb = snap.offsets[f.rb];
        f.ee = snap.offsets[f.re];
    }
    // Removal map: rank r packs the entries of its block from bit 0 of its own byte
    // block; one allgatherv gives every rank the whole map. Its size follows the edges
    // left (entries / 8 bytes), not n² / 8.
    f.by_entry = split;
    f.entry_cut = entry_cut;
    f.counts.resize(static_cast<std::size_t>(parts));
    f.first_byte.resize(f.counts.size());
    f.total = 0;
    for (int r = 0; r < parts; ++r) {
        const std::int64_t entries =
            entry_cut[static_cast<std::size_t>(r) + 1] - entry_cut[static_cast<std::size_t>(r)];
        f.first_byte[static_cast<std::size_t>(r)] = f.total;
        f.counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>((entries + 7) / 8);
        f.total += f.counts[static_cast<std::size_t>(r)];
    }
    // Bit of entry e of row a: bit0[a] + (e - offsets[a]): by entry, offsets[a]; else
    // from the start of the block of the part holding row a.
    f.bit0.resize(static_cast<std::size_t>(n));
    if (split) {
        std::copy(snap.offsets.begin(), snap.offsets.begin() + n, f.bit0.begin());
        return imbalance;
    }
    int r = 0;
    for (std::int64_t a = 0; a < n; ++a) {
        const std::int64_t e = snap.offsets[static_cast<std::size_t>(a)];
        while (r + 1 < parts && e >= entry_cut[static_cast<std::size_t>(r) + 1]) ++r;
        f.bit0[static_cast<std::size_t>(a)] = static_cast<std::int64_t>(8 * f.first_byte[static_cast<std::size_t>(r)]) +
                                              e - entry_cut[static_cast<std::size_t>(r)];
    }
    return imbalance;
}

}  // namespace cudag::skeleton::detail
