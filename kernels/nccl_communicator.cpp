// SPDX-License-Identifier: Apache-2.0
// NcclCommunicator: device buffers through NCCL, bootstrapped through a host communicator
// (rank 0's ncclGetUniqueId broadcast over MPI, as nccl-tests and raft do). The
// communicator is non-blocking (ncclConfig_t::blocking = 0): every wait polls
// ncclCommGetAsyncError and cudaStreamQuery with a deadline, and aborts the NCCL
// communicator on error or timeout (nccl-tests' testStreamSynchronize), so a lost peer
// ends the job instead of hanging it. Built only with CUDAG_ENABLE_NCCL (nccl_none.cpp
// otherwise). The stream and the staging buffer are the CUDA engines' RAII owners
// (kernels/device_memory.hpp, header-only host code).
#include "mpi/mpi_communicator.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "kernels/device_memory.hpp"
#include "mpi/environment.hpp"

namespace cudag::mpi {
namespace {

std::string where(const char* expr, int rank) {
    return std::string(" in ") + expr + " on rank " + std::to_string(rank) + " (" + host_name() + ")";
}

[[noreturn]] void throw_nccl(ncclResult_t r, const char* expr, int rank) {
    throw CommError(std::string("NCCL error ") + std::to_string(static_cast<int>(r)) + " (" + ncclGetErrorString(r) +
                    ")" + where(expr, rank));
}

[[noreturn]] void throw_cuda(cudaError_t e, const char* expr, int rank) {
    cudaGetLastError();
    const std::string msg =
        std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")" + where(expr, rank);
    if (e == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
    throw CommError(msg);
}

ncclDataType_t nccl_type(DataType t) {
    switch (t) {
        case DataType::Byte:
            return ncclUint8;
        case DataType::Int32:
            return ncclInt32;
        case DataType::Int64:
            return ncclInt64;
        case DataType::Float64:
            return ncclFloat64;
    }
    return ncclUint8;
}

ncclRedOp_t nccl_op(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum:
            return ncclSum;
        case ReduceOp::Max:
            return ncclMax;
        case ReduceOp::Min:
            return ncclMin;
    }
    return ncclSum;
}

bool is_device_pointer(const void* p) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();  // plain host memory on old runtimes: not an error for us
        return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

// Host buffers up to this size take the MPI path: the level loop's flags and counters
// are tiny, and those collectives are also where ranks wait for each other's level to
// finish, which must not count against the NCCL timeout.
constexpr std::size_t kSmallBytes = 4096;

class NcclCommunicator final : public Communicator {
public:
    NcclCommunicator(std::unique_ptr<Communicator> host, int device, double timeout_s)
        : host_(std::move(host)), device_(device), timeout_s_(timeout_s) {
        rank_ = host_->rank();
        size_ = host_->size();
        cuda(cudaSetDevice(device_), "cudaSetDevice");
        stream_.emplace();  // non-blocking, on device_ (current now)
        ncclUniqueId id;
        std::memset(&id, 0, sizeof id);
        if (rank_ == 0) nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
        host_->bcast(&id, sizeof id, DataType::Byte, 0);
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        const ncclResult_t r = ncclCommInitRankConfig(&comm_, size_, id, rank_, &config);
        if (r != ncclSuccess && r != ncclInProgress) throw_nccl(r, "ncclCommInitRankConfig", rank_);
        wait_comm("ncclCommInitRankConfig");
        // NCCL connects peers at their first collective (a few hundred ms): do it here, so
        // that the first level's merge does not pay for it.
        reserve(256);
        cuda(cudaMemsetAsync(buf_.data(), 0, 256, stream()), "cudaMemsetAsync");
        nccl(ncclGroupStart(), "ncclGroupStart");
        nccl(ncclAllReduce(buf_.data(), buf_.data(), 16, ncclFloat64, ncclMax, comm_, stream()), "ncclAllReduce");
        char* upper = buf_.data() + 128;  // apart from the allreduce's 128 bytes
        nccl(ncclBroadcast(upper, upper, 128, ncclUint8, 0, comm_, stream()), "ncclBroadcast");
        group_end("ncclGroupEnd (connection set-up)");
        wait_stream("NCCL connection set-up");
    }

