// SPDX-License-Identifier: Apache-2.0
#include "mpi/communicator.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/memory_phase.hpp"

namespace cudag::mpi {

std::size_t size_of(DataType t) {
    switch (t) {
        case DataType::Byte:
            return 1;
        case DataType::Int32:
            return 4;
        case DataType::Int64:
            return 8;
        case DataType::Float64:
            return 8;
    }
    return 1;
}

void Communicator::bcast_blob(std::vector<std::byte>& blob, int root, CallSite at) {
    std::int64_t n = static_cast<std::int64_t>(blob.size());
    bcast(&n, 1, DataType::Int64, root, at);
    blob.resize(static_cast<std::size_t>(n));
    if (n > 0) bcast(blob.data(), blob.size(), DataType::Byte, root, at);
}

void SerialCommunicator::do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp) {
    if (send != recv && count > 0) std::memcpy(recv, send, count * size_of(t));
}

void SerialCommunicator::do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts,
                                       DataType t) {
    CUDAG_ASSERT(counts.size() == 1);
    if (send != recv && counts[0] > 0) std::memcpy(recv, send, counts[0] * size_of(t));
}

std::vector<std::vector<std::byte>> SerialCommunicator::do_gatherv(const std::vector<std::byte>& blob, int) {
    return {blob};
}

void ForwardingCommunicator::abort(int code) {
    inner_->abort(code);
    std::_Exit(code);  // not reached: inner_->abort does not return
}

void SerialCommunicator::abort(int code) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
}

void agree(Communicator& comm, const std::exception_ptr& local_error, CallSite at) {
    // Lowest failing rank, or size() when none failed: one small allreduce.
    const std::int32_t none = comm.size();
    const std::int32_t mine = local_error ? comm.rank() : none;
    const std::int32_t first = comm.size() == 1 ? mine : comm.allreduce(mine, ReduceOp::Min, at);
    if (first == none) return;
    if (first != comm.rank()) throw PeerFailed(first);
    // One process: keep the original exception type (tests and callers rely on it).
    if (comm.size() == 1) std::rethrow_exception(local_error);
    try {
        std::rethrow_exception(local_error);
    } catch (const std::bad_alloc&) {
        throw AgreedFailure(out_of_memory_message());  // the phase, not "std::bad_alloc"
    } catch (const std::exception& e) {
        throw AgreedFailure(e.what());
    } catch (...) {
        throw AgreedFailure("unknown error");
    }
}

}  // namespace cudag::mpi
