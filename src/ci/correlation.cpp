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
                             (v < static_cast<std::int64_t>(data.names.size()) ? data.names[v]
                                                                               : std::to_string(v)) +
                             "' is constant (all values " + std::to_string(x[0]) +
                             "): it has no variance to test");
    }
}

namespace {

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

/// Entries (i, j >= i) of the rows of tiles [tile_begin, tile_end) (tile t = rows 4t..4t+3)
/// into c, clamped to [-1, 1]. 4×4 register tiles over (i, j >= i) so every z column is
/// streamed n/4 times.
void upper_rows(const std::vector<double>& z, std::int64_t n, std::int64_t m, int threads,
                std::int64_t tile_begin, std::int64_t tile_end, std::vector<double>& c) {
    parallel_for(tile_begin, tile_end, threads, 1, [&](std::int64_t bi, int) {
        const std::int64_t i0 = bi * 4;
        for (std::int64_t j0 = i0; j0 < n; j0 += 4) {
            double acc[4][4] = {};
            const double* zi[4];
            const double* zj[4];
            for (int a = 0; a < 4; ++a) {
                zi[a] = z.data() + std::min(i0 + a, n - 1) * m;
                zj[a] = z.data() + std::min(j0 + a, n - 1) * m;
            }
            for (std::int64_t s = 0; s < m; ++s) {
                const double x0 = zi[0][s], x1 = zi[1][s], x2 = zi[2][s], x3 = zi[3][s];
                for (int b = 0; b < 4; ++b) {
                    const double y = zj[b][s];
                    acc[0][b] += x0 * y;
                    acc[1][b] += x1 * y;
                    acc[2][b] += x2 * y;
                    acc[3][b] += x3 * y;
                }
            }
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
    comm.allgatherv(c.data() + std::min(4 * part.begin(comm.rank()), n) * n, c.data(), counts,
                    mpi::DataType::Float64);
    mirror(c, n);
    return c;
}

}  // namespace cudag::ci
