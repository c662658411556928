// SPDX-License-Identifier: Apache-2.0
// CUDA Gaussian (Fisher-z) skeleton engine: implements pc::SkeletonEngine with the
// kernels of correlation.cu, pc_gaussian_level0.cu, compact.cu and pc_gaussian_levels.cu.
//
// Results equal the CPU engine's (ci::CpuFisherEngine) for the same correlation matrix:
// the same kept pairs at level 0, and at every level l >= 1 the same per-entry
// kSeparated/kTested flags, the same (lexicographically smallest) separating sets and
// pMax, up to the last bits of p (GPU and glibc differ by ulps in erfc/log1p; the
// level kernels are built without FMA contraction to stay closest to the host code).
// LevelOutput::tests / Level0Output::tests count the tests the GPU actually ran: at
// level 0 exactly the CPU's number; at levels run by the entry scan (--scan-levels) the
// lower sides' sequential tests plus the upper sides of edges the lower side kept — fewer
// than the CPU engine, which also runs the upper side of edges already separated, and
// reproducible unless a row was cut into rank ranges; at levels run by cuPC-S/E usually
// more than the CPU (threads test sets of higher rank before a lower-rank separating set
// is published) and not reproducible from run to run.
//
// All work goes on the engine's stream. Host synchronisation points: the end of each
// call, plus one mid-call read of a count (kept pairs at level 0 without dense
// p-values; separated entries at level l, to size the winner pass).
#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "ci/correlation.hpp"
#include "ci/fisher_z.hpp"
#include "compact.cuh"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/trace.hpp"
#include "correlation.cuh"
#include "cuda_check.cuh"
#include "device_memory.cuh"
#include "engines.hpp"
#include "mpi/partition.hpp"
#include "pc_gaussian.cuh"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

/// Per-thread workspace budget of the runtime-l kernels.
constexpr std::size_t kGenericScratchBytes = std::size_t(256) << 20;
/// Rows up to this degree keep their entries in shared memory in cuPC-S (20 bytes each:
/// 40 KiB, under the 48 KiB default). Above kWideRowEntries the auto-tuner runs one
/// block of kWideRowThreads per row, so that the large block keeps occupancy up and one
/// shared copy of the row's best ranks prunes for all its threads.
constexpr int kMaxSharedEntries = 2048;
constexpr int kWideRowEntries = 384;
constexpr int kWideRowThreads = 256;
/// Auto-tuning shrinks threads per row (S) or per edge (E) while the level would
/// launch more than this many times the GPU's resident threads.
constexpr std::int64_t kOversubscribe = 4;
/// Largest θ and β·γ: the level kernels use up to ~160 registers per thread at L = 6,
/// so 256 threads per block stay within the 64K registers of an SM.
constexpr int kMaxBlockThreads = 256;
/// Entry scan: a row is cut into rank ranges of at least this many sets.
constexpr std::int64_t kScanMinSpan = 1024;
/// Entry scan rounds: the first covers ranks [0, FisherTunables::scan_first_round), each
/// later one kScanRoundGrowth times the ranks of the one before.
constexpr std::int64_t kScanRoundGrowth = 16;
/// Entry scan rounds after the first: a row with at most this many entries left gives each
/// a warp whose lanes split its ranks (kItemLanes) rather than one warp of mostly idle lanes.
constexpr int kScanLaneSplitEntries = 16;
static_assert(kScanLevelsMax == kMaxTemplateLevel, "the entry scan covers the compiled levels");

std::string device_label(int device) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return "GPU " + std::to_string(device);
    }
    return "GPU " + std::to_string(device) + " (" + prop.name + ")";
}

void check_device(int device) {
    const int count = device_count();
    if (count == 0)
        throw CudaError("cuda: no CUDA device is visible (" + device_report() +
                        "); use --backend cpu");
    if (device < 0 || device >= count)
        throw InputError("cuda: device " + std::to_string(device) + " requested but " +
                         std::to_string(count) + " CUDA device(s) are visible");
}

void check_policy_and_tunables(const pc::TestPolicy& policy, const FisherTunables& t) {
    if (policy.exhaustive) throw InputError("--compat causal-learn runs on the CPU backend only");
    if (t.variant != 's' && t.variant != 'e')
        throw InputError(std::string("--variant must be s or e, got '") + t.variant + "'");
    if (t.beta < 1 || t.gamma < 1 || t.theta < 1 || t.delta < 1)
        throw InputError("--beta, --gamma, --theta and --delta must be >= 1");
    if (t.theta > kMaxBlockThreads)
        throw InputError("--theta must be <= " + std::to_string(kMaxBlockThreads) + " (threads per block)");
    if (static_cast<std::int64_t>(t.beta) * t.gamma > kMaxBlockThreads)
        throw InputError("--beta x --gamma must be <= " + std::to_string(kMaxBlockThreads) +
                         " (threads per block)");
    if (t.delta > 65535) throw InputError("--delta must be <= 65535");
    if (t.scan_levels < 0 || t.scan_levels > kScanLevelsMax)
        throw InputError("--scan-levels must be in [0, " + std::to_string(kScanLevelsMax) + "]");
    if (t.scan_first_round < 1) throw InputError("the entry scan's first round must cover >= 1 set");
    if (t.scan_round_levels < 0 || t.scan_round_levels > kScanLevelsMax)
        throw InputError("--scan-round-levels must be in [0, " + std::to_string(kScanLevelsMax) + "]");
}

/// Free device memory must hold `need` bytes (plus a margin for the level buffers).
void check_fits(int device, std::size_t need, const std::string& what) {
    const auto [free_b, total_b] = device_memory_info();
    const std::size_t margin = std::size_t(64) << 20;
    if (need + margin > free_b)
        throw OutOfMemory("cuda: " + what + " needs " + format_bytes(need) + " of device memory but " +
                          device_label(device) + " has " + format_bytes(free_b) + " free of " +
                          format_bytes(total_b) + "; use --backend cpu or a larger GPU");
}

std::int64_t pair_base(std::int64_t i, std::int64_t n) { return i * n - i * (i + 1) / 2; }

int round_up(int x, int to) { return (x + to - 1) / to * to; }

