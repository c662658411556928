// SPDX-License-Identifier: Apache-2.0
// StrictCommunicator: a decorator that checks the communicator contract at every call
// (mpi/communicator.hpp): before a collective, every rank's call (kind, root, element type,
// count or counts, reduction, call site) is exchanged over a separate MPI communicator and
// compared; before a transfer, the sender's call is sent to the receiver and compared
// there. A disagreement throws CommError on every rank taking part, naming each rank's
// call and call site; a rank that does not arrive within the deadline (it sits in another
// kind of call, is stuck or is gone) makes the waiting ranks print what they waited at and
// end the job. CPU CI runs every MPI test under it, so a call that only a multi-GPU run
// would hang on fails there, with its call site.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "mpi/environment.hpp"
#include "mpi/mpi_communicator.hpp"

namespace cudag::mpi {
namespace {

enum class Call : std::int32_t { Barrier, Bcast, Allreduce, Allgather, Allgatherv, Gatherv, Transfer };

const char* call_name(Call c) {
    switch (c) {
        case Call::Barrier:
            return "barrier";
        case Call::Bcast:
            return "bcast";
        case Call::Allreduce:
            return "allreduce";
        case Call::Allgather:
            return "allgather";
        case Call::Allgatherv:
            return "allgatherv";
        case Call::Gatherv:
            return "gatherv";
        case Call::Transfer:
            return "transfer";
    }
    return "?";
}

const char* type_name(DataType t) {
    switch (t) {
        case DataType::Byte:
            return "byte";
        case DataType::Int32:
            return "int32";
        case DataType::Int64:
            return "int64";
        case DataType::Float64:
            return "float64";
    }
    return "?";
}

const char* op_name(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum:
            return "sum";
        case ReduceOp::Max:
            return "max";
        case ReduceOp::Min:
            return "min";
    }
    return "?";
}

/// One rank's call, as exchanged (plain bytes: the same binary on every rank).
struct Signature {
    std::int32_t call = 0;
    std::int32_t root = -1;  ///< bcast/gatherv root; transfer: from
    std::int32_t peer = -1;  ///< transfer: to
    std::int32_t type = -1;
    std::int32_t op = -1;
    std::int32_t line = 0;
    std::int64_t count = -1;   ///< elements; allgatherv: the total
    std::uint64_t counts = 0;  ///< allgatherv: a hash of the counts vector
    char file[96] = {};
    char function[96] = {};

