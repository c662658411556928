// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint.hpp"

#include <memory>
#include <vector>

#include "core/error.hpp"
#include "io/checkpoint_file.hpp"
#include "io/hdf5_file.hpp"
#include "io/hdf5_mpio.hpp"
#include "io/result_layout.hpp"

namespace cudag::io {

namespace {

constexpr CheckpointFormat pc_format{pc_checkpoint_format, "PC"};

}  // namespace

void write_checkpoint(const pc::SkeletonState& s, const std::string& config_hash,
                      const std::string& path) {
    CheckpointFile file = CheckpointFile::create(path, pc_format, config_hash);
    const hid_t root = file.root();
    const std::string& where = file.where();
    {
        h5::Handle g = h5::create_group(root, "state", where);
        h5::write_array(g.get(), "next_level", std::vector<std::int64_t>{s.next_level}, {1}, where);
        h5::write_array(g.get(), "n_vars", std::vector<std::int64_t>{s.skeleton.n()}, {1}, where);
    }
    layout::write_skeleton(root, s.skeleton, where);
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
    std::unique_ptr<CheckpointFile> file;
    std::vector<std::byte> temp;  // the temporary's name, from rank 0
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        file = std::make_unique<CheckpointFile>(CheckpointFile::create(path, pc_format, config_hash));
        const hid_t root = file->root();
        const std::string& where = file->where();
        {
            h5::Handle g = h5::create_group(root, "state", where);
            h5::write_array(g.get(), "next_level", std::vector<std::int64_t>{s.next_level}, {1}, where);
            h5::write_array(g.get(), "n_vars", std::vector<std::int64_t>{s.skeleton.n()}, {1}, where);
        }
        layout::write_skeleton(root, s.skeleton, where);
        layout::create_sepsets(root, parts, where);
        {
            h5::Handle g = h5::create_group(root, "pmax", where);
            layout::create_pmax_pairs(g.get(), parts, where);
        }
        layout::write_levels(root, s.levels, where);
        const std::string name = file->close_for_parts();
        temp.assign(reinterpret_cast<const std::byte*>(name.data()),
                    reinterpret_cast<const std::byte*>(name.data() + name.size()));
    });
    comm.bcast_blob(temp, 0);
    const std::string tmp(reinterpret_cast<const char*>(temp.data()), temp.size());
    const std::string where = "cannot write checkpoint '" + path + "'";
    mpi::run_agreed(comm, [&] {
        h5::Handle f = h5::open_file_mpio(tmp, true);
        h5::Handle xfer = h5::collective_transfer();
        layout::write_records_part(f.get(), s.sepsets, s.pmax, parts, xfer.get(), where);
    });
    // Every rank has written and closed: rank 0 renames.
    mpi::run_agreed(comm, [&] {
        if (file) file->commit();
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
