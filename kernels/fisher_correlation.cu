// SPDX-License-Identifier: Apache-2.0
#include "fisher_correlation.cuh"

#include <algorithm>
#include <tuple>

#include "ci/correlation.hpp"
#include "correlation.cuh"
#include "cuda_check.hpp"

namespace cudag::cuda {
namespace {

std::string device_label(int device) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return "GPU " + std::to_string(device);
    }
    return "GPU " + std::to_string(device) + " (" + prop.name + ")";
}

/// Free device memory must hold `need` bytes (plus a margin for the level buffers).
void check_fits(int device, std::size_t need, const std::string& what) {
    const auto [free_b, total_b] = device_memory_info();
    const std::size_t margin = std::size_t(64) << 20;
    if (need + margin > free_b)
        throw OutOfMemory("cuda: " + what + " needs " + format_bytes(need) + " of device memory but " +
                          device_label(device) + " has " + format_bytes(free_b) + " free of " + format_bytes(total_b) +
                          "; use --backend cpu or a larger GPU");
}

}  // namespace

void CorrelationStore::load(const std::vector<double>& corr) {
    const std::int64_t n = ctx_.n;
    CUDAG_EXPECTS(static_cast<std::int64_t>(corr.size()) == n * n,
                  "cuda: the correlation matrix must have n*n entries");
    DeviceGuard guard(ctx_.device);
    const std::size_t bytes = corr.size() * sizeof(double);
    check_fits(ctx_.device, bytes, "the " + dims() + " correlation matrix");
    symmetric_ = true;
    for (std::int64_t i = 0; i < n && symmetric_; ++i)
        for (std::int64_t j = 0; j < i; ++j)
            if (!(corr[static_cast<std::size_t>(i * n + j)] == corr[static_cast<std::size_t>(j * n + i)])) {
                symmetric_ = false;
                break;
            }
    whole_ = true;
    diag_known_ = false;
    corr_.resize_discard(corr.size());
    corr_.upload(corr.data(), corr.size(), ctx_.stream());
    ctx_.synchronize();
}

bool CorrelationStore::fits(const Dataset& data) {
    ci::check_no_constant_columns(data);
    DeviceGuard guard(ctx_.device);
    const std::size_t nn = static_cast<std::size_t>(ctx_.n) * static_cast<std::size_t>(ctx_.n);
    const auto [free_b, total_b] = device_memory_info();
    const bool fits = plan_.correlation_fits(ctx_.n, ctx_.m, free_b);
    const std::int64_t limit = plan_.tunables().corr_limit_bytes;
    if (!fits)
        note_ = "the " + dims() + " correlation matrix does not fit: it needs " + format_bytes(nn * sizeof(double)) +
                (limit > 0 ? " (limit " + format_bytes(limit) + ")" : "") + "; " + device_label(ctx_.device) + " has " +
                format_bytes(free_b) + " free of " + format_bytes(total_b) +
                ": C is computed in row blocks at level 0, then each rank " +
                "holds the rows its first level's block needs (as many as fit) and sums any " +
                "other entry again from the standardised data (the same values)";
    return fits;
}

void CorrelationStore::choose_mode(bool whole) {
    const std::int64_t n = ctx_.n, m = ctx_.m;
    DeviceGuard guard(ctx_.device);
    whole_ = whole;
    diag_known_ = false;  // C is about to be written (whole, or in row blocks by ranks)
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const std::size_t nm = static_cast<std::size_t>(n) * static_cast<std::size_t>(m);
    if (whole) {
        check_fits(ctx_.device, (nn + 2 * nm) * sizeof(double),
                   "the " + dims() + " correlation matrix (with the " + std::to_string(m) + "x" + std::to_string(n) +
                       " data)");
        corr_.resize_discard(nn);
        return;
    }
    // Without C: z, the data while z is computed, level 0's bit adjacency.
    const std::size_t words = static_cast<std::size_t>((n + 63) / 64);
    const std::size_t bits =
        std::min(static_cast<std::size_t>(n) * words * 8, static_cast<std::size_t>(plan_.tunables().level0_bits_bytes));
    check_fits(ctx_.device, 2 * nm * sizeof(double) + bits,
               "the " + std::to_string(m) + "x" + std::to_string(n) +
                   " standardised data and the bit adjacency (C not held whole)");
}

