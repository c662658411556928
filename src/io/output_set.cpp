// SPDX-License-Identifier: Apache-2.0
#include "io/output_set.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "core/error.hpp"

namespace cudag::io {

namespace fs = std::filesystem;

OutputSet::~OutputSet() {
    for (const Entry& e : entries_) {
        if (e.done) continue;
        std::error_code ec;
        fs::remove(e.temp_path, ec);  // best effort: a destructor must not throw
    }
}

std::string OutputSet::temp_for(const std::string& final_path) {
    for (const Entry& e : entries_)
        if (e.final_path == final_path && !e.done) return e.temp_path;
    if (final_path.empty()) throw InputError("empty output file name");

    const fs::path p(final_path);
    const fs::path dir = p.parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec))
        throw InputError("cannot write '" + final_path + "': directory '" + dir.string() +
                         "' does not exist");
    if (fs::is_directory(p, ec))
        throw InputError("cannot write '" + final_path + "': it is a directory");
    if (!p.has_filename()) throw InputError("cannot write '" + final_path + "': not a file name");

    std::string name(1, '.');
    name.append(p.filename().string())
        .append(".tmp.")
        .append(std::to_string(static_cast<long>(::getpid())));
    const std::string temp = dir.empty() ? name : (dir / name).string();
    entries_.push_back({final_path, temp, false});
    committed_ = false;
    return temp;
}

void OutputSet::discard(const std::string& final_path) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->final_path != final_path || it->done) continue;
        std::error_code ec;
        fs::remove(it->temp_path, ec);
        entries_.erase(it);
        return;
    }
}

void OutputSet::commit() {
    for (Entry& e : entries_) {
        if (e.done) continue;
        std::error_code ec;
        if (!fs::exists(e.temp_path, ec))
            throw InputError("cannot write '" + e.final_path + "': its temporary file '" +
                             e.temp_path + "' was never written");
        fs::rename(e.temp_path, e.final_path, ec);
        if (ec)
            throw InputError("cannot write '" + e.final_path + "': rename from '" + e.temp_path +
                             "' failed: " + ec.message());
        e.done = true;
    }
    committed_ = true;
}

std::vector<std::string> OutputSet::final_paths() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const Entry& e : entries_) out.push_back(e.final_path);
    return out;
}

}  // namespace cudag::io
