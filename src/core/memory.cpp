// SPDX-License-Identifier: Apache-2.0
#include "core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace cudag {

namespace {

/// The first integer in file `path`, or -1 ("max" and unreadable files give -1).
std::int64_t read_number(const char* path) {
    std::ifstream f(path);
    std::string word;
    if (!(f >> word) || word.empty() || word[0] < '0' || word[0] > '9') return -1;
    return std::stoll(word);
}

}  // namespace

std::int64_t detail::cgroup_room(const std::string& proc_self_cgroup, const std::string& root) {
    std::int64_t best = -1;
    const auto take = [&best](std::int64_t max, std::int64_t used) {
        // No limit: "max" (v2), or a value near 2^63 (v1).
        if (max <= 0 || max >= (std::int64_t{1} << 60) || used < 0) return;
        const std::int64_t room = std::max<std::int64_t>(0, max - used);
        best = best < 0 ? room : std::min(best, room);
    };
    std::istringstream lines(proc_self_cgroup);
    std::string line;
    while (std::getline(lines, line)) {
        // "0::/path" (v2) or "N:memory:/path" (v1; controllers may be listed together).
        const std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1);
        const bool v2 = line.compare(0, a, "0") == 0 && controllers.empty();
        bool v1 = false;
        for (std::size_t at = 0; at <= controllers.size();) {
            const std::size_t end = std::min(controllers.find(',', at), controllers.size());
            v1 = v1 || controllers.compare(at, end - at, "memory") == 0;
            at = end + 1;
        }
        if (!v2 && !v1) continue;
        const std::string base = root + (v2 ? "" : "/memory");
        const char* max_file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
        const char* used_file = v2 ? "/memory.current" : "/memory.usage_in_bytes";
        // The group and each group above it (a SLURM job's step, its job, its user...); where
        // the group is not visible (another cgroup namespace), only the root is read.
        for (std::string path = line.substr(b + 1);;) {
            while (!path.empty() && path.back() == '/') path.pop_back();
            take(read_number((base + path + max_file).c_str()), read_number((base + path + used_file).c_str()));
            if (path.empty()) break;
            path.resize(path.rfind('/'));
        }
    }
    return best;
}

std::int64_t available_host_bytes() {
    // Hidden, for tests of the refusals: the available memory instead of the machine's
    // (smaller, for a refusal; or larger, for an allocation that fails after the plan).
    if (const char* v = std::getenv("CUDAG_TEST_AVAILABLE_BYTES"); v && *v)
        return std::max<std::int64_t>(0, std::atoll(v));
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    {
        std::ifstream f("/proc/meminfo");
        std::string key, unit;
        std::int64_t kb = 0;
        while (f >> key >> kb) {
            std::getline(f, unit);
            if (key == "MemAvailable:") {
                best = std::min(best, kb * 1024);
                break;
            }
        }
    }
    // Containers and SLURM jobs: the least of each cgroup's limit (this process's group
    // and those above it), less what the group already uses.
    {
        std::ifstream f("/proc/self/cgroup");
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        const std::int64_t room = detail::cgroup_room(text.empty() ? "0::/\n" : text, "/sys/fs/cgroup");
        if (room >= 0) best = std::min(best, room);
    }
    // An address-space limit (ulimit -v) counts what this process has mapped already: its
    // libraries, thread stacks and arenas, the data it read.
    rlimit rl{};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        std::int64_t mapped_pages = 0;
        std::ifstream("/proc/self/statm") >> mapped_pages;
        const std::int64_t mapped = std::max<std::int64_t>(0, mapped_pages) * ::sysconf(_SC_PAGE_SIZE);
        best = std::min(best, std::max<std::int64_t>(0, static_cast<std::int64_t>(rl.rlim_cur) - mapped));
    }
    if (best == std::numeric_limits<std::int64_t>::max()) {
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        best = pages > 0 && page > 0 ? static_cast<std::int64_t>(pages) * page : best;
    }
    return best;
}

std::string format_bytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        ++u;
    }
    char buf[48];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    else
        std::snprintf(buf, sizeof buf, bytes < 10 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

void require_host_memory(double needed, const std::string& what, const std::string& detail, const std::string& hint) {
    const std::int64_t free = available_host_bytes();
    if (needed <= static_cast<double>(free)) return;
    std::ostringstream os;
    os << what << " needs about " << format_bytes(needed) << " of host memory";
    if (!detail.empty()) os << " (" << detail << ")";
    os << "; this machine has " << format_bytes(static_cast<double>(free)) << " available";
    if (!hint.empty()) os << "; " << hint;
    throw OutOfMemory(os.str());
}

void MemoryPlan::add(std::string what, double bytes, std::string lower) {
    if (bytes > 0.0) parts_.push_back({std::move(what), bytes, std::move(lower)});
}

double MemoryPlan::total() const {
    double sum = 0.0;
    for (const Part& p : parts_) sum += p.bytes;
    return sum;
}

double MemoryPlan::needed() const { return total() * (1.0 + kMarginFraction) + kMarginBytes; }

std::string MemoryPlan::describe() const {
    std::string s;
    for (const Part& p : parts_) s += (s.empty() ? "" : ", ") + p.what + " " + format_bytes(p.bytes);
    return s;
}

void MemoryPlan::require(const std::string& run, double available) const {
    if (available < 0.0) available = static_cast<double>(available_host_bytes());
    if (needed() <= available) return;
    // The largest part that an option makes smaller names what to lower.
    const Part* largest = nullptr;
    for (const Part& p : parts_)
        if (!p.lower.empty() && (!largest || p.bytes > largest->bytes)) largest = &p;
    std::ostringstream os;
    os << run << " needs about " << format_bytes(needed()) << " of host memory (" << describe() << ", and "
       << static_cast<int>(kMarginFraction * 100.0) << "% + " << format_bytes(kMarginBytes)
       << " for the rest); this machine has " << format_bytes(available) << " available";
    if (largest) os << "; " << largest->lower;
    throw OutOfMemory(os.str());
}

void set_memory_plan(const MemoryPlan& plan, double available) {
    if (available < 0.0) available = static_cast<double>(available_host_bytes());
    set_memory_plan_note("the run's memory plan: about " + format_bytes(plan.needed()) + ", with " +
                         format_bytes(available) + " available when it began");
}

std::int64_t peak_resident_bytes() {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return static_cast<std::int64_t>(u.ru_maxrss) * 1024;  // Linux: KiB
}

std::int64_t restart_peak_resident() {
    const std::int64_t before = peak_resident_bytes();
    std::ofstream("/proc/self/clear_refs") << "5";
    return before;
}

double process_age_seconds() {
    std::ifstream stat("/proc/self/stat");
    std::string line;
    if (!std::getline(stat, line)) return -1.0;
    const std::size_t close = line.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos || close + 2 >= line.size()) return -1.0;
    std::istringstream fields(line.substr(close + 2));
    std::string skip;
    for (int field = 3; field < 22; ++field) fields >> skip;  // state .. itrealvalue
    unsigned long long start_ticks = 0;
    double uptime = 0.0;
    std::ifstream("/proc/uptime") >> uptime;
    const long hz = sysconf(_SC_CLK_TCK);
    if (!(fields >> start_ticks) || uptime <= 0.0 || hz <= 0) return -1.0;
    return std::max(0.0, uptime - static_cast<double>(start_ticks) / static_cast<double>(hz));
}

}  // namespace cudag
