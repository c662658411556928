// SPDX-License-Identifier: Apache-2.0
#include "core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
    // Containers and SLURM jobs: the cgroup's limit, less what the group already uses.
    const std::int64_t v2_max = read_number("/sys/fs/cgroup/memory.max");
    const std::int64_t v2_cur = read_number("/sys/fs/cgroup/memory.current");
    if (v2_max > 0 && v2_cur >= 0) best = std::min(best, std::max<std::int64_t>(0, v2_max - v2_cur));
    const std::int64_t v1_max = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    const std::int64_t v1_cur = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    if (v1_max > 0 && v1_max < (std::int64_t{1} << 60) && v1_cur >= 0)
        best = std::min(best, std::max<std::int64_t>(0, v1_max - v1_cur));
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

void set_memory_plan(const MemoryPlan& plan) {
    set_memory_plan_note("the run's memory plan: about " + format_bytes(plan.needed()) + ", with " +
                         format_bytes(static_cast<double>(available_host_bytes())) + " available when it began");
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
