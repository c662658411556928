// SPDX-License-Identifier: Apache-2.0
// A communicator decorator that makes one rank fail, for tests of the fault path: either
// at a collective error check (every rank agrees to stop; mpi::agree), or right after one
// (the rank fails alone while the others wait in the next collective: the job must be
// ended by MPI_Abort).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "mpi/communicator.hpp"

namespace cudag::test {

/// Where a FailingCommunicator fails.
struct InjectedFailure {
    int rank = -1;        ///< the failing rank; -1: none
    int check = -1;       ///< the failure comes at this collective error check (1 = the first)
    bool guarded = true;  ///< inside the check (agreed) or after it (not agreed)

    /// "RANK:CHECK[:unguarded]", e.g. "1:13" or "1:15:unguarded".
    static InjectedFailure parse(const std::string& spec) {
        InjectedFailure f;
        char mode[16] = {};
        if (std::sscanf(spec.c_str(), "%d:%d:%15s", &f.rank, &f.check, mode) < 2 || f.check < 1)
            throw InputError("a failure is RANK:CHECK[:unguarded] with CHECK >= 1, got '" + spec + "'");
        f.guarded = std::string(mode) != "unguarded";
        return f;
    }
};

/// Forwards every call to `inner`, counting the collective error checks (mpi::agree's
/// one-int32 minimum). On rank `f.rank`, at check `f.check`:
///  - guarded: reports this rank as failed in the check (the others get PeerFailed) and
///    throws AgreedFailure("injected failure on rank R at check N (testing)");
///  - unguarded: lets the check pass, then throws InputError with that message at the
///    next collective instead of entering it.
class FailingCommunicator final : public mpi::ForwardingCommunicator {
public:
    FailingCommunicator(std::unique_ptr<mpi::Communicator> inner, InjectedFailure f)
        : mpi::ForwardingCommunicator(std::move(inner)), f_(f) {}

protected:
    void do_barrier() override {
        before_collective();
        ForwardingCommunicator::do_barrier();
    }
    void do_bcast(void* buf, std::size_t count, mpi::DataType t, int root) override {
        before_collective();
        ForwardingCommunicator::do_bcast(buf, count, t, root);
    }
    void do_allreduce(const void* send, void* recv, std::size_t count, mpi::DataType t, mpi::ReduceOp op) override {
        before_collective();
        const bool check = count == 1 && t == mpi::DataType::Int32 && op == mpi::ReduceOp::Min;
        if (!check || rank() != f_.rank || ++checks_ != f_.check) {
            ForwardingCommunicator::do_allreduce(send, recv, count, t, op);
            return;
        }
        if (!f_.guarded) {
            ForwardingCommunicator::do_allreduce(send, recv, count, t, op);
            failing_ = true;  // at the next collective
            return;
        }
        const std::int32_t failed = rank();
        ForwardingCommunicator::do_allreduce(&failed, recv, count, t, op);
        throw mpi::AgreedFailure(message());
    }
    void do_allgather(const void* send, void* recv, std::size_t count, mpi::DataType t) override {
        before_collective();
        ForwardingCommunicator::do_allgather(send, recv, count, t);
    }
    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, mpi::DataType t) override {
        before_collective();
        ForwardingCommunicator::do_allgatherv(send, recv, counts, t);
    }
    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override {
        before_collective();
        return ForwardingCommunicator::do_gatherv(blob, root);
    }
    void do_transfer(void* buf, std::size_t count, mpi::DataType t, int from, int to) override {
        before_collective();
        ForwardingCommunicator::do_transfer(buf, count, t, from, to);
    }

private:
    std::string message() const {
        return "injected failure on rank " + std::to_string(rank()) + " at check " + std::to_string(f_.check) +
               " (testing)";
    }
    void before_collective() {
        if (failing_) throw InputError(message());
    }

    InjectedFailure f_;
    int checks_ = 0;
    bool failing_ = false;
};

}  // namespace cudag::test
