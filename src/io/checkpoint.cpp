// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_file.hpp"
#include "io/output_set.hpp"
#include "io/result_layout.hpp"

namespace cudag::io {

void write_checkpoint(const pc::SkeletonState& s, const std::string& config_hash,
                      const std::string& path) {
    OutputSet out;
    const std::string tmp = out.temp_for(path);
    const std::string where = "cannot write checkpoint '" + path + "'";
    {
        h5::Handle file = h5::create_file(tmp);
        const hid_t root = file.get();
        h5::write_string_attr(root, "format", pc_checkpoint_format, where);
        h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, where);
        h5::write_string_attr(root, "config_hash", config_hash, where);
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
        h5::check(H5Fflush(root, H5F_SCOPE_LOCAL), where);
    }
    out.commit();
}

pc::SkeletonState read_checkpoint(const std::string& path, const std::string& config_hash,
                                  std::int64_t n_vars) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError("--resume: checkpoint '" + path + "' does not exist");
    const std::string where = "checkpoint '" + path + "'";
    h5::Handle file = h5::open_file(path);
    const hid_t root = file.get();
    if (!h5::has_attr(root, "format") ||
        h5::read_string_attr(root, "format", where) != std::vector<std::string>{pc_checkpoint_format})
        throw InputError(where + " is not a cudag PC checkpoint (" + pc_checkpoint_format + ")");
    const auto hash = h5::read_string_attr(root, "config_hash", where);
    if (hash.size() != 1 || hash[0] != config_hash)
        throw InputError(where + " was written for other data or options (config hash " +
                         (hash.empty() ? std::string("?") : hash[0]) + ", this run " + config_hash +
                         "); drop --resume to start afresh");
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
