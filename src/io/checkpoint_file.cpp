// SPDX-License-Identifier: Apache-2.0
#include "io/checkpoint_file.hpp"

#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "cudag/config.hpp"
#include "io/hdf5_mpio.hpp"
#include "io/output_set.hpp"

namespace cudag::io {

CheckpointFile::CheckpointFile(CheckpointFile&&) noexcept = default;
CheckpointFile& CheckpointFile::operator=(CheckpointFile&&) noexcept = default;
CheckpointFile::~CheckpointFile() = default;

void check_checkpoint_start(const std::string& path, bool resume, bool overwrite,
                            const std::vector<std::string>& side_files) {
    if (resume && overwrite)
        throw InputError("--resume continues --checkpoint and --overwrite-checkpoint replaces it: give one");
    std::error_code ec;
    if (!resume && !overwrite && std::filesystem::exists(path, ec))
        throw InputError("checkpoint '" + path +
                         "' exists: add --resume to continue it, or remove it (or --overwrite-checkpoint)");
    for (const std::string& side : side_files) {
        const std::string what = "'" + side + "' (a file cudag writes beside --checkpoint '" + path + "')";
        const auto st = std::filesystem::symlink_status(side, ec);
        if (ec || !std::filesystem::exists(st)) continue;
        if (std::filesystem::is_symlink(st))
            throw InputError(what + " is a symbolic link: cudag writes no side file through a link; remove it");
        if (!std::filesystem::is_regular_file(st))
            throw InputError(what + " is not a regular file: remove it, or give another --checkpoint");
        if (!resume && !overwrite)
            throw InputError(what +
                             " exists: add --resume to continue the checkpoint it belongs to, "
                             "--overwrite-checkpoint to replace both, or remove it");
    }
}

CheckpointFile CheckpointFile::create(const std::string& path, const CheckpointFormat& format,
                                      const std::string& config_hash, const CheckpointSettings& settings) {
    CheckpointFile f;
    f.out_ = std::make_unique<OutputSet>();
    f.checksums_ = std::make_unique<h5::ChecksummedWrites>();
    const std::string tmp = f.out_->temp_for(path);
    f.temp_ = tmp;
    f.path_ = path;
    f.where_ = "cannot write checkpoint '" + path + "'";
    f.file_ = h5::create_file(tmp);
    const hid_t root = f.file_.get();
    h5::write_string_attr(root, "format", format.name, f.where_);
    h5::write_string_attr(root, "cudag_version", CUDAG_VERSION, f.where_);
    h5::write_string_attr(root, "config_hash", config_hash, f.where_);
    if (!settings.empty()) {
        std::vector<std::string> names, values;
        for (const CheckpointSetting& x : settings) names.push_back(x.name), values.push_back(x.value);
        h5::write_string_array_attr(root, "setting_names", names, f.where_);
        h5::write_string_array_attr(root, "setting_values", values, f.where_);
    }
    return f;
}

CheckpointFile CheckpointFile::open(const std::string& path, const CheckpointFormat& format,
                                    const std::string& config_hash, const CheckpointSettings& settings) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw InputError("--resume: checkpoint '" + path + "' does not exist");
    CheckpointFile f;
    f.where_ = "checkpoint '" + path + "'";
    f.path_ = path;
    const std::string& where = f.where_;
    f.file_ = h5::open_file(path);
    const hid_t root = f.file_.get();
    if (!h5::has_attr(root, "format") ||
        h5::read_string_attr(root, "format", where) != std::vector<std::string>{format.name})
        throw InputError(where + " is not a cudag " + format.learner + " checkpoint (" + format.name + ")");
    const auto hash = h5::read_string_attr(root, "config_hash", where);
    if ((hash.size() != 1 || hash[0] != config_hash) && h5::has_attr(root, "setting_names") &&
        h5::has_attr(root, "setting_values")) {
        const auto names = h5::read_string_attr(root, "setting_names", where);
        const auto values = h5::read_string_attr(root, "setting_values", where);
        for (const CheckpointSetting& now : settings)
            for (std::size_t k = 0; k < names.size() && k < values.size(); ++k) {
                if (names[k] != now.name || values[k] == now.value) continue;
                if (now.name == kCheckpointCommand)
                    throw InputError(where + " was written by " + values[k] + ", not " + now.value +
                                     ": resume it with that command, or drop --resume to start afresh");
                const bool option = now.name.rfind("-", 0) == 0;
                throw InputError(where + " was written for other " + (option ? "options: " : "data or options: ") +
                                 now.name +
                                 (option ? " was " + values[k] + " in the checkpoint, " + now.value + " now"
                                         : " differ from the checkpoint's") +
                                 "; give the checkpoint's, or drop --resume to start afresh");
            }
    }
    if (hash.size() != 1 || hash[0] != config_hash)
        throw InputError(where + " was written for other data or options (config hash " +
                         (hash.empty() ? std::string("?") : hash[0]) + ", this run " + config_hash +
                         "); drop --resume to start afresh");
    return f;
}

void CheckpointFile::read(const std::function<void(hid_t)>& read) const {
    try {
        read(root());
    } catch (const CorruptCheckpoint&) {
        throw;
    } catch (const InputError& e) {
        // "checkpoint 'X': cannot read dataset ...: <HDF5's reason>" -> "... is corrupt: cannot read ..."
        std::string what = e.what();
        if (what.rfind(where_ + ": ", 0) == 0) what.erase(0, where_.size() + 2);
        throw corrupt(what);
    }
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

void write_checkpoint_in_parts(const std::string& path, const CheckpointFormat& format, const std::string& config_hash,
                               mpi::Communicator& comm, const std::function<void(hid_t, const std::string&)>& head,
                               const std::function<void(hid_t, hid_t, const std::string&)>& part,
                               const CheckpointSettings& settings) {
    std::unique_ptr<CheckpointFile> file;
    std::vector<std::byte> temp;  // the temporary's name, from rank 0
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        file = std::make_unique<CheckpointFile>(CheckpointFile::create(path, format, config_hash, settings));
        head(file->root(), file->where());
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
        part(f.get(), xfer.get(), where);
    });
    // Every rank has written and closed its handles: rank 0 renames.
    mpi::run_agreed(comm, [&] {
        if (file) file->commit();
    });
}

}  // namespace cudag::io