    ~NcclCommunicator() override {
        if (comm_) {
            // Flush and free; on any trouble abort rather than hang in a destructor.
            try {
                nccl(ncclCommFinalize(comm_), "ncclCommFinalize");
                wait_comm("ncclCommFinalize");
                ncclCommDestroy(comm_);
            } catch (...) {
                if (comm_) ncclCommAbort(comm_);
            }
        }
        // buf_ and then stream_ are released by their owners (reverse declaration order).
    }

    std::string name() const override { return "nccl"; }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    bool device_buffers() const override { return true; }
    [[noreturn]] void abort(int code) override {
        if (comm_) ncclCommAbort(comm_);
        comm_ = nullptr;
        host_->abort(code);
        std::_Exit(code);  // not reached: keeps [[noreturn]] visible to the compiler
    }

protected:
    void do_barrier() override { host_->barrier(site()); }

    // Every path below is chosen by agreed values only (counts, roots), never by whether
    // this rank's buffer is device memory: a small call goes through the host
    // communicator on every rank (a device buffer is copied to the host and back).

    void do_bcast(void* buf, std::size_t count, DataType t, int root) override {
        const std::size_t bytes = count * size_of(t);
        if (bytes == 0) return;
        if (bytes <= kSmallBytes) {
            OnHost h(*this, buf, bytes, true);
            host_->bcast(h.ptr(), count, t, root, site());
            return h.finish();
        }
        Staged s(*this, buf, bytes, rank_ == root);
        nccl(ncclBroadcast(s.ptr(), s.ptr(), count, nccl_type(t), root, comm_, stream()), "ncclBroadcast");
        s.finish("ncclBroadcast");
    }

    void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) override {
        const std::size_t bytes = count * size_of(t);
        if (bytes == 0) return;
        if (send != recv) copy(recv, send, bytes);
        if (bytes <= kSmallBytes) {
            OnHost h(*this, recv, bytes, true);
            host_->allreduce(h.ptr(), h.ptr(), count, t, op, site());
            return h.finish();
        }
        Staged s(*this, recv, bytes, true);
        nccl(ncclAllReduce(s.ptr(), s.ptr(), count, nccl_type(t), nccl_op(op), comm_, stream()), "ncclAllReduce");
        s.finish("ncclAllReduce");
    }

    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
        CUDAG_ASSERT(counts.size() == static_cast<std::size_t>(size_));
        const std::size_t es = size_of(t);
        std::size_t total = 0, mine = 0;
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) mine = total;
            total += counts[static_cast<std::size_t>(r)];
        }
        if (total == 0) return;
        char* slot = static_cast<char*>(recv) + mine * es;
        if (send != slot && counts[static_cast<std::size_t>(rank_)] > 0)
            copy(slot, send, counts[static_cast<std::size_t>(rank_)] * es);
        if (total * es <= kSmallBytes) {
            OnHost h(*this, recv, total * es, true);
            char* base = static_cast<char*>(h.ptr());
            host_->allgatherv(base + mine * es, base, counts, t, site());
            return h.finish();
        }
        // NCCL has no allgatherv: one broadcast per rank's block, in one group.
        Staged s(*this, recv, total * es, true);
        char* base = static_cast<char*>(s.ptr());
        nccl(ncclGroupStart(), "ncclGroupStart");
        std::size_t off = 0;
        for (int r = 0; r < size_; ++r) {
            const std::size_t c = counts[static_cast<std::size_t>(r)];
            if (c > 0)
                nccl(ncclBroadcast(base + off * es, base + off * es, c, nccl_type(t), r, comm_, stream()),
                     "ncclBroadcast");
            off += c;
        }
        group_end("ncclGroupEnd (allgatherv)");
        s.finish("allgatherv");
    }

    /// Sizes through the host communicator (every rank learns all of them, so every rank
    /// takes the same path); large blobs over the GPUs: every other rank's blob is
    /// broadcast from its owner in one group (the connections the collectives already
    /// hold), and only the root copies the result back to the host.
    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override {
        const std::vector<std::int64_t> sizes = host_->allgather(static_cast<std::int64_t>(blob.size()), site());
        std::size_t others = 0;
        for (int r = 0; r < size_; ++r)
            if (r != root) others += static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
        if (others <= (std::size_t{1} << 20)) return host_->gatherv(blob, root, site());
        cuda(cudaSetDevice(device_), "cudaSetDevice");
        reserve(others);
        std::vector<std::size_t> at(static_cast<std::size_t>(size_), 0);
        std::size_t off = 0;
        for (int r = 0; r < size_; ++r) {
            if (r == root) continue;
            at[static_cast<std::size_t>(r)] = off;
            off += static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
        }
        char* base = buf_.data();
        if (rank_ != root && !blob.empty())
            cuda(cudaMemcpyAsync(base + at[static_cast<std::size_t>(rank_)], blob.data(), blob.size(),
                                 cudaMemcpyHostToDevice, stream()),
                 "cudaMemcpyAsync (stage in)");
        nccl(ncclGroupStart(), "ncclGroupStart");
        for (int r = 0; r < size_; ++r) {
            const auto c = static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
            if (r == root || c == 0) continue;
            char* p = base + at[static_cast<std::size_t>(r)];
            nccl(ncclBroadcast(p, p, c, ncclUint8, r, comm_, stream()), "ncclBroadcast");
        }
        group_end("ncclGroupEnd (gatherv)");
        std::vector<std::vector<std::byte>> out;
        if (rank_ == root) {
            out.resize(static_cast<std::size_t>(size_));
            out[static_cast<std::size_t>(rank_)] = blob;
            for (int r = 0; r < size_; ++r) {
                const auto c = static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]);
                if (r == root || c == 0) continue;
                auto& dst = out[static_cast<std::size_t>(r)];
                dst.resize(c);
                cuda(cudaMemcpyAsync(dst.data(), base + at[static_cast<std::size_t>(r)], c, cudaMemcpyDeviceToHost,
                                     stream()),
                     "cudaMemcpyAsync (stage out)");
            }
        }
        wait_stream("gatherv");
        return out;
    }

    /// Point to point between `from` and `to` only, through the host communicator (MPI:
    /// shared memory on a node, the fabric across nodes), a device buffer staged through
    /// the host. The callers move host data (separating-set records); NCCL's point-to-point
    /// path would stage them through the GPUs and open a connection per pair on first use.
    void do_transfer(void* buf, std::size_t count, DataType t, int from, int to) override {
        const std::size_t bytes = count * size_of(t);
        if (bytes == 0) return;
        OnHost h(*this, buf, bytes, rank_ == from);
        host_->transfer(h.ptr(), count, t, from, to, site());
        h.finish();
    }

