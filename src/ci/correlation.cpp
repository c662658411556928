// SPDX-License-Identifier: Apache-2.0
#include "ci/correlation.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "mpi/partition.hpp"

namespace cudag::ci {

void check_no_constant_columns(const Dataset& data) {
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        const double* x = data.column(v);
        bool constant = true;
        for (std::int64_t s = 1; s < data.n_samples && constant; ++s) constant = x[s] == x[0];
        if (constant)
            throw InputError(data.source + ": column '" +
                             (v < static_cast<std::int64_t>(data.names.size()) ? data.names[v] : std::to_string(v)) +
                             "' is constant (all values " + std::to_string(x[0]) + "): it has no variance to test");
    }
}

namespace {

/// Tiles of 4 rows that share one pass over the columns, and their rows.
constexpr std::int64_t kBlockTiles = 8, kRows = 4 * kBlockTiles;

/// Columns standardised: z = (x - mean) / ||x - mean||, so that C = Zᵀ Z.
std::vector<double> standardised(const Dataset& data, int threads) {
    const std::int64_t n = data.n_vars, m = data.n_samples;
    std::vector<double> z(static_cast<std::size_t>(n * m));
    parallel_for(0, n, threads, 16, [&](std::int64_t v, int) {
        const double* x = data.column(v);
        double mean = 0.0;
        for (std::int64_t s = 0; s < m; ++s) mean += x[s];
        mean /= static_cast<double>(m);
        double ss = 0.0;
        double* zv = z.data() + v * m;
        for (std::int64_t s = 0; s < m; ++s) {
            zv[s] = x[s] - mean;
            ss += zv[s] * zv[s];
        }
        const double inv = 1.0 / std::sqrt(ss);
        for (std::int64_t s = 0; s < m; ++s) zv[s] *= inv;
    });
    return z;
}

/// acc[a][b] = Σ_s q[s·stride + a] · p[s·4 + b] for one 4×4 tile, s in order, each step
/// one fused multiply-add (std::fma: one rounding, the GPU's __fma_rn), so the sums are
/// the same bit for bit on every CPU and GPU. A clone for CPUs with FMA (chosen at load
/// time) runs the b lanes as one vector; elsewhere std::fma is the C library's, exact too.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("fma", "default")))
#endif
void tile_sums(const double* __restrict q, std::int64_t stride, const double* __restrict p,
               std::int64_t m, double (&acc)[4][4]) {
    double r0[4] = {}, r1[4] = {}, r2[4] = {}, r3[4] = {};
    for (std::int64_t s = 0; s < m; ++s, q += stride, p += 4) {
        const double x0 = q[0], x1 = q[1], x2 = q[2], x3 = q[3];
        for (int b = 0; b < 4; ++b) {
            r0[b] = std::fma(x0, p[b], r0[b]);
            r1[b] = std::fma(x1, p[b], r1[b]);
            r2[b] = std::fma(x2, p[b], r2[b]);
            r3[b] = std::fma(x3, p[b], r3[b]);
        }
    }
    for (int b = 0; b < 4; ++b) {
        acc[0][b] = r0[b];
        acc[1][b] = r1[b];
        acc[2][b] = r2[b];
        acc[3][b] = r3[b];
    }
}

/// Entries (i, j >= i) of the rows of tiles [tile_begin, tile_end) (tile t = rows 4t..4t+3)
/// into c, clamped to [-1, 1], by 4×4 register tiles.
void upper_rows(const std::vector<double>& z, std::int64_t n, std::int64_t m, int threads, std::int64_t tile_begin,
                std::int64_t tile_end, std::vector<double>& c) {
    // kBlockTiles tiles of 4 rows share one pass over the columns: their rows are packed
    // sample-major (q[s][a]) and each 4-column strip too (p[s][b]), so the 4×4 update of
    // one sample is two contiguous loads. Every entry is still summed over s in order,
    // so the values do not depend on the blocking (or on how ranks split the tiles).
    const std::int64_t blocks = (tile_end - tile_begin + kBlockTiles - 1) / kBlockTiles;
    parallel_for(0, blocks, threads, 1, [&](std::int64_t blk, int) {
        const std::int64_t t0 = tile_begin + blk * kBlockTiles;
        const std::int64_t t1 = std::min(tile_end, t0 + kBlockTiles);
        const std::int64_t r0 = t0 * 4;
        std::vector<double> q(static_cast<std::size_t>(m * kRows), 0.0), p(static_cast<std::size_t>(m * 4));
        for (std::int64_t a = 0; a < kRows && r0 + a < n; ++a) {
            const double* za = z.data() + (r0 + a) * m;
            for (std::int64_t s = 0; s < m; ++s) q[static_cast<std::size_t>(s * kRows + a)] = za[s];
        }
        for (std::int64_t j0 = r0; j0 < n; j0 += 4) {
            for (int b = 0; b < 4; ++b) {
                const double* zb = z.data() + std::min(j0 + b, n - 1) * m;
                for (std::int64_t s = 0; s < m; ++s) p[static_cast<std::size_t>(s * 4 + b)] = zb[s];
            }
            for (std::int64_t t = t0; t < t1; ++t) {
                const std::int64_t i0 = t * 4;
                if (j0 < i0) continue;  // below the diagonal
                const std::int64_t off = i0 - r0;
                double acc[4][4] = {};
                tile_sums(q.data() + off, kRows, p.data(), m, acc);
                for (int a = 0; a < 4 && i0 + a < n; ++a)
                    for (int b = 0; b < 4 && j0 + b < n; ++b) {
                        const std::int64_t i = i0 + a, j = j0 + b;
                        if (j < i) continue;
                        double r = acc[a][b];
                        if (r > 1.0) r = 1.0;
                        if (r < -1.0) r = -1.0;
                        c[i * n + j] = r;
                    }
            }
        }
    });
}

/// Unit diagonal, lower triangle from the upper.
void mirror(std::vector<double>& c, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
        c[i * n + i] = 1.0;
        for (std::int64_t j = 0; j < i; ++j) c[i * n + j] = c[j * n + i];
    }
}

}  // namespace

