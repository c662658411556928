// SPDX-License-Identifier: Apache-2.0
#include "io/output_set.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <utility>
#include <system_error>

#include "core/error.hpp"
#include "core/interrupt.hpp"

namespace cudag::io {

namespace fs = std::filesystem;

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/// Remove ".<name>.tmp.<pid>..." files in `dir` whose process no longer exists.
void remove_stale_temporaries(const std::string& dir, const std::string& name) {
    const std::string prefix = "." + name + ".tmp.";
    DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
    if (!d) return;
    const long self = static_cast<long>(::getpid());
    std::vector<std::string> stale;
    while (const dirent* e = ::readdir(d)) {
        const std::string entry = e->d_name;
        if (entry.compare(0, prefix.size(), prefix) != 0) continue;
        std::size_t k = prefix.size();
        long pid = 0;
        while (k < entry.size() && entry[k] >= '0' && entry[k] <= '9' && pid < (1L << 40))
            pid = pid * 10 + (entry[k++] - '0');
        if (k == prefix.size() || pid <= 0 || pid == self) continue;
        if (k < entry.size() && entry[k] != '.') continue;                        // ".tmp.<pid>" or ".tmp.<pid>.<more>"
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive
        stale.push_back(dir.empty() ? entry : dir + "/" + entry);
    }
    ::closedir(d);
    for (const std::string& s : stale) ::unlink(s.c_str());
}

/// Every temporary handed out in this process and the output it stands for, kept after
/// the temporary is gone: an error about it reaches main() after the OutputSet removed it.
std::mutex final_names_mutex;
std::vector<std::pair<std::string, std::string>>& final_names() {
    static std::vector<std::pair<std::string, std::string>> names;
    return names;
}

void remember_final_name(const std::string& temp, const std::string& final_path) {
    const std::lock_guard<std::mutex> lock(final_names_mutex);
    auto& names = final_names();
    for (auto& [t, f] : names)
        if (t == temp) {
            f = final_path;
            return;
        }
    names.emplace_back(temp, final_path);
}

}  // namespace

std::string with_final_names(std::string message) {
    const std::lock_guard<std::mutex> lock(final_names_mutex);
    auto names = final_names();
    // Longest first, so that no temporary is replaced inside a longer one.
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    for (const auto& [temp, final_path] : names)
        for (std::size_t at = message.find(temp); at != std::string::npos;
             at = message.find(temp, at + final_path.size()))
            message.replace(at, temp.size(), final_path);
    return message;
}

std::string output_target(const std::string& path) {
    if (path.empty()) throw InputError("empty output file name");
    // Whatever the links lead to (/dev/stdout leads to a pipe or terminal through /proc).
    struct stat final_st {};
    if (::stat(path.c_str(), &final_st) == 0 && !S_ISREG(final_st.st_mode)) {
        struct stat link_st {};
        const bool link = ::lstat(path.c_str(), &link_st) == 0 && S_ISLNK(link_st.st_mode);
        throw InputError("cannot write '" + path + "': it " + (link ? "leads to " : "is ") + kind_of(final_st.st_mode));
    }
    fs::path p(path);
    for (int hops = 0;; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0) break;  // does not exist: a new file
        if (!S_ISLNK(st.st_mode)) {
            if (!S_ISREG(st.st_mode))
                throw InputError(
                    "cannot write '" + path +
                    "': " + (p.string() == path ? std::string("it is ") : "its link target '" + p.string() + "' is ") +
                    kind_of(st.st_mode));
            break;
        }
        if (hops >= 40) throw InputError("cannot write '" + path + "': too many levels of symbolic links");
        std::error_code ec;
        const fs::path link = fs::read_symlink(p, ec);
        if (ec) throw InputError("cannot write '" + path + "': " + ec.message());
        p = link.is_absolute() ? link : p.parent_path() / link;
    }
    return p.string();
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    std::error_code ea, eb;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    if (ea || eb) return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
    return ca == cb;
}