class CudaFisherEngine final : public pc::SkeletonEngine, public pc::DeviceResults {
public:
    CudaFisherEngine(int device, std::int64_t n, std::int64_t m, const pc::TestPolicy& policy,
                     const FisherTunables& t)
        : device_(device), n_(n), m_(m), policy_(policy), tun_(t) {
        CUDAG_EXPECTS(n >= 1 && n <= INT32_MAX, "cuda: the number of variables must be in [1, 2^31)");
        DeviceGuard guard(device_);
        stream_ = std::make_unique<Stream>();
        int sms = 0, per_sm = 0;
        CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_));
        CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device_));
        resident_threads_ = static_cast<std::int64_t>(sms) * per_sm;
    }

    ~CudaFisherEngine() override {
        // Free everything with the engine's device current.
        try {
            DeviceGuard guard(device_);
            cudaStreamSynchronize(stream_->get());
            corr_.release(); bits_.release(); dense_.release(); counts_.release();
            koffsets_.release(); kcols_.release(); scan_items_.release(); kp_.release();
            survivors_.release(); survivor_rows_.release(); survivor_counts_.release();
            offsets_.release(); nbrs_.release(); best_.release(); pmax_.release(); mirror_.release();
            tests_.release(); rows_.release(); items_.release(); sel_.release();
            count_.release(); pwin_.release(); sets_.release(); scratch_.release();
            iscratch_.release(); nodes_.release(); block_.release(); eflags_.release(); enodes_.release();
            removal_.release(); keep_.release(); bit0_.release(); pos_.release(); next_offsets_.release();
            next_nbrs_.release(); removed_.release(); aoffsets_.release(); anbrs_.release();
            pend_offsets_.release(); pend_nbrs_.release();
            cub_ = CubScratch();
            stream_.reset();
        } catch (...) {
        }
    }

    /// Upload a host correlation matrix (n×n row-major).
    void load_correlation(const std::vector<double>& corr) {
        CUDAG_EXPECTS(static_cast<std::int64_t>(corr.size()) == n_ * n_,
                      "cuda: the correlation matrix must have n*n entries");
        DeviceGuard guard(device_);
        const std::size_t bytes = corr.size() * sizeof(double);
        check_fits(device_, bytes, "the " + dims() + " correlation matrix");
        symmetric_ = true;
        for (std::int64_t i = 0; i < n_ && symmetric_; ++i)
            for (std::int64_t j = 0; j < i; ++j)
                if (!(corr[static_cast<std::size_t>(i * n_ + j)] == corr[static_cast<std::size_t>(j * n_ + i)])) {
                    symmetric_ = false;
                    break;
                }
        whole_ = true;
        diag_known_ = false;
        corr_.resize_discard(corr.size());
        corr_.upload(corr.data(), corr.size(), stream());
        stream_->synchronize();
    }

    /// Whether C can be held whole: n² doubles (with the data and z while it is computed)
    /// within the free device memory and FisherTunables::corr_limit_bytes. Checks the
    /// columns; allocates nothing.
    bool correlation_fits(const Dataset& data) {
        ci::check_no_constant_columns(data);
        DeviceGuard guard(device_);
        const std::size_t nn = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
        const std::size_t nm = static_cast<std::size_t>(n_) * static_cast<std::size_t>(m_);
        const auto [free_b, total_b] = device_memory_info();
        const std::size_t margin = std::size_t(64) << 20;
        const bool fits = (nn + 2 * nm) * sizeof(double) + margin <= free_b &&
                          (tun_.corr_limit_bytes <= 0 ||
                           nn * sizeof(double) <= static_cast<std::size_t>(tun_.corr_limit_bytes));
        if (!fits)
            corr_note_ = "the " + dims() + " correlation matrix does not fit: it needs " +
                         format_bytes(nn * sizeof(double)) +
                         (tun_.corr_limit_bytes > 0 ? " (limit " + format_bytes(tun_.corr_limit_bytes) + ")" : "") +
                         "; " + device_label(device_) + " has " + format_bytes(free_b) + " free of " +
                         format_bytes(total_b) + ": C is computed in row blocks at level 0, then each rank " +
                         "holds the rows its first level's block needs (as many as fit) and sums any " +
                         "other entry again from the standardised data (the same values)";
        return fits;
    }

    /// Hold C whole (`whole`) or, when it does not fit, the standardised data; for
    /// `whole`, allocate C.
    void choose_correlation_mode(bool whole) {
        DeviceGuard guard(device_);
        whole_ = whole;
        diag_known_ = false;  // C is about to be written (whole, or in row blocks by ranks)
        const std::size_t nn = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
        const std::size_t nm = static_cast<std::size_t>(n_) * static_cast<std::size_t>(m_);
        if (whole) {
            check_fits(device_, (nn + 2 * nm) * sizeof(double),
                       "the " + dims() + " correlation matrix (with the " + std::to_string(m_) + "x" +
                           std::to_string(n_) + " data)");
            corr_.resize_discard(nn);
            return;
        }
        // Without C: z, the data while z is computed, level 0's bit adjacency.
        const std::size_t words = static_cast<std::size_t>((n_ + 63) / 64);
        check_fits(device_, 2 * nm * sizeof(double) + static_cast<std::size_t>(n_) * words * 8,
                   "the " + std::to_string(m_) + "x" + std::to_string(n_) +
                       " standardised data and the bit adjacency (C not held whole)");
    }

    /// Compute the correlation matrix of `data` on the device (or, when C is not held
    /// whole, the standardised columns it is computed from).
    void compute_correlation_of(const Dataset& data) {
        DeviceGuard guard(device_);
        if (whole_) {
            compute_correlation(data.values.data(), n_, m_, corr_.data(), stream());
        } else {
            z_.resize_discard(static_cast<std::size_t>(n_) * static_cast<std::size_t>(m_));
            standardise_columns(data.values.data(), n_, m_, z_.data(), stream());
        }
        stream_->synchronize();
    }

    /// Whether C is held whole with a diagonal of exactly 1 (read from the device once).
    bool unit_diagonal() {
        if (!whole_) return false;
        if (!diag_known_) {
            std::vector<double> diag(static_cast<std::size_t>(n_));
            CUDAG_CUDA_CHECK(cudaMemcpy2DAsync(diag.data(), sizeof(double), corr_.data(),
                                               static_cast<std::size_t>(n_ + 1) * sizeof(double), sizeof(double),
                                               static_cast<std::size_t>(n_), cudaMemcpyDeviceToHost, stream()));
            stream_->synchronize();
            unit_diag_ = std::all_of(diag.begin(), diag.end(), [](double v) { return v == 1.0; });
            diag_known_ = true;
        }
        return unit_diag_;
    }

    /// Where the kernels read C: whole, or the held rows and z.
    CorrSource corr_source() const {
        if (whole_) return whole_correlation(corr_.data(), n_);
        CorrSource c;
        c.rows = corr_.data();
        c.n = n_;
        c.lo = held_lo_;
        c.hi = held_hi_;
        c.z = z_.data();
        c.m = m_;
        return c;
    }

    /// C not whole: hold rows [row_begin, ...) of C, as many as fit beside `reserve` bytes
    /// (once per search; later levels read their other rows' entries from z).
    void hold_rows(std::int64_t row_begin, std::int64_t row_end, std::size_t reserve) {
        const std::size_t row_bytes = static_cast<std::size_t>(n_) * sizeof(double);
        const auto [free_b, total_b] = device_memory_info();
        std::size_t budget = free_b > reserve ? free_b - reserve : 0;
        if (tun_.corr_limit_bytes > 0) budget = std::min(budget, static_cast<std::size_t>(tun_.corr_limit_bytes));
        const std::int64_t fit = static_cast<std::int64_t>(budget / row_bytes);
        held_lo_ = row_begin;
        held_hi_ = row_begin + std::max<std::int64_t>(0, std::min(fit, row_end - row_begin));
        held_ready_ = true;
        if (held_hi_ == held_lo_) return;
        corr_.release();
        corr_.resize_discard(static_cast<std::size_t>(held_hi_ - held_lo_) * static_cast<std::size_t>(n_));
        launch_correlation_rows(z_.data(), n_, m_, held_lo_, held_hi_, false, corr_.data(), held_lo_, stream());
    }

    /// This rank's block of C's rows, upper triangle only (blocks of 64-row tiles of equal
    /// work, the same cut on every rank); share_correlation_blocks() completes C.
    void correlation_block_of(const Dataset& data, int rank, int ranks) {
        CUDAG_ASSERT(whole_);
        DeviceGuard guard(device_);
        constexpr std::int64_t kRowsPerTile = 64;
        const std::int64_t tiles = (n_ + kRowsPerTile - 1) / kRowsPerTile;
        std::vector<double> work(static_cast<std::size_t>(tiles));
        for (std::int64_t t = 0; t < tiles; ++t) work[t] = static_cast<double>(n_ - kRowsPerTile * t);
        const mpi::RowPartition part = mpi::partition_rows(work, ranks);
        const auto row_of = [&](std::int64_t tile) { return std::min(n_, tile * kRowsPerTile); };
        block_counts_.assign(static_cast<std::size_t>(ranks), 0);
        for (int r = 0; r < ranks; ++r)
            block_counts_[static_cast<std::size_t>(r)] =
                static_cast<std::size_t>((row_of(part.end(r)) - row_of(part.begin(r))) * n_);
        block_row0_ = row_of(part.begin(rank));
        const std::int64_t r1 = row_of(part.end(rank));
        DeviceBuffer<double> z(static_cast<std::size_t>(n_) * static_cast<std::size_t>(m_));
        standardise_columns(data.values.data(), n_, m_, z.data(), stream());
        launch_correlation_rows(z.data(), n_, m_, block_row0_, r1, true, corr_.data(), 0, stream());
        stream_->synchronize();
    }

    /// Collective: every rank's block to every rank (over the GPUs with NCCL), then the
    /// lower triangle from the upper.
    void share_correlation_blocks(mpi::Communicator& comm) {
        DeviceGuard guard(device_);
        comm.allgatherv(corr_.data() + block_row0_ * n_, corr_.data(), block_counts_, mpi::DataType::Float64);
        launch_mirror_lower(corr_.data(), n_, stream());
        stream_->synchronize();
    }

    std::vector<double> download_correlation() {
        CUDAG_EXPECTS(whole_, "cuda: the correlation matrix is not held whole");
        DeviceGuard guard(device_);
        std::vector<double> c(corr_.size());
        corr_.download(c.data(), c.size(), stream());
        stream_->synchronize();
        return c;
    }

    std::string name() const override { return "cuda"; }
    std::string setup_note() const override { return corr_note_; }
    std::int64_t n_vars() const override { return n_; }

    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                pc::Level0Output& out) override;
    bool level0_on_every_rank() const override { return true; }
    std::int64_t next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                               std::span<const std::int64_t> bit0, Adjacency& next) override;
    void run_level(int level, const Adjacency& snap, std::int64_t row_begin, std::int64_t row_end,
                   pc::LevelOutput& out) override;
    DeviceResults* device_results() override { return this; }
    void adopt_pmax(const pc::PmaxTable& pmax, bool from_level0) override;
    void settle_level(const Adjacency& snap, std::span<const std::byte> removal, std::span<const std::int64_t> bit0,
                      pc::SepSetLog& log) override;
    void return_pmax(pc::PmaxTable& pmax, bool overwrite) override;
    pc::PairPList pmax_pairs() override;
    PmaxBuffer pmax_buffer() override;
    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override;

