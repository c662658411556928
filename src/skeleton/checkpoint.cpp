// SPDX-License-Identifier: Apache-2.0
#include "skeleton/checkpoint.hpp"

#include <vector>

#include "core/error.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"
#include "skeleton/layout.hpp"

namespace cudag::skeleton {

namespace h5 = io::h5;
using io::CheckpointFile;
using io::CheckpointFormat;
using io::write_checkpoint_in_parts;

namespace {

/// /state/{next_level, n_vars} and /skeleton.
void write_state(hid_t root, const SkeletonState& s, const std::string& where) {
    {
        h5::Handle g = h5::create_group(root, "state", where);
        h5::write_array(g.get(), "next_level", std::vector<std::int64_t>{s.next_level}, {1}, where);
        h5::write_array(g.get(), "n_vars", std::vector<std::int64_t>{s.skeleton.n()}, {1}, where);
    }
    layout::write_skeleton(root, s.skeleton, where);
}

}  // namespace

void write_checkpoint(const CheckpointFormat& format, const SkeletonState& s, const std::string& config_hash,
                      const std::string& path, const io::CheckpointSettings& settings) {
    CheckpointFile file = CheckpointFile::create(path, format, config_hash, settings);
    const hid_t root = file.root();
    const std::string& where = file.where();
    write_state(root, s, where);
    layout::write_sepsets(root, s.sepsets, where);
    {
        h5::Handle g = h5::create_group(root, "pmax", where);
        layout::write_pmax_pairs(g.get(), s.pmax, s.skeleton.n(), where);
    }
    layout::write_levels(root, s.levels, where);
    file.commit();
}

void write_checkpoint(const CheckpointFormat& format, const SkeletonState& s, const std::string& config_hash,
                      const std::string& path, mpi::Communicator& comm, const io::CheckpointSettings& settings) {
    const layout::RecordParts parts = layout::record_parts(s.sepsets, s.pmax.size(), comm);
    const auto head = [&](hid_t root, const std::string& where) {
        write_state(root, s, where);
        layout::create_sepsets(root, parts, where);
        {
            h5::Handle g = h5::create_group(root, "pmax", where);
            layout::create_pmax_pairs(g.get(), parts, where);
        }
        layout::write_levels(root, s.levels, where);
    };
    write_checkpoint_in_parts(
        path, format, config_hash, comm, head,
        [&](hid_t file, hid_t xfer, const std::string& where) {
            layout::write_records_part(file, s.sepsets, s.pmax, parts, xfer, where);
        },
        settings);
}

namespace {

/// Throws file.corrupt(...) unless `s` (next_level already within [1, n]) is a state after
/// level next_level - 1 of a search on n variables: levels 0..next_level-1 with counts in
/// range, the last level's edge count the skeleton's, separating sets and pMax in range.
void check_state(const SkeletonState& s, std::int64_t n, const CheckpointFile& file) {
    if (static_cast<std::int64_t>(s.levels.size()) != s.next_level)
        throw file.corrupt("/levels holds " + std::to_string(s.levels.size()) + " levels, /state/next_level says " +
                           std::to_string(s.next_level));
    const std::int64_t pairs = n * (n - 1) / 2;
    for (std::size_t l = 0; l < s.levels.size(); ++l) {
        const LevelStats& st = s.levels[l];
        if (st.level != static_cast<int>(l) || st.tests < 0 || st.removed < 0 || st.edges_after < 0 ||
            st.edges_after > pairs)
            throw file.corrupt("/levels row " + std::to_string(l) + " is out of range");
    }
    if (s.levels.back().edges_after != s.skeleton.n_edges())
        throw file.corrupt("/skeleton has " + std::to_string(s.skeleton.n_edges()) + " edges, /levels says " +
                           std::to_string(s.levels.back().edges_after));
    for (const auto& [key, set] : s.sepsets.all())
        for (const std::int32_t z : set)
            if (z < 0 || z >= n || z == key.first || z == key.second)
                throw file.corrupt("/sepsets/nodes holds " + std::to_string(z) + ", not a separating variable of (" +
                                   std::to_string(key.first) + ", " + std::to_string(key.second) + ")");
    for (const PairP& p : s.pmax)
        if (!(p.p >= 0.0 && p.p <= 1.0)) throw file.corrupt("/pmax/values holds a p-value outside [0, 1]");
}

}  // namespace

SkeletonState read_checkpoint(const CheckpointFormat& format, const std::string& path, const std::string& config_hash,
                              std::int64_t n_vars, const io::CheckpointSettings& settings) {
    const CheckpointFile file = CheckpointFile::open(path, format, config_hash, settings);
    SkeletonState s;
    file.read([&](hid_t root) {
        const std::string& where = file.where();
        const auto n = h5::read_array<std::int64_t>(root, "state/n_vars", where);
        const auto next = h5::read_array<std::int64_t>(root, "state/next_level", where);
        if (n.size() != 1 || n[0] != n_vars || next.size() != 1)
            throw file.corrupt("/state does not describe a search on " + std::to_string(n_vars) + " variables");
        if (next[0] < 1 || next[0] > n_vars)
            throw file.corrupt("/state/next_level = " + std::to_string(next[0]) + " is not within [1, " +
                               std::to_string(n_vars) + "]");
        s.next_level = static_cast<int>(next[0]);
        s.skeleton = layout::read_skeleton(root, n_vars, where);
        s.sepsets = layout::read_sepsets(root, n_vars, where);
        {
            h5::Handle g = h5::check_id(H5Gopen2(root, "pmax", H5P_DEFAULT), where + ": no /pmax");
            s.pmax = layout::read_pmax_pairs(g.get(), n_vars, where);
        }
        s.levels = layout::read_levels(root, where);
        check_state(s, n_vars, file);
    });
    return s;
}

}  // namespace cudag::skeleton
