// SPDX-License-Identifier: Apache-2.0
#include "ci/batch.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/interrupt.hpp"
#include "core/parallel.hpp"

namespace cudag::ci {

Queries Queries::slice(std::size_t begin, std::size_t end) const {
    const auto nb = static_cast<std::size_t>(offsets[begin] - offsets[0]);
    const auto ne = static_cast<std::size_t>(offsets[end] - offsets[0]);
    return {x.subspan(begin, end - begin), y.subspan(begin, end - begin), offsets.subspan(begin, end - begin + 1),
            nodes.subspan(nb, ne - nb)};
}

void throw_not_finite(const std::string& test, std::int32_t x, std::int32_t y, double statistic, double p,
                      const std::vector<std::string>& names) {
    const auto name = [&](std::int32_t v) {
        return v >= 0 && static_cast<std::size_t>(v) < names.size() ? "'" + names[static_cast<std::size_t>(v)] + "'"
                                                                    : "variable " + std::to_string(v);
    };
    throw InputError("the " + test + " test of " + name(x) + " and " + name(y) + " gave statistic " +
                     exact_number(statistic) + ", p " + exact_number(p) +
                     ": not a result (a column without variance among them?)");
}

CpuBatchTest::CpuBatchTest(Factory make, int threads, std::vector<std::string> names)
    : make_(std::move(make)), threads_(threads < 1 ? 1 : threads), names_(std::move(names)) {
    workers_.resize(static_cast<std::size_t>(threads_));
}

CiTest& CpuBatchTest::worker(int w) {
    auto& t = workers_[static_cast<std::size_t>(w)];
    if (!t) t = make_();
    return *t;
}

void CpuBatchTest::make_workers(int n) {
    for (int w = 0; w < std::min(n, threads_); ++w) worker(w);
}

std::string CpuBatchTest::name() const { return const_cast<CpuBatchTest*>(this)->worker(0).name(); }

std::string CpuBatchTest::where() const {
    return "the CPU (" + std::to_string(threads_) + (threads_ == 1 ? " thread)" : " threads)");
}

void CpuBatchTest::run(const Queries& q, std::span<double> statistic, std::span<double> p) {
    const auto n = static_cast<std::int64_t>(q.size());
    if (n == 0) return;
    const int used = static_cast<int>(std::min<std::int64_t>(threads_, n));
    make_workers(used);
    parallel_for(0, n, used, 16, [&](std::int64_t i, int w) {
        // Ctrl-C in a binding (core/interrupt.hpp): looked at on the caller's thread; the other
        // workers skip what is left once the run is ending (its answers are never used).
        interrupt::poll();
        if (interrupt::stop_requested()) return;
        const auto k = static_cast<std::size_t>(i);
        const CiOutcome o = workers_[static_cast<std::size_t>(w)]->test(q.x[k], q.y[k], q.set(k));
        if (!is_result(o.statistic, o.p)) throw_not_finite(worker(0).name(), q.x[k], q.y[k], o.statistic, o.p, names_);
        statistic[k] = o.statistic;
        p[k] = o.p;
    });
}

}  // namespace cudag::ci