private:
    /// A buffer as the host communicator sees it: `user` itself when it is host
    /// memory, else a host copy (filled from the device when `upload`); finish() copies a
    /// host copy back to the device.
    class OnHost {
    public:
        OnHost(NcclCommunicator& c, void* user, std::size_t bytes, bool upload)
            : c_(c), user_(user), bytes_(bytes), device_(is_device_pointer(user)) {
            if (!device_) return;
            copy_.resize(bytes_);
            c_.cuda(cudaSetDevice(c_.device_), "cudaSetDevice");
            if (upload) c_.copy(copy_.data(), user_, bytes_);
        }
        void* ptr() { return device_ ? static_cast<void*>(copy_.data()) : user_; }
        void finish() {
            if (device_) c_.copy(user_, copy_.data(), bytes_);
        }

    private:
        NcclCommunicator& c_;
        void* user_;
        std::size_t bytes_;
        bool device_;
        std::vector<std::byte> copy_;
    };

    /// A buffer as NCCL sees it: `user` itself when it is device memory, else a device
    /// copy (uploaded when `upload`); finish() brings a staged result back to `user`.
    class Staged {
    public:
        Staged(NcclCommunicator& c, void* user, std::size_t bytes, bool upload)
            : c_(c), user_(user), bytes_(bytes), device_(is_device_pointer(user)) {
            // The engine may have left another device current (DeviceGuard restores, but be sure).
            c_.cuda(cudaSetDevice(c_.device_), "cudaSetDevice");
            if (device_) return;
            c_.reserve(bytes_);
            if (upload)
                c_.cuda(cudaMemcpyAsync(c_.buf_.data(), user_, bytes_, cudaMemcpyHostToDevice, c_.stream()),
                        "cudaMemcpyAsync (stage in)");
        }
        void* ptr() const { return device_ ? user_ : c_.buf_.data(); }
        /// Wait for the collective and, when staged, download its result.
        void finish(const char* what) {
            if (!device_)
                c_.cuda(cudaMemcpyAsync(user_, c_.buf_.data(), bytes_, cudaMemcpyDeviceToHost, c_.stream()),
                        "cudaMemcpyAsync (stage out)");
            c_.wait_stream(what);
        }

    private:
        NcclCommunicator& c_;
        void* user_;
        std::size_t bytes_;
        bool device_;
    };

    /// At least `bytes` of staging buffer on device_ (current); grows only, contents lost.
    void reserve(std::size_t bytes) { buf_.resize_discard(bytes); }

    cudaStream_t stream() const { return stream_->get(); }

    void copy(void* dst, const void* src, std::size_t bytes) {
        cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream()), "cudaMemcpyAsync");
        wait_stream("cudaMemcpyAsync");
    }

    void cuda(cudaError_t e, const char* expr) {
        if (e != cudaSuccess) throw_cuda(e, expr, rank_);
    }
    /// A non-blocking NCCL call. ncclInProgress means the operation may not be on the
    /// stream yet: wait until NCCL has enqueued it, so that what the caller puts on the
    /// stream next (the stage-out copy) runs after it.
    void nccl(ncclResult_t r, const char* expr) {
        if (r == ncclInProgress) return wait_comm(expr);
        if (r != ncclSuccess) fail(r, expr);
    }
    void group_end(const char* expr) {
        const ncclResult_t r = ncclGroupEnd();
        if (r == ncclInProgress) return wait_comm(expr);
        if (r != ncclSuccess) fail(r, expr);
    }
    [[noreturn]] void fail(ncclResult_t r, const char* expr) {
        if (comm_) ncclCommAbort(comm_);
        comm_ = nullptr;
        throw_nccl(r, expr, rank_);
    }

    template <class Done>
    void poll(const char* what, Done&& done) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
        for (;;) {
            ncclResult_t async = ncclSuccess;
            const ncclResult_t r = ncclCommGetAsyncError(comm_, &async);
            if (r != ncclSuccess) fail(r, "ncclCommGetAsyncError");
            if (async != ncclSuccess && async != ncclInProgress) fail(async, what);
            if (done(async)) return;
            if (std::chrono::steady_clock::now() > deadline) {
                ncclCommAbort(comm_);
                comm_ = nullptr;
                throw CommError(std::string("NCCL: ") + what + " did not finish within " + std::to_string(timeout_s_) +
                                " s on rank " + std::to_string(rank_) + " (" + host_name() +
                                "); a peer is lost or stalled (see --comm-timeout)");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
    /// Until the communicator has no operation in progress (init, finalize, group end).
    void wait_comm(const char* what) {
        poll(what, [](ncclResult_t async) { return async == ncclSuccess; });
    }
    /// Until the stream's work is done, watching for NCCL errors meanwhile.
    void wait_stream(const char* what) {
        poll(what, [&](ncclResult_t async) {
            // A non-blocking call that returned ncclInProgress may not have reached the
            // stream yet: an idle stream means nothing until NCCL reports success.
            if (async == ncclInProgress) return false;
            const cudaError_t q = cudaStreamQuery(stream());
            if (q == cudaErrorNotReady) return false;
            cuda(q, what);
            return true;
        });
    }

    std::unique_ptr<Communicator> host_;
    int device_ = 0;
    double timeout_s_ = 600.0;
    int rank_ = 0, size_ = 1;
    ncclComm_t comm_ = nullptr;
    std::optional<cuda::Stream> stream_;  ///< created once device_ is current
    cuda::DeviceBuffer<char> buf_;        ///< staging buffer for host buffers (grows only)
};

}  // namespace

bool nccl_compiled() { return true; }

std::unique_ptr<Communicator> make_nccl_communicator(std::unique_ptr<Communicator> host, int device, double timeout_s) {
    CUDAG_EXPECTS(device >= 0, "the NCCL communicator needs a CUDA device");
    return std::make_unique<NcclCommunicator>(std::move(host), device, timeout_s);
}

}  // namespace cudag::mpi
