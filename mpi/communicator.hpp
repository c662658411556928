// SPDX-License-Identifier: Apache-2.0
// The communicator the distributed level loop is written against: a type-erased core
// (raft comms_iface) with three implementations (single process, MPI on host buffers,
// NCCL on device buffers) and a typed front end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <source_location>
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

/// Where a communicator call was made (reported by the strict communicator).
using CallSite = std::source_location;

/// A group of ranks. Two kinds of calls:
///  - collectives (barrier, bcast, allreduce, allgather, allgatherv, gatherv): called by
///    every rank, in the same order, with the same root, element type and count (for
///    allgatherv the same `counts` vector; gatherv's blobs may differ in size);
///  - transfer: point to point, made by its two ranks only (any other rank may call it:
///    it returns at once without communicating).
/// Whether a call goes over the network or a device path depends only on those agreed
/// values, never on rank-local facts, so that no rank can take another path than its
/// peers. Buffers are host memory unless the implementation says otherwise (the NCCL one
/// also accepts device buffers). `send == recv` (in place) is allowed for allreduce.
/// Calls block until the result is in `recv`.
///
/// The public calls are non-virtual: they record the caller's CallSite (site()) and call
/// the do_* implementations (NVI), so that a checking decorator can name the call site.
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

    void barrier(CallSite at = CallSite::current()) {
        site_ = at;
        do_barrier();
    }
    /// Broadcast `count` elements of `buf` from `root` to every rank.
    void bcast(void* buf, std::size_t count, DataType t, int root, CallSite at = CallSite::current()) {
        site_ = at;
        do_bcast(buf, count, t, root);
    }
    /// Element-wise reduction of `count` elements over all ranks into every rank's `recv`.
    void allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op,
                   CallSite at = CallSite::current()) {
        site_ = at;
        do_allreduce(send, recv, count, t, op);
    }
    /// Rank r's `count` elements land at recv + r * count (recv holds size() * count).
    void allgather(const void* send, void* recv, std::size_t count, DataType t, CallSite at = CallSite::current()) {
        site_ = at;
        do_allgather(send, recv, count, t);
    }
    /// Rank r's counts[r] elements land at recv + sum(counts[0..r)); `counts` is the same
    /// on every rank and `send` holds counts[rank()] elements.
    void allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t,
                    CallSite at = CallSite::current()) {
        site_ = at;
        do_allgatherv(send, recv, counts, t);
    }
    /// Variable-size host byte blobs to `root`: there, element r is rank r's blob;
    /// elsewhere the result is empty.
    std::vector<std::vector<std::byte>> gatherv(const std::vector<std::byte>& blob, int root,
                                                CallSite at = CallSite::current()) {
        site_ = at;
        return do_gatherv(blob, root);
    }
    /// Point to point: `count` elements of `buf` from rank `from` to rank `to`, called by
    /// those two ranks with the same count and type (`buf` is read on `from`, written on
    /// `to`); a call on any other rank, or with from == to, returns at once. Host data: the
    /// NCCL communicator sends it through its host communicator.
    void transfer(void* buf, std::size_t count, DataType t, int from, int to, CallSite at = CallSite::current()) {
        site_ = at;
        if (from == to || (rank() != from && rank() != to)) return;
        do_transfer(buf, count, t, from, to);
    }
    /// End every rank of the job now with exit code `code` (MPI_Abort; ncclCommAbort first
    /// for NCCL). Never returns.
    [[noreturn]] virtual void abort(int code) = 0;

    /// The call site of the call in progress (or the last one).
    const CallSite& site() const { return site_; }

    // ---- typed front end --------------------------------------------------------------
    template <class T>
    void bcast(std::span<T> v, int root, CallSite at = CallSite::current()) {
        bcast(v.data(), v.size(), type_of<T>(), root, at);
    }
    template <class T>
    void allreduce(std::span<T> v, ReduceOp op, CallSite at = CallSite::current()) {
        allreduce(v.data(), v.data(), v.size(), type_of<T>(), op, at);
    }
    template <class T>
    T allreduce(T x, ReduceOp op, CallSite at = CallSite::current()) {
        T y{};
        allreduce(&x, &y, 1, type_of<T>(), op, at);
        return y;
    }
    template <class T>
    std::vector<T> allgather(T x, CallSite at = CallSite::current()) {
        std::vector<T> out(static_cast<std::size_t>(size()));
        allgather(&x, out.data(), 1, type_of<T>(), at);
        return out;
    }
    /// Broadcast a byte blob of any size from `root` (size first, then contents).
    void bcast_blob(std::vector<std::byte>& blob, int root, CallSite at = CallSite::current());

    template <class T>
    static constexpr DataType type_of() {
        if constexpr (std::is_same_v<T, std::int32_t>)
            return DataType::Int32;
        else if constexpr (std::is_same_v<T, std::int64_t>)
            return DataType::Int64;
        else if constexpr (std::is_same_v<T, double>)
            return DataType::Float64;
        else {
            static_assert(sizeof(T) == 1, "collectives carry bytes, int32, int64 or double");
            return DataType::Byte;
        }
    }

