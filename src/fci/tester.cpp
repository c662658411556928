// SPDX-License-Identifier: Apache-2.0
#include "fci/tester.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::fci {

Tester::Tester(Factory make, int threads, ci::Decision decision, mpi::Communicator* comm,
               std::vector<std::string> names)
    : cpu_(std::move(make), threads, names),
      comm_(comm && comm->size() > 1 ? comm : nullptr),
      decision_(decision),
      names_(std::move(names)) {}

double Tester::p_value(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    ++tests_;
    const ci::CiOutcome o = cpu_.worker(0).test(x, y, s);
    if (!ci::is_result(o.statistic, o.p)) ci::throw_not_finite(cpu_.name(), x, y, o.statistic, o.p, names_);
    return o.p;
}

void Tester::settle(const std::exception_ptr& err) {
    if (comm_)
        mpi::agree(*comm_, err);
    else if (err)
        std::rethrow_exception(err);
}

void Tester::p_values(const TestBatch& batch, std::span<double> out) {
    const auto n = static_cast<std::int64_t>(batch.size());
    if (n == 0) return;
    // This rank's share: [begin, end), contiguous, the shares in rank order.
    const std::int64_t ranks = this->ranks(), me = comm_ ? comm_->rank() : 0;
    const std::int64_t begin = n * me / ranks, end = n * (me + 1) / ranks;
    std::exception_ptr err;
    try {
        if (end > begin) {
            const auto b = static_cast<std::size_t>(begin), e = static_cast<std::size_t>(end);
            statistic_.resize(e - b);
            this->batch().run(batch.view().slice(b, e), statistic_, out.subspan(b, e - b));
        }
    } catch (...) {
        err = std::current_exception();
    }
    settle(err);
    if (comm_) {
        std::vector<std::size_t> counts(static_cast<std::size_t>(ranks));
        for (std::int64_t r = 0; r < ranks; ++r)
            counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(n * (r + 1) / ranks - n * r / ranks);
        const std::vector<double> share(out.begin() + begin, out.begin() + end);
        comm_->allgatherv(share.data(), out.data(), counts, mpi::DataType::Float64);
    }
    tests_ += n;
}

void Tester::each(std::int64_t n, const std::function<void(std::int64_t, ci::CiTest&)>& fn) {
    if (n <= 0) return;
    const int used = static_cast<int>(std::min<std::int64_t>(cpu_.threads(), n));
    cpu_.make_workers(used);
    parallel_for(0, n, used, 1, [&](std::int64_t i, int w) { fn(i, cpu_.worker(w)); });
}

}  // namespace cudag::fci