double correlation_work_bytes(std::int64_t n, std::int64_t m, int threads) {
    const std::int64_t blocks = ((n + 3) / 4 + kBlockTiles - 1) / kBlockTiles;
    const double workers = static_cast<double>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, blocks)));
    return 8.0 * static_cast<double>(n) * static_cast<double>(m) +
           workers * 8.0 * static_cast<double>(m) * static_cast<double>(kRows + 4);
}

std::vector<double> correlation_matrix(const Dataset& data, int threads) {
    const std::int64_t n = data.n_vars, m = data.n_samples;
    check_no_constant_columns(data);
    const std::vector<double> z = standardised(data, threads);
    std::vector<double> c(static_cast<std::size_t>(n * n));
    upper_rows(z, n, m, threads, 0, (n + 3) / 4, c);
    mirror(c, n);
    return c;
}

std::vector<double> correlation_matrix(const Dataset& data, int threads, mpi::Communicator& comm) {
    if (comm.size() == 1) return correlation_matrix(data, threads);
    const std::int64_t n = data.n_vars, m = data.n_samples;
    check_no_constant_columns(data);
    const std::vector<double> z = standardised(data, threads);
    // Cut whole tiles; tile t holds the rows 4t..4t+3, about 4(n - 4t) entries.
    const std::int64_t tiles = (n + 3) / 4;
    std::vector<double> work(static_cast<std::size_t>(tiles));
    for (std::int64_t t = 0; t < tiles; ++t) work[t] = static_cast<double>(n - 4 * t);
    const mpi::RowPartition part = mpi::partition_rows(work, comm.size());
    std::vector<double> c(static_cast<std::size_t>(n * n), 0.0);
    upper_rows(z, n, m, threads, part.begin(comm.rank()), part.end(comm.rank()), c);
    std::vector<std::size_t> counts(static_cast<std::size_t>(comm.size()));
    for (int r = 0; r < comm.size(); ++r) {
        const std::int64_t rows = std::min(4 * part.end(r), n) - std::min(4 * part.begin(r), n);
        counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(rows * n);
    }
    comm.allgatherv(c.data() + std::min(4 * part.begin(comm.rank()), n) * n, c.data(), counts, mpi::DataType::Float64);
    mirror(c, n);
    return c;
}

}  // namespace cudag::ci