private:
    cudaStream_t stream() const { return stream_->get(); }
    std::string dims() const { return std::to_string(n_) + "x" + std::to_string(n_); }
    /// Whether level l runs the entry scan. It reads C[S, j] for C[j, S]: only on an
    /// exactly symmetric C; it reads rows of C directly from level 2 on: only on C held whole.
    bool scan_level(int l) const { return symmetric_ && (whole_ || l == 1) && l <= tun_.scan_levels; }
    /// The entry scan of level a.l over `rows`: lower entries, then upper ones.
    void launch_scan(const LevelArgs& a, const Adjacency& snap, const std::vector<std::int32_t>& rows,
                     cudaStream_t s);
    /// A level's end once its kernels are queued: separated entries, winners, and the
    /// results packed for the search or unpacked into `out`.
    void finish_run(const Adjacency& snap, pc::LevelOutput& out);
    /// Allocate the runtime-l workspace for `threads` threads.
    void reserve_scratch(int l, std::int64_t threads) {
        scratch_.resize_discard(static_cast<std::size_t>(threads * workspace_doubles(l)));
        iscratch_.resize_discard(static_cast<std::size_t>(threads * workspace_ints(l)));
    }
    static std::int64_t max_slots(int l) {
        const std::size_t per = workspace_doubles(l) * sizeof(double) + workspace_ints(l) * sizeof(int);
        return std::max<std::int64_t>(1024, static_cast<std::int64_t>(kGenericScratchBytes / per));
    }

    int device_;
    std::int64_t resident_threads_ = 0;  ///< SMs × max threads per SM
    bool trace_ = trace_enabled();  ///< CUDAG_TRACE: per-level kernel and host timings
    bool symmetric_ = true;              ///< C is exactly symmetric (the entry scan needs it)
    bool diag_known_ = false;            ///< unit_diag_ holds for the current C
    bool unit_diag_ = false;             ///< C's diagonal is exactly 1 (see unit_diagonal())
    std::int64_t n_, m_;
    pc::TestPolicy policy_;
    FisherTunables tun_;
    std::unique_ptr<Stream> stream_;
    DeviceBuffer<double> corr_;  ///< C whole, or rows [held_lo_, held_hi_) of it
    bool whole_ = true;
    DeviceBuffer<double> z_;  ///< C not whole: the standardised columns (n×m)
    std::int64_t held_lo_ = 0, held_hi_ = 0;
    bool held_ready_ = false;  ///< C not whole: hold_rows() ran for this search
    std::string corr_note_;
    /// correlation_block_of: every rank's block (entries) and this rank's first row.
    std::vector<std::size_t> block_counts_;
    std::int64_t block_row0_ = 0;
    // level 0
    DeviceBuffer<std::uint64_t> bits_;
    DeviceBuffer<double> dense_;
    DeviceBuffer<std::int64_t> counts_, koffsets_;
    DeviceBuffer<std::int32_t> kcols_;
    DeviceBuffer<double> kp_;
    DeviceBuffer<std::int64_t> aoffsets_;  ///< level 0: the whole adjacency's CSR
    DeviceBuffer<std::int32_t> anbrs_;
    // levels >= 1
    DeviceBuffer<std::int64_t> offsets_;
    DeviceBuffer<std::int32_t> nbrs_;
    DeviceBuffer<u64> best_, pmax_, tests_;
    DeviceBuffer<std::int64_t> mirror_;
    DeviceBuffer<std::int32_t> rows_;
    DeviceBuffer<int2> items_;
    DeviceBuffer<ScanItem> scan_items_;
    DeviceBuffer<std::int32_t> survivors_, survivor_rows_, survivor_counts_;  ///< scan rounds
    DeviceBuffer<std::int64_t> sel_, count_;
    DeviceBuffer<double> pwin_;
    DeviceBuffer<std::int32_t> sets_;
    DeviceBuffer<double> scratch_;
    DeviceBuffer<int> iscratch_;
    /// Make offsets_/nbrs_ hold `snap`: the CSR this engine built for it (level 0's
    /// adjacency or next_snapshot's output, recognised by its offsets) or an upload.
    void hold_snapshot(const Adjacency& snap, cudaStream_t s);
    /// Keep a CSR just built on the device (in `off`/`nbrs`, with host offsets
    /// `host_offsets`) for the next hold_snapshot().
    void keep_pending(DeviceBuffer<std::int64_t>& off, DeviceBuffer<std::int32_t>& nbrs,
                      const std::vector<std::int64_t>& host_offsets, std::size_t entries) {
        std::swap(pend_offsets_, off);
        std::swap(pend_nbrs_, nbrs);
        pending_offsets_ = host_offsets;
        pending_entries_ = entries;
    }

    const Adjacency* uploaded_ = nullptr;  ///< the snapshot in offsets_/nbrs_ (this level's)
    DeviceBuffer<std::int64_t> pend_offsets_;  ///< the next snapshot, built here (see keep_pending)
    DeviceBuffer<std::int32_t> pend_nbrs_;
    std::vector<std::int64_t> pending_offsets_;  ///< its offsets on the host; empty: none
    std::size_t pending_entries_ = 0;
    DeviceBuffer<std::uint8_t> removal_, keep_;
    DeviceBuffer<std::int64_t> bit0_, pos_, next_offsets_;
    DeviceBuffer<std::int32_t> next_nbrs_;
    DeviceBuffer<unsigned long long> removed_;
    DeviceBuffer<std::uint8_t> eflags_;  ///< a level's per-entry flags, laid out like LevelOutput
    DeviceBuffer<std::int32_t> enodes_;  ///< a level's per-entry winning sets
    /// Upload the merged removal map (and bit0) unless this level's is already here.
    void hold_removal(std::span<const std::byte> removal, std::span<const std::int64_t> bit0, cudaStream_t s);
    const std::byte* removal_held_ = nullptr;  ///< the host map in removal_ (set by settle_level)
    // Results kept here (pc::DeviceResults): the pMax table and the level to settle.
    bool level0_whole_ = false;  ///< the last level0() ran every row: dense_ / kp_ hold the whole table
    bool p_stayed_ = false;      ///< the last level0() left its p-values here (Level0Output::p_stayed)
    bool dp_held_ = false, dp_dense_ = true;
    std::size_t dp_count_ = 0;  ///< the table's slots
    DeviceBuffer<double> dpmax_;          ///< the pMax table's values by slot
    DeviceBuffer<std::int64_t> dpoff_;    ///< sparse: row starts
    DeviceBuffer<std::int32_t> dpcol_;    ///< sparse: columns
    /// The level in flight (run_level to finish_run).
    struct LevelRun {
        LevelArgs a;
        std::vector<std::int32_t> rows;
        std::int64_t row_begin = 0, row_end = 0, n_entries = 0;
        bool scan = false, edge_parallel = false;
        std::chrono::steady_clock::time_point t_start, t_launch;
        std::unique_ptr<Event> ev_start, ev_end;
    } run_;
    struct PackedLevel {
        int l = 0;
        std::int64_t rows = 0, n_sel = 0;  ///< rows tested, entries separated (rows_, sel_, sets_)
    } packed_;
    DeviceBuffer<std::uint8_t> rbits_, wkeep_;
    DeviceBuffer<std::int64_t> wpos_;
    DeviceBuffer<std::int32_t> wpairs_, wnodes_;
    DeviceBuffer<TablePair> table_pairs_;
    // p_value
    DeviceBuffer<std::int32_t> nodes_;
    DeviceBuffer<double> block_;
    CubScratch cub_;
};

void CudaFisherEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                              pc::Level0Output& out) {
    const std::int64_t n = n_;
    if (row_end <= row_begin) return;
    CUDAG_EXPECTS(g.n() == n, "cuda level0: graph size differs from the engine's");
    DeviceGuard guard(device_);
    pending_offsets_.clear();  // a new search: nothing built for it yet
    level0_whole_ = false;
    dp_held_ = false;
    p_stayed_ = false;
    // The p-values may stay here (the search hands the table over right after).
    const bool keep_p = out.p_may_stay && row_begin == 0 && row_end == n;
    StepTrace tr;
    tr.start();
    cudaStream_t s = stream();
    const std::int64_t words = (n + 63) / 64;
    bits_.resize_discard(static_cast<std::size_t>(n * words));
    bits_.fill_bytes(0, s);

    if (!whole_) {
        // A new search holds its rows again at its first level.
        held_lo_ = held_hi_ = 0;
        held_ready_ = false;
        corr_.release();
    }
    Level0Args a;
    a.corr = corr_source();
    a.n = n;
    a.m = m_;
    a.alpha = policy_.alpha;
    a.strict = policy_.strict;
    a.row_begin = row_begin;
    a.row_end = row_end;
    a.bits = reinterpret_cast<std::uint32_t*>(bits_.data());
    a.words32 = 2 * words;
    const std::int64_t dense_count = pair_base(row_end, n) - pair_base(row_begin, n);
    if (dense) {
        CUDAG_ASSERT(static_cast<std::int64_t>(out.dense_p.size()) >= pair_base(row_end, n));
        dense_.resize_discard(static_cast<std::size_t>(dense_count));
        a.dense_p = dense_.data();
        a.dense_base = pair_base(row_begin, n);
    }
    if (whole_) {
        launch_gaussian_level0(a, s);
    } else {
        // Row blocks of C (upper triangle) in a buffer of about a quarter of free memory.
        const std::size_t row_bytes = static_cast<std::size_t>(n) * sizeof(double);
        std::size_t budget = device_memory_info().first / 4;
        if (tun_.corr_limit_bytes > 0) budget = std::min(budget, static_cast<std::size_t>(tun_.corr_limit_bytes));
        const std::int64_t fit = static_cast<std::int64_t>(budget / row_bytes);
        const std::int64_t rows_per_block =
            std::min(row_end - row_begin, std::max<std::int64_t>(64, fit / 64 * 64));
        DeviceBuffer<double> blk(static_cast<std::size_t>(rows_per_block) * static_cast<std::size_t>(n));
        for (std::int64_t b0 = row_begin; b0 < row_end; b0 += rows_per_block) {
            const std::int64_t b1 = std::min(row_end, b0 + rows_per_block);
            launch_correlation_rows(z_.data(), n, m_, b0, b1, true, blk.data(), b0, s);
            a.corr.rows = blk.data();
            a.corr.lo = b0;
            a.corr.hi = b1;
            a.row_begin = b0;
            a.row_end = b1;
            launch_gaussian_level0(a, s);
        }
        stream_->synchronize();  // before blk is freed
        tr.mark("C blocks+kernel");
    }

    if (!dense) {
        // The kept pairs with their p-values as an upper-triangle CSR (compaction of the
        // block's bit rows), copied straight into `out`; `g` is built from it by the caller.
        const std::int64_t rows = row_end - row_begin;
        counts_.resize_discard(static_cast<std::size_t>(rows + 1));
        koffsets_.resize_discard(static_cast<std::size_t>(rows + 1));
        const BitRowsView view{bits_.data(), words};
        launch_row_degrees(view, row_begin, row_end, true, counts_.data(), s);
        exclusive_sum(counts_.data(), koffsets_.data(), rows + 1, cub_, s);
        std::int64_t total = 0;
        koffsets_.download(&total, 1, s, static_cast<std::size_t>(rows));
        stream_->synchronize();
        tr.mark("kernel+count");
        out.kept_offsets.resize(static_cast<std::size_t>(n + 1));
        out.kept_cols.resize(static_cast<std::size_t>(total));
        out.kept_pvals.resize(static_cast<std::size_t>(total));
        if (total > 0) {
            kcols_.resize_discard(static_cast<std::size_t>(total));
            kp_.resize_discard(static_cast<std::size_t>(total));
            launch_row_neighbours(view, row_begin, row_end, true, koffsets_.data(), kcols_.data(), s);
            PairPArgs pa;
            pa.corr = corr_source();  // C not whole: entries summed again from z
            pa.n = n;
            pa.m = m_;
            pa.row_begin = row_begin;
            pa.n_rows = rows;
            pa.offsets = koffsets_.data();
            pa.cols = kcols_.data();
            pa.count = total;
            pa.p_out = kp_.data();
            launch_pair_pvalues(pa, s);
            // Fault the host pages in on threads while the GPU lists the pairs.
            first_touch(out.kept_cols.data(), out.kept_cols.size() * sizeof(std::int32_t), tun_.host_threads);
            kcols_.download(out.kept_cols.data(), out.kept_cols.size(), s);
            if (!keep_p) {
                first_touch(out.kept_pvals.data(), out.kept_pvals.size() * sizeof(double), tun_.host_threads);
                kp_.download(out.kept_pvals.data(), out.kept_pvals.size(), s);
            }
        }
        koffsets_.download(out.kept_offsets.data() + row_begin, static_cast<std::size_t>(rows + 1), s);
        if (row_begin == 0 && row_end == n) {
            // Every row ran, so the bits are symmetric: their full CSR is level 1's snapshot.
            aoffsets_.resize_discard(static_cast<std::size_t>(n + 1));
            anbrs_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(2 * total, 1)));
            launch_row_degrees(view, 0, n, false, counts_.data(), s);
            exclusive_sum(counts_.data(), aoffsets_.data(), n + 1, cub_, s);
            launch_row_neighbours(view, 0, n, false, aoffsets_.data(), anbrs_.data(), s);
            out.adjacency.n = n;
            out.adjacency.offsets.resize(static_cast<std::size_t>(n + 1));
            out.adjacency.nbrs.resize(static_cast<std::size_t>(2 * total));
            first_touch(out.adjacency.nbrs.data(), out.adjacency.nbrs.size() * sizeof(std::int32_t), tun_.host_threads);
            aoffsets_.download(out.adjacency.offsets.data(), out.adjacency.offsets.size(), s);
            anbrs_.download(out.adjacency.nbrs.data(), out.adjacency.nbrs.size(), s);
        }
        stream_->synchronize();
        if (out.adjacency.n == n) keep_pending(aoffsets_, anbrs_, out.adjacency.offsets, out.adjacency.nbrs.size());
        // Block-relative starts to absolute ones over all n rows (empty outside the block).
        std::int64_t* o = out.kept_offsets.data();
        std::fill(o, o + row_begin, 0);
        std::fill(o + row_end + 1, o + n + 1, total);
        tr.mark("kept pairs");
    } else {
        // Every p is wanted: the bits go to `g` and the p-values to out.dense_p.
        const std::size_t n_words = static_cast<std::size_t>(n * words);
        std::unique_ptr<std::uint64_t[]> bits(new std::uint64_t[n_words]);
        bits_.download(bits.get(), n_words, s);
        if (!keep_p) dense_.download(out.dense_p.data() + pair_base(row_begin, n), static_cast<std::size_t>(dense_count), s);
        stream_->synchronize();
        tr.mark("bits downloaded");
        auto& gw = g.words();
        constexpr std::int64_t kWords = 1 << 16;
        parallel_for(0, (static_cast<std::int64_t>(n_words) + kWords - 1) / kWords, std::max(1, tun_.host_threads), 1,
                     [&](std::int64_t c, int) {
                         const std::size_t b = static_cast<std::size_t>(c * kWords);
                         const std::size_t e = std::min(n_words, b + static_cast<std::size_t>(kWords));
                         for (std::size_t k = b; k < e; ++k) gw[k] |= bits[k];
                     });
    }
    for (std::int64_t i = row_begin; i < row_end; ++i) out.tests += n - 1 - i;
    level0_whole_ = row_begin == 0 && row_end == n;
    p_stayed_ = out.p_stayed = keep_p;
    tr.mark("graph+pairs");
    tr.print("cuda level 0");
}