    /// Whether two ranks' calls are the same collective (the call sites may differ).
    bool same_call(const Signature& o) const {
        return call == o.call && root == o.root && peer == o.peer && type == o.type && op == o.op && count == o.count &&
               counts == o.counts;
    }
    std::string describe() const {
        const auto c = static_cast<Call>(call);
        std::string s = call_name(c);
        s += "(";
        if (c == Call::Bcast || c == Call::Gatherv) s += "root " + std::to_string(root) + ", ";
        if (c == Call::Transfer) s += std::to_string(root) + " -> " + std::to_string(peer) + ", ";
        if (type >= 0) s += std::string(type_name(static_cast<DataType>(type))) + " x " + std::to_string(count);
        if (c == Call::Allgatherv) s += " in all, counts #" + std::to_string(counts % 100000);
        if (op >= 0) s += std::string(", ") + op_name(static_cast<ReduceOp>(op));
        if (s.back() == ' ') s.resize(s.size() - 2);
        s += ") at " + std::string(file) + ":" + std::to_string(line);
        if (function[0]) s += " (" + std::string(function) + ")";
        return s;
    }
};

/// The path from the project's top folder on (src/..., kernels/..., tests/...), or the name.
std::string short_file(const char* path) {
    const std::string p = path;
    for (const char* top : {"/src/", "/mpi/", "/kernels/", "/tests/", "/python/"}) {
        const std::size_t at = p.rfind(top);
        if (at != std::string::npos) return p.substr(at + 1);
    }
    const std::size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

/// The function's name without its return type and parameters, when it can be cut out.
std::string short_function(const char* f) {
    std::string s = f;
    const std::size_t paren = s.find('(');
    if (paren != std::string::npos) s.resize(paren);
    const std::size_t space = s.rfind(' ');
    if (space != std::string::npos) s = s.substr(space + 1);
    return s;
}

void copy_text(char* dst, std::size_t cap, const std::string& src) {
    const std::size_t n = std::min(cap - 1, src.size());
    std::memcpy(dst, src.data(), n);
    dst[n] = '\0';
}

std::uint64_t hash_counts(const std::vector<std::size_t>& counts) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the values' bytes
    for (std::size_t c : counts)
        for (int b = 0; b < 8; ++b) {
            h ^= (static_cast<std::uint64_t>(c) >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    return h;
}

class StrictCommunicator final : public ForwardingCommunicator {
public:
    StrictCommunicator(std::unique_ptr<Communicator> inner, double timeout_s)
        : ForwardingCommunicator(std::move(inner)), timeout_s_(timeout_s) {
        if (MPI_Comm_dup(MPI_COMM_WORLD, &check_) != MPI_SUCCESS)
            throw CommError("strict communicator: MPI_Comm_dup failed");
        int size = 0;
        MPI_Comm_size(check_, &size);
        if (size != this->size())
            throw CommError("strict communicator: the checked communicator has " + std::to_string(this->size()) +
                            " ranks, MPI_COMM_WORLD " + std::to_string(size));
    }
    ~StrictCommunicator() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && check_ != MPI_COMM_NULL) MPI_Comm_free(&check_);
    }

protected:
    void do_barrier() override {
        check(signature(Call::Barrier));
        inner().barrier(site());
    }
    void do_bcast(void* buf, std::size_t count, DataType t, int root) override {
        Signature s = signature(Call::Bcast, t, count);
        s.root = root;
        check(s);
        inner().bcast(buf, count, t, root, site());
    }
    void do_allreduce(const void* send, void* recv, std::size_t count, DataType t, ReduceOp op) override {
        Signature s = signature(Call::Allreduce, t, count);
        s.op = static_cast<std::int32_t>(op);
        check(s);
        inner().allreduce(send, recv, count, t, op, site());
    }
    void do_allgather(const void* send, void* recv, std::size_t count, DataType t) override {
        check(signature(Call::Allgather, t, count));
        inner().allgather(send, recv, count, t, site());
    }
    void do_allgatherv(const void* send, void* recv, const std::vector<std::size_t>& counts, DataType t) override {
        std::size_t total = 0;
        for (std::size_t c : counts) total += c;
        Signature s = signature(Call::Allgatherv, t, total);
        s.counts = hash_counts(counts);
        if (counts.size() != static_cast<std::size_t>(size())) s.counts = ~s.counts;  // a wrong length disagrees too
        check(s);
        inner().allgatherv(send, recv, counts, t, site());
    }
    std::vector<std::vector<std::byte>> do_gatherv(const std::vector<std::byte>& blob, int root) override {
        Signature s = signature(Call::Gatherv);
        s.root = root;
        check(s);
        return inner().gatherv(blob, root, site());
    }
    void do_transfer(void* buf, std::size_t count, DataType t, int from, int to) override {
        Signature s = signature(Call::Transfer, t, count);
        s.root = from;
        s.peer = to;
        check_pair(s, from, to);
        inner().transfer(buf, count, t, from, to, site());
    }

private:
    Signature signature(Call c, DataType t = DataType::Byte, std::size_t count = 0) const {
        Signature s;
        s.call = static_cast<std::int32_t>(c);
        if (c != Call::Barrier && c != Call::Gatherv) {
            s.type = static_cast<std::int32_t>(t);
            s.count = static_cast<std::int64_t>(count);
        }
        s.line = static_cast<std::int32_t>(site().line());
        copy_text(s.file, sizeof s.file, short_file(site().file_name()));
        copy_text(s.function, sizeof s.function, short_function(site().function_name()));
        return s;
    }

    /// Wait for `req` (MPI_Test with a deadline); on the deadline, report `mine` and end the job.
    void wait(MPI_Request& req, const Signature& mine, const char* waiting_for) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto deadline = t0 + std::chrono::duration<double>(timeout_s_);
        auto pause = std::chrono::microseconds(1);
        for (;;) {
            int done = 0;
            if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                throw CommError("strict communicator: MPI_Test failed at " + mine.describe());
            if (done) return;
            if (std::chrono::steady_clock::now() > deadline) {
                std::fprintf(stderr,
                             "cudag: error: strict communicator: rank %d waited %.0f s at %s for %s; a rank "
                             "is in another kind of call (a collective against a point-to-point one), stuck "
                             "or gone\n",
                             rank(), timeout_s_, mine.describe().c_str(), waiting_for);
                std::fflush(stderr);
                MPI_Abort(MPI_COMM_WORLD, 1);
                std::_Exit(1);
            }
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::microseconds(2000));
        }
    }

    /// Every rank's signature of this collective; all must be the same call.
    void check(const Signature& mine) {
        const int n = size();
        std::vector<Signature> all(static_cast<std::size_t>(n));
        MPI_Request req = MPI_REQUEST_NULL;
        if (MPI_Iallgather(&mine, sizeof(Signature), MPI_BYTE, all.data(), sizeof(Signature), MPI_BYTE, check_, &req) !=
            MPI_SUCCESS)
            throw CommError("strict communicator: MPI_Iallgather failed at " + mine.describe());
        wait(req, mine, "every rank to enter a collective");
        bool same = true;
        for (const Signature& s : all) same = same && s.same_call(all[0]);
        if (same) return;
        std::string msg = "strict communicator: the ranks did not enter the same collective:";
        for (int r = 0; r < n; ++r)
            msg += " rank " + std::to_string(r) + " " + all[static_cast<std::size_t>(r)].describe() + ";";
        msg.pop_back();
        throw CommError(msg);
    }

    /// The sender's signature to the receiver, which compares it with its own and answers.
    void check_pair(const Signature& mine, int from, int to) {
        constexpr int kSignatureTag = 4713, kVerdictTag = 4714;
        const bool sending = rank() == from;
        Signature theirs;
        std::int32_t verdict = 0;
        MPI_Request req = MPI_REQUEST_NULL;
        if (sending) {
            MPI_Isend(&mine, sizeof(Signature), MPI_BYTE, to, kSignatureTag, check_, &req);
            wait(req, mine, "the receiver to take the transfer's description");
            MPI_Irecv(&verdict, 1, MPI_INT32_T, to, kVerdictTag, check_, &req);
            wait(req, mine, "the receiver's verdict");
            if (verdict == 1) return;
            MPI_Irecv(&theirs, sizeof(Signature), MPI_BYTE, to, kSignatureTag, check_, &req);
            wait(req, mine, "the receiver's call");
        } else {
            MPI_Irecv(&theirs, sizeof(Signature), MPI_BYTE, from, kSignatureTag, check_, &req);
            wait(req, mine, "the sender of a transfer");
            verdict = theirs.same_call(mine) ? 1 : 0;
            MPI_Isend(&verdict, 1, MPI_INT32_T, from, kVerdictTag, check_, &req);
            wait(req, mine, "the sender to take the verdict");
            if (verdict == 1) return;
            MPI_Isend(&mine, sizeof(Signature), MPI_BYTE, from, kSignatureTag, check_, &req);
            wait(req, mine, "the sender to take this call's description");
        }
        const Signature& s = sending ? mine : theirs;
        const Signature& r = sending ? theirs : mine;
        throw CommError("strict communicator: the two ranks of a transfer disagree: rank " + std::to_string(from) +
                        " " + s.describe() + "; rank " + std::to_string(to) + " " + r.describe());
    }

    double timeout_s_;
    MPI_Comm check_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<Communicator> make_strict_communicator(std::unique_ptr<Communicator> inner, double timeout_s) {
    if (inner->size() == 1) return inner;
    return std::make_unique<StrictCommunicator>(std::move(inner), timeout_s);
}

}  // namespace cudag::mpi
