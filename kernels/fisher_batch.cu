// SPDX-License-Identifier: Apache-2.0
#include "fisher_batch.cuh"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ci/fisher_z.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {
namespace {

/// Doubles of one thread's scratch for sets of up to l nodes: L (l²), factorisation
/// scratch (2 l²), the two projections (2 l).
__host__ __device__ constexpr std::int64_t scratch_doubles(int l) {
    return 3 * static_cast<std::int64_t>(l) * l + 2 * l;
}

/// One thread a query (grid-stride). A thread's scratch is interleaved with the other
/// threads' (ci::StridedDoubles: element k of slot s at ws[k·slots + s]), so that a warp's
/// threads, stepping through the same algebra, read and write their k-th elements together.
__global__ void batch_r_kernel(const double* __restrict__ c, std::int64_t n, std::int64_t nq,
                               const std::int32_t* __restrict__ x, const std::int32_t* __restrict__ y,
                               const std::int64_t* __restrict__ off, const std::int32_t* __restrict__ nodes, double* ws,
                               double* __restrict__ r) {
    const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t slots = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const ci::StridedDoubles lmat{ws + slot, slots};
    const std::int64_t base = off[0];
    for (std::int64_t q = slot; q < nq; q += slots) {
        const std::int32_t i = x[q], j = y[q];
        const std::int64_t b = off[q] - base;
        const int l = static_cast<int>(off[q + 1] - off[q]);
        const double cij = c[static_cast<std::int64_t>(i) * n + j];
        if (l == 0) {
            r[q] = cij;
            continue;
        }
        const int* sn = nodes + b;
        // As CpuFisherEngine::partial_correlation, with the same scratch layout per set.
        const ci::StridedDoubles scratch = lmat + l * l;
        const ci::StridedDoubles yi = scratch + 2 * l * l;
        const ci::StridedDoubles yj = yi + l;
        ci::BasicConditioningBlock<ci::StridedDoubles> block;
        block.lmat = lmat;
        block.factorise(c, n, sn, l, scratch);
        block.project(c, n, sn, i, yi);
        block.project(c, n, sn, j, yj);
        r[q] = ci::partial_correlation(block, cij, yi, yj);
    }
}

}  // namespace

void batch_partial_correlations(const double* c, std::int64_t n, const skeleton::FlatQueries& q, std::span<double> r,
                                cudaStream_t stream, std::size_t scratch_bytes) {
    const auto nq = static_cast<std::int64_t>(q.size());
    if (nq == 0) return;
    int lmax = 1;
    for (std::int64_t k = 0; k < nq; ++k)
        lmax = std::max(lmax, static_cast<int>(q.offsets[static_cast<std::size_t>(k) + 1] -
                                               q.offsets[static_cast<std::size_t>(k)]));
    const std::int64_t per_slot = scratch_doubles(lmax) * static_cast<std::int64_t>(sizeof(double));
    constexpr int kBlock = 128;
    std::int64_t slots = std::min<std::int64_t>(nq, std::int64_t{1} << 17);
    slots =
        std::max<std::int64_t>(1, std::min<std::int64_t>(slots, static_cast<std::int64_t>(scratch_bytes) / per_slot));
    const std::int64_t blocks = (slots + kBlock - 1) / kBlock;
    slots = blocks * kBlock;
    DeviceBuffer<std::int32_t> dx(q.x.size()), dy(q.y.size()), dn(std::max<std::size_t>(1, q.nodes.size()));
    DeviceBuffer<std::int64_t> doff(q.offsets.size());
    DeviceBuffer<double> dr(static_cast<std::size_t>(nq));
    DeviceBuffer<double> ws(static_cast<std::size_t>(slots * scratch_doubles(lmax)));
    dx.upload(q.x.data(), q.x.size(), stream);
    dy.upload(q.y.data(), q.y.size(), stream);
    doff.upload(q.offsets.data(), q.offsets.size(), stream);
    dn.upload(q.nodes.data(), q.nodes.size(), stream);
    batch_r_kernel<<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(c, n, nq, dx.data(), dy.data(), doff.data(),
                                                                         dn.data(), ws.data(), dr.data());
    CUDAG_CHECK_LAUNCH();
    dr.download(r.data(), static_cast<std::size_t>(nq), stream);
    CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void batch_fisher_z(const double* c, std::int64_t n, std::int64_t m, bool causal_learn,
                    const std::vector<std::string>& names, const skeleton::FlatQueries& q, std::span<double> r,
                    std::span<double> p, cudaStream_t stream, int host_threads) {
    CUDAG_EXPECTS(r.size() >= q.size() && p.size() >= q.size(), "fisher-z batch: result spans too short");
    batch_partial_correlations(c, n, q, r.first(q.size()), stream);
    const auto name = [&](std::int32_t v) {
        return static_cast<std::size_t>(v) < names.size() ? "'" + names[static_cast<std::size_t>(v)] + "'"
                                                          : "variable " + std::to_string(v + 1);
    };
    // p on the host's threads (each query's own arithmetic: the order changes nothing).
    parallel_for(0, static_cast<std::int64_t>(q.size()), std::max(1, host_threads), 4096, [&](std::int64_t i, int) {
        const auto k = static_cast<std::size_t>(i);
        const int l = static_cast<int>(q.offsets[k + 1] - q.offsets[k]);
        p[k] = ci::fisher_z_pvalue(r[k], m, l, causal_learn);
        if (!std::isfinite(r[k]) || !std::isfinite(p[k]))
            throw InputError("fisher-z: the test of " + name(q.x[k]) + " and " + name(q.y[k]) + " given " +
                             std::to_string(l) + " variable(s) gave a non-finite " +
                             (std::isfinite(r[k]) ? "p-value" : "statistic"));
    });
}

}  // namespace cudag::cuda
