// SPDX-License-Identifier: Apache-2.0
#include "fci/tester.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace cudag::fci {

Tester::Tester(Factory make, int threads, ci::Decision decision, mpi::Communicator* comm)
    : make_(std::move(make)),
      comm_(comm && comm->size() > 1 ? comm : nullptr),
      threads_(threads < 1 ? 1 : threads),
      decision_(decision) {
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
            // Make the workers first (their construction is not thread-safe against each other).
            const int used = static_cast<int>(std::min<std::int64_t>(threads_, end - begin));
            for (int w = 0; w < used; ++w) worker(w);
            parallel_for(begin, end, used, 16, [&](std::int64_t q, int w) {
                const auto k = static_cast<std::size_t>(q);
                out[k] = checked(workers_[static_cast<std::size_t>(w)]->test(batch.x[k], batch.y[k], batch.set(k)).p,
                                 batch.x[k], batch.y[k]);
            });
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

void Tester::each_shared(std::int64_t n, const std::function<void(std::int64_t, ci::CiTest&, ByteWriter&)>& run,
                         const std::function<void(std::int64_t, ByteReader&)>& take) {
    if (n <= 0) return;
    const std::int64_t ranks = this->ranks(), me = comm_ ? comm_->rank() : 0;
    const std::int64_t mine = n > me ? (n - me + ranks - 1) / ranks : 0;  // items me, me + ranks, ...
    std::vector<std::vector<std::byte>> outs(static_cast<std::size_t>(mine));
    std::exception_ptr err;
    try {
        if (mine > 0) {
            const int used = static_cast<int>(std::min<std::int64_t>(threads_, mine));
            for (int w = 0; w < used; ++w) worker(w);
            parallel_for(0, mine, used, 1, [&](std::int64_t k, int w) {
                ByteWriter bw;
                run(me + k * ranks, *workers_[static_cast<std::size_t>(w)], bw);
                outs[static_cast<std::size_t>(k)] = bw.take();
            });
        }
    } catch (...) {
        err = std::current_exception();
    }
    settle(err);
    if (!comm_) {
        for (std::int64_t i = 0; i < n; ++i) {
            ByteReader in(outs[static_cast<std::size_t>(i)]);
            take(i, in);
            CUDAG_ASSERT(in.done());
        }
        return;
    }
    // Every rank's outcomes, concatenated in its item order, to every rank.
    std::size_t bytes = 0;
    for (const auto& o : outs) bytes += o.size();
    std::vector<std::byte> blob;
    blob.reserve(bytes);
    for (const auto& o : outs) blob.insert(blob.end(), o.begin(), o.end());
    const std::vector<std::int64_t> sizes = comm_->allgather(static_cast<std::int64_t>(blob.size()));
    std::vector<std::size_t> counts(sizes.begin(), sizes.end());
    std::size_t total = 0;
    for (const std::size_t c : counts) total += c;
    std::vector<std::byte> all(total);
    comm_->allgatherv(blob.data(), all.data(), counts, mpi::DataType::Byte);
    std::vector<ByteReader> readers;
    std::size_t at = 0;
    for (const std::size_t c : counts) {
        readers.emplace_back(std::span<const std::byte>(all.data() + at, c));
        at += c;
    }
    for (std::int64_t i = 0; i < n; ++i) take(i, readers[static_cast<std::size_t>(i % ranks)]);
    for (const ByteReader& r : readers) CUDAG_ASSERT(r.done());
}

}  // namespace cudag::fci