void check_new_files(const std::vector<NamedPath>& files, bool overwrite) {
    if (overwrite) return;
    for (const NamedPath& f : files) {
        if (f.path.empty() || f.path == "-") continue;
        struct stat st {};
        if (::lstat(f.path.c_str(), &st) != 0) continue;
        throw InputError(f.option + " '" + f.path + "' exists: add --overwrite to replace it, or choose another name");
    }
}

bool draws(const std::vector<std::string>& formats) {
    return std::any_of(formats.begin(), formats.end(), [](const std::string& f) { return f == "png" || f == "svg"; });
}

void check_force(bool force, const std::vector<std::string>& formats) {
    if (force && !draws(formats))
        throw InputError("--force applies to --format png/svg only (drawing more than 500 variables); drop it");
}

void check_distinct(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
    auto skip = [](const NamedPath& p) { return p.path.empty() || p.path == "-"; };
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        const NamedPath& out = outputs[o];
        if (skip(out)) continue;
        for (const NamedPath& in : inputs) {
            if (skip(in) || !same_file(in.path, out.path)) continue;
            throw InputError(out.option + " '" + out.path + "' is the input " + in.option + " '" + in.path +
                             "': refusing to overwrite it; choose another output name");
        }
        for (std::size_t q = 0; q < o; ++q) {
            if (skip(outputs[q]) || !same_file(outputs[q].path, out.path)) continue;
            throw InputError(outputs[q].option + " '" + outputs[q].path + "' and " + out.option + " '" + out.path +
                             "' are the same file; give them different names");
        }
    }
}

OutputSet::~OutputSet() {
    for (const Entry& e : entries_) {
        if (e.done) continue;
        std::error_code ec;
        fs::remove(e.temp_path, ec);  // best effort: a destructor must not throw
        interrupt::forget_temporary(e.temp_path);
    }
}

std::string OutputSet::temp_for(const std::string& final_path) {
    for (const Entry& e : entries_)
        if (e.final_path == final_path && !e.done) return e.temp_path;
    if (final_path == "-") throw InputError("'-' (standard output) is not a file name here; name an output file");
    const std::string target = output_target(final_path);

    const fs::path p(target);
    const fs::path dir = p.parent_path();
    std::error_code ec;
    if (!dir.empty() && !fs::is_directory(dir, ec))
        throw InputError("cannot write '" + final_path + "': directory '" + dir.string() + "' does not exist");
    if (!p.has_filename()) throw InputError("cannot write '" + final_path + "': not a file name");

    const std::string fname = p.filename().string();
    remove_stale_temporaries(dir.string(), fname);
    std::string name(1, '.');
    name.append(fname).append(".tmp.").append(std::to_string(static_cast<long>(::getpid())));
    const std::string temp = dir.empty() ? name : (dir / name).string();

    // Prove the directory writable now, before the work: create and remove the temporary.
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        const std::string why = std::strerror(errno);
        throw InputError("cannot write '" + final_path + "': " + why + " (directory '" +
                         (dir.empty() ? std::string(".") : dir.string()) + "')");
    }
    ::close(fd);
    ::unlink(temp.c_str());

    interrupt::add_temporary(temp);
    remember_final_name(temp, final_path);
    entries_.push_back({final_path, target, temp, false});
    committed_ = false;
    return temp;
}

void OutputSet::discard(const std::string& final_path) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->final_path != final_path || it->done) continue;
        std::error_code ec;
        fs::remove(it->temp_path, ec);
        interrupt::forget_temporary(it->temp_path);
        entries_.erase(it);
        return;
    }
}

void OutputSet::commit() {
    for (Entry& e : entries_) {
        if (e.done) continue;
        std::error_code ec;
        if (!fs::exists(e.temp_path, ec))
            throw InputError("cannot write '" + e.final_path + "': its temporary file '" + e.temp_path +
                             "' was never written");
        fs::rename(e.temp_path, e.target, ec);
        if (ec)
            throw InputError("cannot write '" + e.final_path + "': rename from '" + e.temp_path +
                             "' failed: " + ec.message());
        interrupt::forget_temporary(e.temp_path);
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