void CudaFisherEngine::run_level(int level, const Adjacency& snap, std::int64_t row_begin,
                                 std::int64_t row_end, pc::LevelOutput& out) {
    const int l = level;
    CUDAG_ASSERT(l >= 1);
    CUDAG_EXPECTS(snap.n == n_, "cuda run_level: snapshot size differs from the engine's");
    const auto t_start = std::chrono::steady_clock::now();
    const std::int64_t n_entries = static_cast<std::int64_t>(snap.nbrs.size());
    uploaded_ = nullptr;
    packed_ = PackedLevel{};
    const bool scan = scan_level(l);
    const bool edge_parallel = !scan && tun_.variant == 'e';

    // Rows with something to test, heaviest first (blocks start in index order, so the
    // long rows do not end up in the tail of the grid).
    std::vector<std::int32_t> rows;
    std::vector<double> work(static_cast<std::size_t>(n_), 0.0);
    std::int64_t max_sets = 0, max_degree = 0;
    for (std::int64_t i = row_begin; i < row_end; ++i) {
        const std::int64_t d = snap.degree(i);
        if (d - 1 < l) continue;
        rows.push_back(static_cast<std::int32_t>(i));
        const std::int64_t sets = edge_parallel ? binomial(d - 1, l) : binomial(d, l);
        work[i] = static_cast<double>(sets) * static_cast<double>(d);
        max_sets = std::max(max_sets, sets);
        max_degree = std::max(max_degree, d);
    }
    if (rows.empty()) return;
    std::stable_sort(rows.begin(), rows.end(),
                     [&](std::int32_t x, std::int32_t y) { return work[x] > work[y]; });

    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    hold_snapshot(snap, s);
    best_.resize_discard(static_cast<std::size_t>(n_entries));
    pmax_.resize_discard(static_cast<std::size_t>(n_entries));
    tests_.resize_discard(1);
    best_.fill_bytes(0xff, s);
    pmax_.fill_bytes(kNoCorrelationByte, s);
    tests_.fill_bytes(0, s);
    rows_.resize_discard(rows.size());  // cuPC-S's grid and the result unpacking
    rows_.upload(rows.data(), rows.size(), s);
    mirror_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(n_entries, 1)));
    launch_mirror(offsets_.data(), nbrs_.data(), n_, mirror_.data(), s);

    if (!whole_ && !held_ready_) {
        // Level buffers of this size (and the winners' sets) beside a 1 GiB margin.
        hold_rows(row_begin, row_end, (std::size_t(1) << 30) + static_cast<std::size_t>(n_entries) * 64);
    }
    LevelArgs a;
    a.corr = corr_source();
    a.n = n_;
    a.m = m_;
    a.l = l;
    a.alpha = policy_.alpha;
    a.strict = policy_.strict;
    a.offsets = offsets_.data();
    a.nbrs = nbrs_.data();
    a.best = best_.data();
    a.pmax = pmax_.data();
    a.tests = tests_.data();
    a.mirror = mirror_.data();
    std::tie(a.r_lo, a.r_hi) = decision_band(m_, l, policy_.alpha, policy_.strict);
    a.generic = (tun_.generic_from_level > 0 && l >= tun_.generic_from_level) || l > kMaxTemplateLevel;
    a.unit_diag = scan && unit_diagonal();

    if (!run_.ev_start) {
        run_.ev_start = std::make_unique<Event>();
        run_.ev_end = std::make_unique<Event>();
    }
    run_.ev_start->record(s);
    const auto t_launch = std::chrono::steady_clock::now();
    if (scan) {
        launch_scan(a, snap, rows, s);
    } else if (!edge_parallel) {
        SetParallelLaunch sp;
        sp.theta = tun_.theta;
        sp.delta = tun_.delta;
        if (tun_.auto_tune) {
            if (max_sets < static_cast<std::int64_t>(sp.theta) * sp.delta) {
                // Too few sets per row to fill δ blocks of θ threads.
                sp.delta = 1;
                sp.theta = std::min(sp.theta, round_up(static_cast<int>(max_sets), 32));
            }
            // Many rows fill the GPU on their own: fewer threads per row means a narrower
            // window of ranks in flight, so fewer tests run after a lower-rank separating
            // set was found (at n = 20,000 level 1 ran 2.9x the CPU's tests with θδ = 128).
            const std::int64_t rows_n = static_cast<std::int64_t>(rows.size());
            while (rows_n * sp.theta * sp.delta > kOversubscribe * resident_threads_ &&
                   (sp.delta > 1 || sp.theta > 32)) {
                if (sp.delta > 1) sp.delta = std::max(1, sp.delta / 2);
                else sp.theta = std::max(32, sp.theta / 2);
            }
        }
        sp.shared_entries = static_cast<int>(std::min<std::int64_t>(max_degree, kMaxSharedEntries));
        if (tun_.auto_tune && sp.shared_entries > kWideRowEntries &&
            max_sets >= static_cast<std::int64_t>(kWideRowThreads)) {
            sp.theta = kWideRowThreads;
            sp.delta = 1;
        }
        sp.rows = rows_.data();
        sp.n_rows = static_cast<std::int64_t>(rows.size());
        if (a.generic) {
            a.slots = cupc_s_generic_threads(sp, max_slots(l));
            reserve_scratch(l, a.slots);
            a.scratch = scratch_.data();
            a.iscratch = iscratch_.data();
        }
        launch_cupc_s(a, sp, s);
    } else {
        EdgeParallelLaunch ep;
        ep.beta = tun_.beta;
        ep.gamma = tun_.gamma;
        if (tun_.auto_tune) {
            // γ threads per edge: no more than the edge's sets, and fewer when the edges
            // alone fill the GPU (each thread of an edge beyond the first runs tests a
            // sequential scan would have skipped). β grows to keep blocks of >= 64 threads.
            std::int64_t entries = 0;
            for (std::int32_t i : rows) entries += snap.degree(i);
            int g2 = 1;
            while (g2 < ep.gamma && g2 < max_sets) g2 *= 2;
            while (g2 > 1 && entries * g2 > kOversubscribe * resident_threads_) g2 /= 2;
            if (g2 < ep.gamma) {
                ep.beta = std::min(kMaxBlockThreads / g2, std::max(ep.beta, 64 / g2));
                ep.gamma = g2;
            }
        }
        std::vector<int2> items;
        for (std::int32_t i : rows) {
            const int d = static_cast<int>(snap.degree(i));
            for (int q0 = 0; q0 < d; q0 += ep.beta) items.push_back(make_int2(i, q0));
        }
        items_.resize_discard(items.size());
        items_.upload(items.data(), items.size(), s);
        ep.items = items_.data();
        ep.n_items = static_cast<std::int64_t>(items.size());
        if (a.generic) {
            a.slots = cupc_e_generic_threads(ep, max_slots(l));
            reserve_scratch(l, a.slots);
            a.scratch = scratch_.data();
            a.iscratch = iscratch_.data();
        }
        launch_cupc_e(a, ep, s);
    }
    run_.a = a;
    run_.rows = std::move(rows);
    run_.row_begin = row_begin;
    run_.row_end = row_end;
    run_.n_entries = n_entries;
    run_.scan = scan;
    run_.edge_parallel = edge_parallel;
    run_.t_start = t_start;
    run_.t_launch = t_launch;
    finish_run(snap, out);
}

void CudaFisherEngine::finish_run(const Adjacency& snap, pc::LevelOutput& out) {
    cudaStream_t s = stream();
    LevelArgs& a = run_.a;
    const int l = a.l;
    const std::vector<std::int32_t>& rows = run_.rows;
    const bool scan = run_.scan, edge_parallel = run_.edge_parallel;
    const std::int64_t n_entries = run_.n_entries;
    const auto t_start = run_.t_start, t_launch = run_.t_launch;
    run_.ev_end->record(s);
    // Separated entries of the block's rows, then their winning sets and p-values.
    const std::int64_t eb = snap.offsets[run_.row_begin], ee = snap.offsets[run_.row_end];
    sel_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(ee - eb, 1)));
    count_.resize_discard(1);
    launch_finish_level(a, eb, ee, s);
    select_separated(best_.data(), eb, ee, sel_.data(), count_.data(), cub_, s);
    std::int64_t n_sel = 0;
    u64 tests = 0;
    count_.download(&n_sel, 1, s);
    tests_.download(&tests, 1, s);
    stream_->synchronize();
    const auto t_selected = std::chrono::steady_clock::now();

    if (n_sel > 0) {
        pwin_.resize_discard(static_cast<std::size_t>(n_sel));
        sets_.resize_discard(static_cast<std::size_t>(n_sel * l));
        WinnerArgs w;
        w.entries = sel_.data();
        w.count = n_sel;
        w.ranks_exclude_entry = edge_parallel;
        w.p_out = pwin_.data();
        w.set_out = sets_.data();
        if (a.generic) {
            a.slots = winners_generic_threads(n_sel, max_slots(l));
            reserve_scratch(l, a.slots);
            a.scratch = scratch_.data();
            a.iscratch = iscratch_.data();
        }
        launch_gaussian_winners(a, w, s);
    }
    const auto trace_level = [&](std::chrono::steady_clock::time_point t_downloaded) {
        if (!trace_) return;
        const auto ms = [](auto a0, auto b0) { return std::chrono::duration<double, std::milli>(b0 - a0).count(); };
        std::fprintf(stderr, "cuda level %d: %s, %zu rows, %lld entries, %lld separated: host before launch %.1f ms, "
                     "kernels %.1f ms, until selected %.1f ms, winners+%s %.1f ms\n",
                     l, scan ? "scan" : (edge_parallel ? "E" : "S"), rows.size(), static_cast<long long>(n_entries),
                     static_cast<long long>(n_sel), ms(t_start, t_launch),
                     static_cast<double>(run_.ev_end->elapsed_ms_since(*run_.ev_start)),
                     ms(t_launch, t_selected),
                     out.packed ? "removal bits" : "unpack+downloads", ms(t_selected, t_downloaded));
    };
    if (out.packed) {
        // Results stay here for settle_level(); the host gets the removal bits.
        const auto block = static_cast<std::size_t>(ee - eb);
        rbits_.resize_discard(std::max<std::size_t>((block + 31) / 32 * 4, 4));
        launch_pack_level(best_.data(), eb, ee, sel_.data(), pwin_.data(), n_sel, pmax_.data(),
                          reinterpret_cast<std::uint32_t*>(rbits_.data()), s);
        CUDAG_ASSERT(out.removal_bits.size() == (block + 7) / 8);
        rbits_.download(reinterpret_cast<std::uint8_t*>(out.removal_bits.data()), out.removal_bits.size(), s);
        stream_->synchronize();
        packed_.l = l;
        packed_.rows = static_cast<std::int64_t>(rows.size());
        packed_.n_sel = n_sel;
        out.tests += static_cast<std::int64_t>(tests);
        trace_level(std::chrono::steady_clock::now());
        return;
    }
    // The block's results laid out like `out` on the device, then three straight copies
    // (no pinned staging buffers to allocate, no host loop over the entries).
    const auto block = static_cast<std::size_t>(ee - eb);
    eflags_.resize_discard(std::max<std::size_t>(block, 1));
    eflags_.fill_bytes(0, s);
    UnpackArgs u;
    u.rows = rows_.data();
    u.n_rows = static_cast<std::int64_t>(rows.size());
    u.offsets = offsets_.data();
    u.sel = sel_.data();
    u.pwin = pwin_.data();
    u.sets = sets_.data();
    u.n_sel = n_sel;
    u.l = l;
    u.e_begin = eb;
    u.tested = pc::kTested;
    u.separated = pc::kSeparated;
    u.flags = eflags_.data();
    u.pmax = pmax_.data();
    if (n_sel > 0) {
        enodes_.resize_discard(block * static_cast<std::size_t>(l));
        u.nodes = enodes_.data();
    }
    launch_unpack_level(u, static_cast<std::int64_t>(block), s);
    if (n_sel > 0)  // flags and pmax were touched by LevelOutput::reset; the sets were not
        first_touch(out.set_slot(static_cast<std::size_t>(eb)), block * static_cast<std::size_t>(l) * sizeof(std::int32_t),
                    tun_.host_threads);
    eflags_.download(out.flags.data() + eb, block, s);
    static_assert(sizeof(double) == sizeof(u64));
    pmax_.download(reinterpret_cast<u64*>(out.pmax.data() + eb), block, s, static_cast<std::size_t>(eb));
    if (n_sel > 0) enodes_.download(out.set_slot(static_cast<std::size_t>(eb)), block * static_cast<std::size_t>(l), s);
    stream_->synchronize();
    const auto t_downloaded = std::chrono::steady_clock::now();
    out.tests += static_cast<std::int64_t>(tests);
    trace_level(t_downloaded);
}

