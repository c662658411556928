// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint_file.hpp"

#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "cudag/config.hpp"
#include "io/output_set.hpp"

namespace cudag::io {

CheckpointFile::CheckpointFile(CheckpointFile&&) noexcept = default;
CheckpointFile& CheckpointFile::operator=(CheckpointFile&&) noexcept = default;
CheckpointFile::~CheckpointFile() = default;

CheckpointFile CheckpointFile::create(const std::string& path, const CheckpointFormat& format,
                                      const std::string& config_hash) {
    CheckpointFile f;
    f.out_ = std::make_unique<OutputSet>();
    const std::string tmp = f.out_->temp_for(path);
    f.temp_ = tmp;
    f.where_ = "cannot write checkpoint '" + path + "'";
    f.file_ = h5::create_file(tmp);
    const hid_t root = f.file_.get();
    h5::write_string_attr(root, "format", format.name, f.where_);
    h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, f.where_);
    h5::write_string_attr(root, "config_hash", config_hash, f.where_);
    return f;
}

CheckpointFile CheckpointFile::open(const std::string& path, const CheckpointFormat& format,
                                    const std::string& config_hash) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw InputError("--resume: checkpoint '" + path + "' does not exist");
    CheckpointFile f;
    f.where_ = "checkpoint '" + path + "'";
    const std::string& where = f.where_;
    f.file_ = h5::open_file(path);
    const hid_t root = f.file_.get();
    if (!h5::has_attr(root, "format") ||
        h5::read_string_attr(root, "format", where) != std::vector<std::string>{format.name})
        throw InputError(where + " is not a cudag " + format.learner + " checkpoint (" +
                         format.name + ")");
    const auto hash = h5::read_string_attr(root, "config_hash", where);
    if (hash.size() != 1 || hash[0] != config_hash)
        throw InputError(where + " was written for other data or options (config hash " +
                         (hash.empty() ? std::string("?") : hash[0]) + ", this run " + config_hash +
                         "); drop --resume to start afresh");
    return f;
}

std::string CheckpointFile::close_for_parts() {
    CUDAG_ASSERT(out_ != nullptr && file_.valid());
    h5::check(H5Fflush(file_.get(), H5F_SCOPE_LOCAL), where_);
    file_.reset();
    return temp_;
}

void CheckpointFile::commit() {
    CUDAG_ASSERT(out_ != nullptr);
    if (file_.valid()) {
        h5::check(H5Fflush(file_.get(), H5F_SCOPE_LOCAL), where_);
        file_.reset();
    }
    out_->commit();
}

}  // namespace cudag::io
