// SPDX-License-Identifier: Apache-2.0
// The communicator the distributed level loop is written against: a type-erased core
// (raft comms_iface) with three implementations (single process, MPI on host buffers,
// NCCL on device buffers) and a typed front end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace cudag::mpi {

/// Element types the collectives carry.
enum class DataType { Byte, Int32, Int64, Float64 };
/// Reductions. On Byte, Max of blocks where at most one rank has non-zero bytes is the
/// bitwise OR of those blocks (what the removal-map merge relies on).
enum class ReduceOp { Sum, Max, Min };

/// Bytes per element of `t`.
std::size_t size_of(DataType t);

/// An MPI or NCCL call failed; the message names the call, the error and rank/host.
class CommError : public Error {
public:
    using Error::Error;
};

/// Another rank failed at a collective error check (see agree()); this rank stops
/// quietly, the failing rank reports.
class PeerFailed : public Error {
public:
    explicit PeerFailed(int failed_rank)
        : Error("rank " + std::to_string(failed_rank) + " failed"), failed_rank_(failed_rank) {}
    int failed_rank() const { return failed_rank_; }

private:
    int failed_rank_;
};

/// This rank's own failure after every rank agreed to stop (see agree()): main prints
/// it and exits non-zero without MPI_Abort, since every rank is already stopping.
class AgreedFailure : public Error {
public:
    using Error::Error;
};

/// A group of ranks. Every collective must be called by all ranks in the same order.
/// Buffers are host memory unless the implementation says otherwise (the NCCL one
/// also accepts host buffers and stages them through the device). `send == recv`
/// (in place) is allowed for allreduce. Calls block until the result is in `recv`.
class Communicator {
public:
    virtual ~Communicator() = default;

    /// "serial", "mpi" or "nccl".
    virtual std::string name() const = 0;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// Whether the collectives also take device memory of this rank's GPU (the NCCL
    /// one: such buffers go to NCCL without a host copy).
    virtual bool device_buffers() const { return false; }

    virtual void barrier() = 0;
    /// Broadcast `count` elements of `buf` from `root` to every rank.
    virtual void bcast(void* buf, std::size_t count, DataType t, int root) = 0;
    /// Element-wise reduction of `count` elements over all ranks into every rank's `recv`.
    virtual void allreduce(const void* send, void* recv, std::size_t count, DataType t,
                           ReduceOp op) = 0;
    /// Rank r's `count` elements land at recv + r * count (recv holds size() * count).
    /// Default: allgatherv with equal counts.
    virtual void allgather(const void* send, void* recv, std::size_t count, DataType t) {
        allgatherv(send, recv, std::vector<std::size_t>(static_cast<std::size_t>(size()), count), t);
    }
    /// Rank r's counts[r] elements land at recv + sum(counts[0..r)); `counts` is the same
    /// on every rank and `send` holds counts[rank()] elements.
    virtual void allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts,
                            DataType t) = 0;
    /// Variable-size host byte blobs to `root`: there, element r is rank r's blob;
    /// elsewhere the result is empty.
    virtual std::vector<std::vector<std::byte>> gatherv(const std::vector<std::byte>& blob,
                                                        int root) = 0;
    /// `count` elements of `buf` from rank `from` to rank `to` (every rank calls it; `buf`
    /// is read on `from`, written on `to` and ignored elsewhere). Default: a broadcast
    /// from `from`, other ranks receiving into a scratch buffer.
    virtual void transfer(void* buf, std::size_t count, DataType t, int from, int to);
    /// End every rank of the job now with exit code `code` (MPI_Abort; ncclCommAbort first
    /// for NCCL). Never returns.
    [[noreturn]] virtual void abort(int code) = 0;

    // ---- typed front end --------------------------------------------------------------
    template <class T>
    void bcast(std::span<T> v, int root) {
        bcast(v.data(), v.size(), type_of<T>(), root);
    }
    template <class T>
    void allreduce(std::span<T> v, ReduceOp op) {
        allreduce(v.data(), v.data(), v.size(), type_of<T>(), op);
    }
    template <class T>
    T allreduce(T x, ReduceOp op) {
        T y{};
        allreduce(&x, &y, 1, type_of<T>(), op);
        return y;
    }
    template <class T>
    std::vector<T> allgather(T x) {
        std::vector<T> out(static_cast<std::size_t>(size()));
        allgather(&x, out.data(), 1, type_of<T>());
        return out;
    }
    /// Broadcast a byte blob of any size from `root` (size first, then contents).
    void bcast_blob(std::vector<std::byte>& blob, int root);

    template <class T>
    static constexpr DataType type_of() {
        if constexpr (std::is_same_v<T, std::int32_t>) return DataType::Int32;
        else if constexpr (std::is_same_v<T, std::int64_t>) return DataType::Int64;
        else if constexpr (std::is_same_v<T, double>) return DataType::Float64;
        else {
            static_assert(sizeof(T) == 1, "collectives carry bytes, int32, int64 or double");
            return DataType::Byte;
        }
    }
};

/// The single-process communicator: size 1, collectives copy `send` to `recv`.
class SerialCommunicator final : public Communicator {
public:
    using Communicator::allreduce;  // the typed front end
    using Communicator::bcast;
    std::string name() const override { return "serial"; }
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void barrier() override {}
    void bcast(void*, std::size_t, DataType, int) override {}
    void allreduce(const void* send, void* recv, std::size_t count, DataType t,
                   ReduceOp op) override;
    void allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts,
                    DataType t) override;
    std::vector<std::vector<std::byte>> gatherv(const std::vector<std::byte>& blob,
                                                int root) override;
    [[noreturn]] void abort(int code) override;
};

/// Collective error check at a point every rank reaches: pass this rank's failure (or
/// null). If no rank failed, returns. Otherwise the lowest failing rank gets an
/// AgreedFailure carrying its own message and every other rank a PeerFailed, so that
/// exactly one line is reported and no rank is left waiting.
void agree(Communicator& comm, const std::exception_ptr& local_error);

/// Run `fn` and agree() on its outcome: the standard wrapper for local work between two
/// collectives.
template <class Fn>
void run_agreed(Communicator& comm, Fn&& fn) {
    std::exception_ptr err;
    try {
        fn();
    } catch (...) {
        err = std::current_exception();
    }
    agree(comm, err);
}

}  // namespace cudag::mpi
