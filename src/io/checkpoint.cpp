// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint.hpp"

#include <vector>

#include "core/error.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/result_layout.hpp"

namespace cudag::io {

namespace {

constexpr CheckpointFormat pc_format{pc_checkpoint_format, "PC"};

/// /state/{next_level, n_vars} and /skeleton.
void write_state(hid_t root, const pc::SkeletonState& s, const std::string& where) {
    {
        h5::Handle g = h5::create_group(root, "state", where);
        h5::write_array(g.get(), "next_level", std::vector<std::int64_t>{s.next_level}, {1}, where);
        h5::write_array(g.get(), "n_vars", std::vector<std::int64_t>{s.skeleton.n()}, {1}, where);
    }
    layout::write_skeleton(root, s.skeleton, where);
}

}  // namespace

void write_checkpoint(const pc::SkeletonState& s, const std::string& config_hash,
                      const std::string& path) {
    CheckpointFile file = CheckpointFile::create(path, pc_format, config_hash);
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

void write_checkpoint(const pc::SkeletonState& s, const std::string& config_hash,
                      const std::string& path, mpi::Communicator& comm) {
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
    write_checkpoint_in_parts(path, pc_format, config_hash, comm, head,
                              [&](hid_t file, hid_t xfer, const std::string& where) {
                                  layout::write_records_part(file, s.sepsets, s.pmax, parts, xfer, where);
                              });
}

pc::SkeletonState read_checkpoint(const std::string& path, const std::string& config_hash,
                                  std::int64_t n_vars) {
    const CheckpointFile file = CheckpointFile::open(path, pc_format, config_hash);
    const hid_t root = file.root();
    const std::string& where = file.where();
    const auto n = h5::read_array<std::int64_t>(root, "state/n_vars", where);
    const auto next = h5::read_array<std::int64_t>(root, "state/next_level", where);
    if (n.size() != 1 || n[0] != n_vars || next.size() != 1 || next[0] < 1)
        throw InputError(where + ": /state does not describe this run");
    pc::SkeletonState s;
    s.next_level = static_cast<int>(next[0]);
    s.skeleton = layout::read_skeleton(root, n_vars, where);
    s.sepsets = layout::read_sepsets(root, n_vars, where);
    {
        h5::Handle g = h5::check_id(H5Gopen2(root, "pmax", H5P_DEFAULT), where + ": no /pmax");
        s.pmax = layout::read_pmax_pairs(g.get(), n_vars, where);
    }
    s.levels = layout::read_levels(root, where);
    return s;
}

}  // namespace cudag::io