void CudaFisherEngine::launch_scan(const LevelArgs& a, const Adjacency& snap,
                                   const std::vector<std::int32_t>& rows, cudaStream_t s) {
    const int l = a.l;
    // Lower entries (j > i) are scanned before upper ones. Each side runs in rounds over
    // growing rank ranges [lo, hi): the first round over every entry, each later one over
    // the entries no earlier round separated (compacted on the device; the host reads
    // their counts per row to lay out the round). Most entries stop within the first
    // ranks, so the later, longer rounds run on full warps instead of warps whose lanes
    // wait on one or two entries that scan every set. Warp items are 32 entries of one
    // row; a row whose range would keep one warp far longer than the round's average warp
    // is cut into rank ranges. In a later round, a row with few entries left gives each
    // entry a warp of its own, the lanes splitting the entry's ranks (kItemLanes): its
    // entries no longer leave most of a warp's lanes idle.
    const double warps = static_cast<double>(std::max<std::int64_t>(1, resident_threads_ / 32));
    survivors_.resize_discard(std::max<std::size_t>(snap.nbrs.size(), 1));
    struct Run {
        std::int32_t row;
        int first;  ///< the side's first position (first round), or 0 (survivor lists)
        int count;  ///< entries of the side still to scan
        std::int64_t sets;
    };
    std::vector<ScanItem> items;
    for (int upper = 0; upper < 2; ++upper) {
        std::vector<Run> live;
        for (std::int32_t i : rows) {
            const std::int32_t* nb = snap.row(i);
            const int d = static_cast<int>(snap.degree(i));
            const int qs = static_cast<int>(std::upper_bound(nb, nb + d, i) - nb);  // first j > i
            const int qb = upper ? 0 : qs, qe = upper ? qs : d;
            if (qe > qb) live.push_back({i, qb, qe - qb, binomial(d, l)});
        }
        // Levels above tun_.scan_round_levels run one round: a round's shortest chain of
        // tests plus its sync can cost more than idle lanes do (n4000 level 4 on an H200,
        // exact tests: 4.8 ms in one round, 13.5 ms in rounds).
        std::int64_t lo = 0, hi = l <= tun_.scan_round_levels ? tun_.scan_first_round : std::numeric_limits<std::int64_t>::max();
        bool on_survivors = false;
        while (!live.empty()) {
            // A row's items: warps of up to 32 entries sharing the ranks, or (a later round,
            // few entries left) a warp per entry with the lanes splitting the ranks.
            const auto lane_split = [&](const Run& r) { return on_survivors && r.count <= kScanLaneSplitEntries; };
            double work = 0.0;  // warp-sets (in double: sums of C(d, l) over rows can pass 2^63)
            for (const Run& r : live) {
                const double range = static_cast<double>(std::min(hi, r.sets) - lo);
                work += lane_split(r) ? r.count * range / 32.0 : static_cast<double>((r.count + 31) / 32) * range;
            }
            const std::int64_t span = std::max<std::int64_t>(
                kScanMinSpan, static_cast<std::int64_t>(std::min(work / (kOversubscribe * warps), 1e18)));
            items.clear();
            for (const Run& r : live) {
                const std::int64_t r1 = std::min(hi, r.sets), range = r1 - lo;
                const bool lanes = lane_split(r);
                const std::int64_t per_warp = lanes ? (range + 31) / 32 : range;
                const std::int64_t parts = (per_warp + span - 1) / span;
                const int step = lanes ? 1 : 32;
                for (int c0 = 0; c0 < r.count; c0 += step) {
                    for (std::int64_t k = 0; k < parts; ++k) {
                        ScanItem it;
                        it.row = r.row;
                        it.q0 = r.first + c0;
                        it.q1 = r.first + std::min(c0 + step, r.count);
                        it.r0 = lo + range * k / parts;
                        it.r1 = lo + range * (k + 1) / parts;
                        it.flags = (it.r0 > 0 || it.r1 < r.sets ? kItemSplit : 0) | (lanes ? kItemLanes : 0);
                        items.push_back(it);
                    }
                }
            }
            scan_items_.resize_discard(items.size());
            scan_items_.upload(items.data(), items.size(), s);
            EntryScanLaunch launch;
            launch.items = scan_items_.data();
            launch.n_items = static_cast<std::int64_t>(items.size());
            launch.upper = upper != 0;
            launch.survivors = on_survivors ? survivors_.data() : nullptr;
            launch_entry_scan(a, launch, s);
            // The next round: the rows with ranks beyond hi, over their surviving entries.
            std::vector<Run> next;
            for (const Run& r : live)
                if (r.sets > hi) next.push_back(r);
            if (next.empty()) break;
            std::vector<std::int32_t> ids(next.size()), counts(next.size());
            for (std::size_t k = 0; k < next.size(); ++k) ids[k] = next[k].row;
            survivor_rows_.resize_discard(ids.size());
            survivor_counts_.resize_discard(ids.size());
            survivor_rows_.upload(ids.data(), ids.size(), s);
            launch_scan_survivors(a, survivor_rows_.data(), static_cast<std::int64_t>(ids.size()), upper != 0,
                                  survivors_.data(), survivor_counts_.data(), s);
            survivor_counts_.download(counts.data(), counts.size(), s);
            stream_->synchronize();
            live.clear();
            for (std::size_t k = 0; k < next.size(); ++k)
                if (counts[k] > 0) live.push_back({next[k].row, 0, counts[k], next[k].sets});
            lo = hi;
            hi = hi > std::numeric_limits<std::int64_t>::max() / kScanRoundGrowth ? std::numeric_limits<std::int64_t>::max()
                                                                                  : hi * kScanRoundGrowth;
            on_survivors = true;
        }
    }
}

