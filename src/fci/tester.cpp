// SPDX-License-Identifier: Apache-2.0
#include "fci/tester.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::fci {

Tester::Tester(Factory make, int threads, ci::Decision decision)
    : make_(std::move(make)), threads_(threads < 1 ? 1 : threads), decision_(decision) {
    workers_.resize(static_cast<std::size_t>(threads_));
}

ci::CiTest& Tester::worker(int w) {
    auto& t = workers_[static_cast<std::size_t>(w)];
    if (!t) t = make_();
    return *t;
}

namespace {
double checked(double p, std::int32_t x, std::int32_t y) {
    if (!std::isfinite(p))
        throw InputError("fci: the test of variables " + std::to_string(x) + " and " + std::to_string(y) +
                         " gave a non-finite p-value");
    return p;
}
}  // namespace

double Tester::p_value(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    ++tests_;
    return checked(worker(0).test(x, y, s).p, x, y);
}

void Tester::p_values(const TestBatch& batch, std::span<double> out) {
    const auto n = static_cast<std::int64_t>(batch.size());
    if (n == 0) return;
    // Make the workers first (their construction is not thread-safe against each other).
    const int used = static_cast<int>(std::min<std::int64_t>(threads_, n));
    for (int w = 0; w < used; ++w) worker(w);
    parallel_for(0, n, used, 16, [&](std::int64_t q, int w) {
        const auto k = static_cast<std::size_t>(q);
        out[k] = checked(workers_[static_cast<std::size_t>(w)]->test(batch.x[k], batch.y[k], batch.set(k)).p,
                         batch.x[k], batch.y[k]);
    });
    tests_ += n;
}

void Tester::each(std::int64_t n, const std::function<void(std::int64_t, ci::CiTest&)>& fn) {
    if (n <= 0) return;
    const int used = static_cast<int>(std::min<std::int64_t>(threads_, n));
    for (int w = 0; w < used; ++w) worker(w);
    parallel_for(0, n, used, 1, [&](std::int64_t i, int w) { fn(i, *workers_[static_cast<std::size_t>(w)]); });
}

}  // namespace cudag::fci
