// SPDX-License-Identifier: Apache-2.0
// PCMCI's batches split over MPI ranks (issue 56): every rank runs the same PCMCI, and each
// batch of tests is cut into one contiguous slice a rank, each answered by the rank's own tests
// (its CPU threads or its GPU), then gathered on every rank, so that every rank holds every
// answer and takes the same next step. The answers do not depend on the split (each test is a
// function of its query), so any rank count gives one process's result, bit for bit.
#pragma once

#include <memory>
#include <string>

#include "ci/batch.hpp"
#include "mpi/communicator.hpp"

namespace cudag::pcmci {

class RankSplitBatch final : public ci::BatchTest {
public:
    RankSplitBatch(std::unique_ptr<ci::BatchTest> local, mpi::Communicator& comm)
        : local_(std::move(local)), comm_(comm) {}
    std::string name() const override { return local_->name(); }
    std::string where() const override { return std::to_string(comm_.size()) + " ranks, each on " + local_->where(); }
    /// Every rank calls it with the same queries. A rank's error (its slice's InputError) is
    /// agreed: that rank reports it, the others stop (mpi::PeerFailed).
    void run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) override;
    /// The largest `v` over the ranks.
    double agreed_max(double v) override { return comm_.allreduce(v, mpi::ReduceOp::Max); }

private:
    std::unique_ptr<ci::BatchTest> local_;
    mpi::Communicator& comm_;
};

}  // namespace cudag::pcmci
