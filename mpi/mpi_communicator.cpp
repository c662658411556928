// SPDX-License-Identifier: Apache-2.0
// MpiCommunicator: host buffers over an MPI_Comm_dup of MPI_COMM_WORLD (ArborX style).
// Built only with CUDAG_ENABLE_MPI (mpi_none.cpp otherwise).
#include "mpi/mpi_communicator.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>

#include "mpi/environment.hpp"

/// Throw cudag::mpi::CommError naming the call, MPI's error string, rank and host.
#define CUDAG_MPI_CHECK(expr)                                                                                        \
    do {                                                                                                             \
        const int cudag_mpi_rc_ = (expr);                                                                            \
        if (cudag_mpi_rc_ != MPI_SUCCESS) ::cudag::mpi::detail::throw_mpi(cudag_mpi_rc_, #expr, __FILE__, __LINE__); \
    } while (0)

namespace cudag::mpi {
namespace detail {

[[noreturn]] void throw_mpi(int rc, const char* expr, const char* file, int line) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    throw CommError("MPI error (" + std::string(text, static_cast<std::size_t>(len)) + ") in " + expr + " at " + file +
                    ":" + std::to_string(line) + " on rank " + std::to_string(rank) + " (" + host_name() + ")");
}

}  // namespace detail

namespace {

MPI_Datatype mpi_type(DataType t) {
    switch (t) {
        case DataType::Byte:
            return MPI_BYTE;
        case DataType::Int32:
            return MPI_INT32_T;
        case DataType::Int64:
            return MPI_INT64_T;
        case DataType::Float64:
            return MPI_DOUBLE;
    }
    return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum:
            return MPI_SUM;
        case ReduceOp::Max:
            return MPI_MAX;
        case ReduceOp::Min:
            return MPI_MIN;
    }
    return MPI_SUM;
}

// MPI counts are int: large buffers go in chunks of at most this many elements.
constexpr std::size_t kChunk = std::size_t{1} << 30;

class MpiCommunicator final : public Communicator {
public:
    MpiCommunicator() {
        CUDAG_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
        CUDAG_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
        CUDAG_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
        CUDAG_MPI_CHECK(MPI_Comm_size(comm_, &size_));
    }
    ~MpiCommunicator() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    }

    std::string name() const override { return "mpi"; }
    int rank() const override { return rank_; }
    int size() const override { return size_; }

protected:
    void do_barrier() override { CUDAG_MPI_CHECK(MPI_Barrier(comm_)); }

    void do_bcast(void* buf, std::size_t count, DataType t, int root) override {
        auto* p = static_cast<char*>(buf);
        for (std::size_t off = 0; off < count; off += kChunk) {
            const int c = static_cast<int>(std::min(kChunk, count - off));
            CUDAG_MPI_CHECK(MPI_Bcast(p + off * size_of(t), c, mpi_type(t), root, comm_));
        }
    }

    void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) override {
        const std::size_t es = size_of(t);
        for (std::size_t off = 0; off < count; off += kChunk) {
            const int c = static_cast<int>(std::min(kChunk, count - off));
            void* r = static_cast<char*>(recv) + off * es;
            const void* s = send == recv ? MPI_IN_PLACE : static_cast<const char*>(send) + off * es;
            CUDAG_MPI_CHECK(MPI_Allreduce(s, r, c, mpi_type(t), mpi_op(op), comm_));
        }
    }

    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
        CUDAG_ASSERT(counts.size() == static_cast<std::size_t>(size_));
        const std::size_t es = size_of(t);
        std::vector<int> c(counts.size()), d(counts.size());
        std::size_t total = 0;
        bool fits = true;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            fits = fits && counts[r] <= INT_MAX && total <= INT_MAX;
            c[r] = static_cast<int>(counts[r]);
            d[r] = static_cast<int>(total);
            total += counts[r];
        }
        if (fits && total <= INT_MAX) {
            // The level loop shares row blocks in place: send is this rank's slot of recv.
            const bool in_place = send == static_cast<const char*>(recv) + d[rank_] * es;
            CUDAG_MPI_CHECK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, c[rank_], mpi_type(t), recv, c.data(),
                                           d.data(), mpi_type(t), comm_));
            return;
        }
        // Beyond int counts: each rank's block is broadcast in chunks.
        std::size_t off = 0;
        for (int r = 0; r < size_; ++r) {
            char* dst = static_cast<char*>(recv) + off * es;
            if (r == rank_ && counts[r] > 0 && send != dst)
                std::copy_n(static_cast<const char*>(send), counts[r] * es, dst);
            do_bcast(dst, counts[r], t, r);
            off += counts[r];
        }
    }

    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override {
        const std::int64_t mine = static_cast<std::int64_t>(blob.size());
        std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
        CUDAG_MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, root, comm_));
        constexpr int kTag = 4711;
        std::vector<std::vector<std::byte>> out;
        if (rank_ != root) {
            for (std::size_t off = 0; off < blob.size(); off += kChunk) {
                const int c = static_cast<int>(std::min(kChunk, blob.size() - off));
                CUDAG_MPI_CHECK(MPI_Send(blob.data() + off, c, MPI_BYTE, root, kTag, comm_));
            }
            return out;
        }
        out.resize(static_cast<std::size_t>(size_));
        for (int r = 0; r < size_; ++r) {
            auto& dst = out[static_cast<std::size_t>(r)];
            if (r == rank_) {
                dst = blob;
                continue;
            }
            dst.resize(static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]));
            for (std::size_t off = 0; off < dst.size(); off += kChunk) {
                const int c = static_cast<int>(std::min(kChunk, dst.size() - off));
                CUDAG_MPI_CHECK(MPI_Recv(dst.data() + off, c, MPI_BYTE, r, kTag, comm_, MPI_STATUS_IGNORE));
            }
        }
        return out;
    }

    void do_transfer(void* buf, std::size_t count, DataType t, int from, int to) override {
        constexpr int kTag = 4712;
        auto* p = static_cast<char*>(buf);
        for (std::size_t off = 0; off < count; off += kChunk) {
            const int c = static_cast<int>(std::min(kChunk, count - off));
            if (rank_ == from)
                CUDAG_MPI_CHECK(MPI_Send(p + off * size_of(t), c, mpi_type(t), to, kTag, comm_));
            else
                CUDAG_MPI_CHECK(MPI_Recv(p + off * size_of(t), c, mpi_type(t), from, kTag, comm_, MPI_STATUS_IGNORE));
        }
    }

public:
    [[noreturn]] void abort(int code) override {
        std::fflush(stdout);
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
    }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_world_communicator() { return std::make_unique<MpiCommunicator>(); }

}  // namespace cudag::mpi