protected:
    virtual void do_barrier() = 0;
    virtual void do_bcast(void* buf, std::size_t count, DataType t, int root) = 0;
    virtual void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) = 0;
    /// Default: allgatherv with equal counts.
    virtual void do_allgather(const void* send, void* recv, std::size_t count, DataType t) {
        do_allgatherv(send, recv, std::vector<std::size_t>(static_cast<std::size_t>(size()), count), t);
    }
    virtual void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) = 0;
    virtual std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) = 0;
    /// Called on `from` and `to` only (from != to).
    virtual void do_transfer(void* buf, std::size_t count, DataType t, int from, int to) = 0;

private:
    CallSite site_;
};

/// The single-process communicator: size 1, collectives copy `send` to `recv`.
class SerialCommunicator final : public Communicator {
public:
    std::string name() const override { return "serial"; }
    int rank() const override { return 0; }
    int size() const override { return 1; }
    [[noreturn]] void abort(int code) override;

protected:
    void do_barrier() override {}
    void do_bcast(void*, std::size_t, DataType, int) override {}
    void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) override;
    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override;
    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override;
    void do_transfer(void*, std::size_t, DataType, int, int) override {}  // never called: one rank
};

/// A decorator's base: every call forwarded to `inner` (with this call's site); a decorator
/// (a checking or a failing communicator) overrides the do_* calls it watches.
class ForwardingCommunicator : public Communicator {
public:
    explicit ForwardingCommunicator(std::unique_ptr<Communicator> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    int rank() const override { return inner_->rank(); }
    int size() const override { return inner_->size(); }
    bool device_buffers() const override { return inner_->device_buffers(); }
    [[noreturn]] void abort(int code) override;

protected:
    Communicator& inner() { return *inner_; }
    void do_barrier() override { inner_->barrier(site()); }
    void do_bcast(void* buf, std::size_t count, DataType t, int root) override {
        inner_->bcast(buf, count, t, root, site());
    }
    void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) override {
        inner_->allreduce(send, recv, count, t, op, site());
    }
    void do_allgather(const void* send, void* recv, std::size_t count, DataType t) override {
        inner_->allgather(send, recv, count, t, site());
    }
    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
        inner_->allgatherv(send, recv, counts, t, site());
    }
    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override {
        return inner_->gatherv(blob, root, site());
    }
    void do_transfer(void* buf, std::size_t count, DataType t, int from, int to) override {
        inner_->transfer(buf, count, t, from, to, site());
    }

private:
    std::unique_ptr<Communicator> inner_;
};

/// Collective error check at a point every rank reaches: pass this rank's failure (or
/// null). If no rank failed, returns. Otherwise the lowest failing rank gets an
/// AgreedFailure carrying its own message and every other rank a PeerFailed, so that
/// exactly one line is reported and no rank is left waiting.
void agree(Communicator& comm, const std::exception_ptr& local_error, CallSite at = CallSite::current());

/// Run `fn` and agree() on its outcome: the standard wrapper for local work between two
/// collectives.
template <class Fn>
void run_agreed(Communicator& comm, Fn&& fn, CallSite at = CallSite::current()) {
    std::exception_ptr err;
    try {
        fn();
    } catch (...) {
        err = std::current_exception();
    }
    agree(comm, err, at);
}

}  // namespace cudag::mpi