std::int64_t CudaFisherEngine::next_snapshot(const Adjacency& snap, std::span<const std::byte> removal,
                                             std::span<const std::int64_t> bit0, Adjacency& next) {
    CUDAG_EXPECTS(snap.n == n_ && static_cast<std::int64_t>(bit0.size()) == n_,
                  "cuda next_snapshot: sizes differ from the engine's");
    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    const std::int64_t entries = static_cast<std::int64_t>(snap.nbrs.size());
    hold_snapshot(snap, s);  // a no-op unless run_level had nothing to test on this rank's rows
    uploaded_ = nullptr;
    hold_removal(removal, bit0, s);
    removal_held_ = nullptr;  // the next level's map is another
    keep_.resize_discard(static_cast<std::size_t>(entries + 1));
    pos_.resize_discard(static_cast<std::size_t>(entries + 1));
    removed_.resize_discard(1);
    removed_.fill_bytes(0, s);
    launch_next_keep(offsets_.data(), nbrs_.data(), n_, removal_.data(), bit0_.data(), keep_.data(),
                     removed_.data(), s);
    exclusive_sum_flags(keep_.data(), pos_.data(), entries, cub_, s);
    std::int64_t total = 0;
    unsigned long long removed = 0;
    pos_.download(&total, 1, s, static_cast<std::size_t>(entries));
    removed_.download(&removed, 1, s);
    stream_->synchronize();
    next_offsets_.resize_discard(static_cast<std::size_t>(n_ + 1));
    next_nbrs_.resize_discard(static_cast<std::size_t>(std::max<std::int64_t>(total, 1)));
    launch_next_gather(offsets_.data(), nbrs_.data(), n_, keep_.data(), pos_.data(), next_offsets_.data(),
                       next_nbrs_.data(), s);
    next.n = n_;
    next.offsets.resize(static_cast<std::size_t>(n_ + 1));
    next.nbrs.resize(static_cast<std::size_t>(total));
    next_offsets_.download(next.offsets.data(), next.offsets.size(), s);
    next_nbrs_.download(next.nbrs.data(), next.nbrs.size(), s);
    stream_->synchronize();
    keep_pending(next_offsets_, next_nbrs_, next.offsets, next.nbrs.size());
    return static_cast<std::int64_t>(removed);
}

void CudaFisherEngine::hold_removal(std::span<const std::byte> removal, std::span<const std::int64_t> bit0,
                                    cudaStream_t s) {
    if (removal_held_ == removal.data() && removal_.size() == std::max<std::size_t>(removal.size(), 1)) return;
    removal_.resize_discard(std::max<std::size_t>(removal.size(), 1));
    removal_.upload(reinterpret_cast<const std::uint8_t*>(removal.data()), removal.size(), s);
    bit0_.resize_discard(bit0.size());
    bit0_.upload(bit0.data(), bit0.size(), s);
}

void CudaFisherEngine::adopt_pmax(const pc::PmaxTable& pmax, bool from_level0) {
    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    const std::size_t count = pmax.values().size();
    dp_dense_ = pmax.is_dense();
    if (from_level0 && level0_whole_ && dp_dense_ && dense_.size() == count) {
        std::swap(dpmax_, dense_);  // level 0's p-values are the table: no copy
    } else if (from_level0 && level0_whole_ && !dp_dense_ && count > 0 && kp_.size() == count &&
               koffsets_.size() == static_cast<std::size_t>(n_ + 1)) {
        std::swap(dpmax_, kp_);  // level 0's kept pairs (upper CSR) are the sparse table
        std::swap(dpoff_, koffsets_);
        std::swap(dpcol_, kcols_);
    } else {
        CUDAG_ASSERT(!p_stayed_);  // the host table has no values to read
        dpmax_.resize_discard(std::max<std::size_t>(count, 1));
        dpmax_.upload(pmax.values().data(), count, s);
        if (!dp_dense_) {
            dpoff_.resize_discard(static_cast<std::size_t>(n_ + 1));
            dpoff_.upload(pmax.row_offsets(), static_cast<std::size_t>(n_ + 1), s);
            dpcol_.resize_discard(std::max<std::size_t>(count, 1));
            dpcol_.upload(pmax.cols(), count, s);
        }
        stream_->synchronize();  // the host table may change once this returns
    }
    dp_held_ = true;
    p_stayed_ = false;
    dp_count_ = count;
}

void CudaFisherEngine::settle_level(const Adjacency& snap, std::span<const std::byte> removal,
                                    std::span<const std::int64_t> bit0, pc::SepSetLog& log) {
    CUDAG_EXPECTS(snap.n == n_ && static_cast<std::int64_t>(bit0.size()) == n_,
                  "cuda settle_level: sizes differ from the engine's");
    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    hold_removal(removal, bit0, s);
    removal_held_ = removal.data();
    if (packed_.rows == 0) return;  // nothing tested on this rank's rows
    StepTrace tr;
    tr.start();
    struct Print {  // every return path
        StepTrace& t;
        ~Print() { t.print("cuda settle"); }
    } print{tr};
    CUDAG_ASSERT(dp_held_ && uploaded_ == &snap);
    SettleArgs a;
    a.n = n_;
    a.offsets = offsets_.data();
    a.nbrs = nbrs_.data();
    a.mirror = mirror_.data();
    a.removal = removal_.data();
    a.bit0 = bit0_.data();
    a.rows = rows_.data();
    a.n_rows = packed_.rows;
    a.p = pmax_.data();
    a.dense = dp_dense_;
    a.poff = dpoff_.data();
    a.pcol = dpcol_.data();
    a.table = reinterpret_cast<unsigned long long*>(dpmax_.data());
    a.sel = sel_.data();
    a.n_sel = packed_.n_sel;
    a.sets = sets_.data();
    a.l = packed_.l;
    launch_settle_pmax(a, s);
    if (packed_.n_sel == 0) return;
    wkeep_.resize_discard(static_cast<std::size_t>(packed_.n_sel + 1));
    wpos_.resize_discard(static_cast<std::size_t>(packed_.n_sel + 1));
    a.keep = wkeep_.data();
    a.pos = wpos_.data();
    launch_settle_keep(a, s);
    exclusive_sum_flags(wkeep_.data(), wpos_.data(), packed_.n_sel, cub_, s);
    std::int64_t count = 0;
    wpos_.download(&count, 1, s, static_cast<std::size_t>(packed_.n_sel));
    stream_->synchronize();
    tr.mark("pmax raised, winners counted");
    if (count == 0) return;
    const auto l = static_cast<std::size_t>(packed_.l);
    wpairs_.resize_discard(static_cast<std::size_t>(2 * count));
    wnodes_.resize_discard(static_cast<std::size_t>(count) * l);
    a.pairs_out = wpairs_.data();
    a.nodes_out = wnodes_.data();
    launch_settle_records(a, s);
    // The log's room, faulted in on threads while the records are written.
    const pc::SepSetLog::Slots room = log.append_uniform(static_cast<std::size_t>(count), packed_.l, tun_.host_threads);
    first_touch(room.pairs, static_cast<std::size_t>(2 * count) * sizeof(std::int32_t), tun_.host_threads);
    first_touch(room.nodes, static_cast<std::size_t>(count) * l * sizeof(std::int32_t), tun_.host_threads);
    tr.mark("log room");
    wpairs_.download(room.pairs, static_cast<std::size_t>(2 * count), s);
    wnodes_.download(room.nodes, static_cast<std::size_t>(count) * l, s);
    stream_->synchronize();
    tr.mark("records downloaded");
}

void CudaFisherEngine::return_pmax(pc::PmaxTable& pmax, bool overwrite) {
    const std::size_t count = pmax.values().size();
    CUDAG_EXPECTS(dp_held_ && (count == dpmax_.size() || (count == 0 && dpmax_.size() == 1)),
                  "cuda return_pmax: the table differs from the one adopted");
    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    if (overwrite) {
        // After level 0's p-values stayed here the host table is fresh memory: fault it
        // in on threads, not page by page inside the copy (n100000: 383 ms for 414 MB).
        first_touch(pmax.values().data(), count * sizeof(double), tun_.host_threads);
        dpmax_.download(pmax.values().data(), count, s);
        stream_->synchronize();
        return;
    }
    BulkVector<double> mine(count);
    first_touch(mine.data(), count * sizeof(double), tun_.host_threads);
    dpmax_.download(mine.data(), count, s);
    stream_->synchronize();
    double* v = pmax.values().data();
    parallel_for(0, static_cast<std::int64_t>(count), std::max(1, tun_.host_threads), 1 << 16,
                 [&](std::int64_t k, int) { v[k] = std::max(v[k], mine[static_cast<std::size_t>(k)]); });
}

CudaFisherEngine::PmaxBuffer CudaFisherEngine::pmax_buffer() {
    if (!dp_held_ || dp_count_ == 0) return {};
    DeviceGuard guard(device_);
    stream_->synchronize();  // the settle kernels that raised it have finished
    return {std::span<double>(dpmax_.data(), dp_count_), true};
}