void CorrelationStore::compute(const Dataset& data) {
    const std::int64_t n = ctx_.n, m = ctx_.m;
    DeviceGuard guard(ctx_.device);
    if (whole_) {
        compute_correlation(data.values.data(), n, m, corr_.data(), ctx_.stream(), plan_.tunables().corr_tile);
        // Its diagonal read now, with the wait for C: level 1 asks for it (a wait less there,
        // after its uploads and fills, while other engines' kernels hold the GPU).
        unit_diagonal();
        return;
    }
    z_.resize_discard(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    standardise_columns(data.values.data(), n, m, z_.data(), ctx_.stream());
    ctx_.synchronize();
}

void CorrelationStore::compute_block(const Dataset& data, int rank, int ranks) {
    CUDAG_ASSERT(whole_);
    const std::int64_t n = ctx_.n, m = ctx_.m;
    DeviceGuard guard(ctx_.device);
    const CorrelationBlocks blocks = FisherLevelPlanner::correlation_blocks(n, rank, ranks);
    block_counts_ = blocks.counts;
    block_row0_ = blocks.row0;
    DeviceBuffer<double> z(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    standardise_columns(data.values.data(), n, m, z.data(), ctx_.stream());
    launch_correlation_rows(z.data(), n, m, block_row0_, blocks.row1, true, corr_.data(), 0, ctx_.stream(),
                            plan_.tunables().corr_tile);
    ctx_.synchronize();
}

void CorrelationStore::share_blocks(mpi::Communicator& comm) {
    DeviceGuard guard(ctx_.device);
    comm.allgatherv(corr_.data() + block_row0_ * ctx_.n, corr_.data(), block_counts_, mpi::DataType::Float64);
    launch_mirror_lower(corr_.data(), ctx_.n, ctx_.stream());
    ctx_.synchronize();
}

std::vector<double> CorrelationStore::download() {
    CUDAG_EXPECTS(whole_, "cuda: the correlation matrix is not held whole");
    DeviceGuard guard(ctx_.device);
    std::vector<double> c(corr_.size());
    corr_.download(c.data(), c.size(), ctx_.stream());
    ctx_.synchronize();
    return c;
}

bool CorrelationStore::unit_diagonal() {
    if (!whole_) return false;
    if (!diag_known_) {
        const std::int64_t n = ctx_.n;
        std::vector<double> diag(static_cast<std::size_t>(n));
        CUDAG_CUDA_CHECK(cudaMemcpy2DAsync(diag.data(), sizeof(double), corr_.data(),
                                           static_cast<std::size_t>(n + 1) * sizeof(double), sizeof(double),
                                           static_cast<std::size_t>(n), cudaMemcpyDeviceToHost, ctx_.stream()));
        ctx_.synchronize();
        unit_diag_ = std::all_of(diag.begin(), diag.end(), [](double v) { return v == 1.0; });
        diag_known_ = true;
    }
    return unit_diag_;
}

CorrSource CorrelationStore::source() const {
    if (whole_) return whole_correlation(corr_.data(), ctx_.n);
    CorrSource c;
    c.rows = corr_.data();
    c.n = ctx_.n;
    c.lo = held_lo_;
    c.hi = held_hi_;
    c.z = z_.data();
    c.m = ctx_.m;
    return c;
}

void CorrelationStore::new_search() {
    if (whole_) return;
    // A new search holds its rows again at its first level.
    held_lo_ = held_hi_ = 0;
    held_ready_ = false;
    corr_.release();
}

void CorrelationStore::in_row_blocks(std::int64_t row_begin, std::int64_t row_end,
                                     const std::function<void(const CorrSource&, std::int64_t, std::int64_t)>& fn) {
    // Row blocks of C (upper triangle) in a buffer of about a quarter of free memory.
    const std::int64_t n = ctx_.n;
    const std::int64_t rows_per_block = plan_.level0_rows_per_block(n, row_begin, row_end, device_memory_info().first);
    DeviceBuffer<double> blk(static_cast<std::size_t>(rows_per_block) * static_cast<std::size_t>(n));
    CorrSource c = source();
    for (std::int64_t b0 = row_begin; b0 < row_end; b0 += rows_per_block) {
        const std::int64_t b1 = std::min(row_end, b0 + rows_per_block);
        launch_correlation_rows(z_.data(), n, ctx_.m, b0, b1, true, blk.data(), b0, ctx_.stream(),
                                plan_.tunables().corr_tile);
        c.rows = blk.data();
        c.lo = b0;
        c.hi = b1;
        fn(c, b0, b1);
    }
    ctx_.synchronize();  // before blk is freed
}

void CorrelationStore::hold_rows_once(std::int64_t row_begin, std::int64_t row_end, std::size_t reserve) {
    if (whole_ || held_ready_) return;
    const std::int64_t n = ctx_.n;
    std::tie(held_lo_, held_hi_) = plan_.held_rows(n, row_begin, row_end, device_memory_info().first, reserve);
    held_ready_ = true;
    if (held_hi_ == held_lo_) return;
    corr_.release();
    corr_.resize_discard(static_cast<std::size_t>(held_hi_ - held_lo_) * static_cast<std::size_t>(n));
    launch_correlation_rows(z_.data(), n, ctx_.m, held_lo_, held_hi_, false, corr_.data(), held_lo_, ctx_.stream(),
                            plan_.tunables().corr_tile);
}

void CorrelationStore::release_held() {
    if (whole_ || held_hi_ == held_lo_) return;
    corr_.release();
    held_lo_ = held_hi_ = 0;
}

std::vector<double> CorrelationStore::gather_block(const std::vector<std::int32_t>& nodes) {
    const int k = static_cast<int>(nodes.size());
    std::vector<double> sub(static_cast<std::size_t>(k) * k);
    DeviceGuard guard(ctx_.device);
    nodes_.resize_discard(nodes.size());
    block_.resize_discard(sub.size());
    nodes_.upload(nodes.data(), nodes.size(), ctx_.stream());
    launch_gather_block(source(), nodes_.data(), k, block_.data(), ctx_.stream());
    block_.download(sub.data(), sub.size(), ctx_.stream());
    ctx_.synchronize();
    return sub;
}

}  // namespace cudag::cuda