pc::PairPList CudaFisherEngine::pmax_pairs() {
    CUDAG_EXPECTS(dp_held_, "cuda pmax_pairs: no table adopted");
    static_assert(sizeof(pc::PairP) == sizeof(TablePair) && offsetof(pc::PairP, p) == offsetof(TablePair, p));
    DeviceGuard guard(device_);
    cudaStream_t s = stream();
    StepTrace tr;
    tr.start();
    const auto count = static_cast<std::int64_t>(dp_count_);
    wkeep_.resize_discard(static_cast<std::size_t>(count + 1));
    wpos_.resize_discard(static_cast<std::size_t>(count + 1));
    TablePairsArgs a;
    a.n = n_;
    a.dense = dp_dense_;
    a.poff = dpoff_.data();
    a.pcol = dpcol_.data();
    a.values = dpmax_.data();
    a.count = count;
    a.flag = wkeep_.data();
    a.pos = wpos_.data();
    launch_table_flags(a, s);
    exclusive_sum_flags(wkeep_.data(), wpos_.data(), count, cub_, s);
    std::int64_t total = 0;
    wpos_.download(&total, 1, s, static_cast<std::size_t>(count));
    stream_->synchronize();
    tr.mark("counted");
    pc::PairPList out(static_cast<std::size_t>(total));
    if (total == 0) return out;
    table_pairs_.resize_discard(static_cast<std::size_t>(total));
    a.out = table_pairs_.data();
    launch_table_pairs(a, s);
    first_touch(out.data(), static_cast<std::size_t>(total) * sizeof(pc::PairP), tun_.host_threads);
    tr.mark("listed+touched");
    table_pairs_.download(reinterpret_cast<TablePair*>(out.data()), static_cast<std::size_t>(total), s);
    stream_->synchronize();
    tr.mark("downloaded");
    tr.print("cuda pmax pairs");
    return out;
}

void CudaFisherEngine::hold_snapshot(const Adjacency& snap, cudaStream_t s) {
    if (uploaded_ == &snap) return;
    if (!pending_offsets_.empty() && pending_entries_ == snap.nbrs.size() && pending_offsets_ == snap.offsets) {
        std::swap(offsets_, pend_offsets_);  // built here: no upload
        std::swap(nbrs_, pend_nbrs_);
    } else {
        offsets_.resize_discard(snap.offsets.size());
        offsets_.upload(snap.offsets.data(), snap.offsets.size(), s);
        nbrs_.resize_discard(std::max<std::size_t>(snap.nbrs.size(), 1));
        nbrs_.upload(snap.nbrs.data(), snap.nbrs.size(), s);
    }
    pending_offsets_.clear();
    uploaded_ = &snap;
}

double CudaFisherEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    const int l = static_cast<int>(s.size());
    const int k = l + 2;
    std::vector<std::int32_t> nodes;
    nodes.reserve(k);
    nodes.push_back(i);
    nodes.push_back(j);
    nodes.insert(nodes.end(), s.begin(), s.end());
    for (std::int32_t v : nodes) CUDAG_EXPECTS(v >= 0 && v < n_, "cuda p_value: variable out of range");
    std::vector<double> sub(static_cast<std::size_t>(k) * k);
    {
        DeviceGuard guard(device_);
        nodes_.resize_discard(nodes.size());
        block_.resize_discard(sub.size());
        nodes_.upload(nodes.data(), nodes.size(), stream());
        launch_gather_block(corr_source(), nodes_.data(), k, block_.data(), stream());
        block_.download(sub.data(), sub.size(), stream());
        stream_->synchronize();
    }
    // The CPU engine's computation on the gathered block (same values, same order).
    if (l == 0) return ci::fisher_z_pvalue(sub[1], m_, 0);
    std::vector<int> si(l);
    std::iota(si.begin(), si.end(), 2);
    std::vector<double> lmat(static_cast<std::size_t>(l) * l), scratch(2 * static_cast<std::size_t>(l) * l),
        yi(l), yj(l);
    ci::ConditioningBlock block;
    block.lmat = lmat.data();
    block.factorise(sub.data(), k, si.data(), l, scratch.data());
    block.project(sub.data(), k, si.data(), 0, yi.data());
    block.project(sub.data(), k, si.data(), 1, yj.data());
    const double r = ci::partial_correlation(block, sub[1], yi.data(), yj.data());
    return ci::fisher_z_pvalue(r, m_, l);
}

std::unique_ptr<CudaFisherEngine> make_engine(std::int64_t n, std::int64_t m,
                                              const pc::TestPolicy& policy, const FisherTunables& t,
                                              int device) {
    check_policy_and_tunables(policy, t);
    check_device(device);
    return std::make_unique<CudaFisherEngine>(device, n, m, policy, t);
}

}  // namespace

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

void warm_up(int device) noexcept {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count ||
        cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
        cudaGetLastError();  // the engine reports the error when it is built
}

std::string device_report() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    }
    if (count == 0) return "no CUDA device visible";
    std::string report;
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
            cudaGetLastError();
            report += "GPU " + std::to_string(d) + ": properties unavailable\n";
            continue;
        }
        std::size_t free_b = 0, total_b = prop.totalGlobalMem;
        int previous = 0;
        if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(d) == cudaSuccess) {
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
            cudaSetDevice(previous);
        } else {
            cudaGetLastError();
        }
        char line[512];
        std::snprintf(line, sizeof line, "GPU %d: %s, %.1f GiB, %.1f GiB free, compute capability %d.%d\n",
                      d, prop.name, total_b / 1073741824.0, free_b / 1073741824.0, prop.major,
                      prop.minor);
        report += line;
    }
    if (!report.empty()) report.pop_back();
    return report;
}

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine(const Dataset& data,
                                                       const pc::TestPolicy& policy,
                                                       const FisherTunables& t, int device,
                                                       mpi::Communicator* comm) {
    if (comm == nullptr || comm->size() == 1) {
        auto eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
        eng->choose_correlation_mode(eng->correlation_fits(data));
        eng->compute_correlation_of(data);
        return eng;
    }
    // Collective: a failure on any rank ends every rank at the same point (mpi::agree),
    // and every rank holds C the same way (whole only where it fits on every rank).
    std::unique_ptr<CudaFisherEngine> eng;
    std::exception_ptr err;
    int fits = 0;
    try {
        eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
        fits = eng->correlation_fits(data) ? 1 : 0;
    } catch (...) {
        err = std::current_exception();
    }
    mpi::agree(*comm, err);
    fits = comm->allreduce(fits, mpi::ReduceOp::Min);
    const bool split = fits == 1 && comm->name() == "nccl";
    try {
        eng->choose_correlation_mode(fits == 1);
        if (split)
            eng->correlation_block_of(data, comm->rank(), comm->size());
        else
            eng->compute_correlation_of(data);  // host communicators: each rank all of C
    } catch (...) {
        err = std::current_exception();
    }
    mpi::agree(*comm, err);
    if (split) {
        try {
            eng->share_correlation_blocks(*comm);
        } catch (...) {
            err = std::current_exception();
        }
        mpi::agree(*comm, err);
    }
    return eng;
}

std::unique_ptr<pc::SkeletonEngine> make_fisher_engine_from_corr(const std::vector<double>& corr,
                                                                 std::int64_t n,
                                                                 std::int64_t n_samples,
                                                                 const pc::TestPolicy& policy,
                                                                 const FisherTunables& t,
                                                                 int device) {
    auto eng = make_engine(n, n_samples, policy, t, device);
    eng->load_correlation(corr);
    return eng;
}

std::vector<double> gpu_correlation_rows(const Dataset& data, std::int64_t row_begin, std::int64_t row_end,
                                         int device) {
    const std::int64_t n = data.n_vars, m = data.n_samples;
    CUDAG_EXPECTS(0 <= row_begin && row_begin <= row_end && row_end <= n, "cuda: rows out of range");
    check_device(device);
    DeviceGuard guard(device);
    Stream stream;
    DeviceBuffer<double> z(static_cast<std::size_t>(n * m));
    standardise_columns(data.values.data(), n, m, z.data(), stream.get());
    const std::size_t count = static_cast<std::size_t>((row_end - row_begin) * n);
    DeviceBuffer<double> c(std::max<std::size_t>(count, 1));
    launch_correlation_rows(z.data(), n, m, row_begin, row_end, false, c.data(), row_begin, stream.get());
    std::vector<double> out(count);
    c.download(out.data(), count, stream.get());
    stream.synchronize();
    return out;
}

std::vector<double> gpu_correlation(const Dataset& data, int device) {
    pc::TestPolicy policy;
    FisherTunables t;
    auto eng = make_engine(data.n_vars, data.n_samples, policy, t, device);
    eng->choose_correlation_mode(true);
    eng->compute_correlation_of(data);
    return eng->download_correlation();
}

}  // namespace cudag::cuda
