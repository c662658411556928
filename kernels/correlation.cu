// SPDX-License-Identifier: Apache-2.0
// The correlation matrix on the GPU: standardise the columns, one cuBLAS DSYRK, then
// symmetrise / clamp. The same recipe as ci::correlation_matrix (CPU); sums are
// reduced in a different order, so entries agree to a few ulps, not bit for bit.
#include "correlation.cuh"

#include <cub/cub.cuh>

#include <climits>

#include "cuda_check.cuh"
#include "device_memory.cuh"

namespace cudag::cuda {
namespace {

constexpr int kStdThreads = 256;

/// One block per column v: z = (x - mean) / ||x - mean|| in place (two block reductions).
__global__ void standardise_kernel(double* z, std::int64_t n, std::int64_t m) {
    using BlockReduce = cub::BlockReduce<double, kStdThreads>;
    __shared__ typename BlockReduce::TempStorage tmp;
    __shared__ double shared_value;
    for (std::int64_t v = blockIdx.x; v < n; v += gridDim.x) {
        double* x = z + v * m;
        double s = 0.0;
        for (std::int64_t k = threadIdx.x; k < m; k += kStdThreads) s += x[k];
        s = BlockReduce(tmp).Sum(s);
        if (threadIdx.x == 0) shared_value = s / static_cast<double>(m);
        __syncthreads();
        const double mean = shared_value;
        double ss = 0.0;
        for (std::int64_t k = threadIdx.x; k < m; k += kStdThreads) {
            const double c = x[k] - mean;
            x[k] = c;
            ss += c * c;
        }
        __syncthreads();  // tmp and shared_value are reused
        ss = BlockReduce(tmp).Sum(ss);
        if (threadIdx.x == 0) shared_value = 1.0 / sqrt(ss);
        __syncthreads();
        const double inv = shared_value;
        for (std::int64_t k = threadIdx.x; k < m; k += kStdThreads) x[k] *= inv;
        __syncthreads();
    }
}

/// Thread (i = blockIdx.y stride, j = column): DSYRK filled the column-major upper
/// triangle, i.e. row-major entries (i, j) with j <= i. The thread of j > i copies
/// (j, i) to (i, j), clamping both; i == j gets 1.
__global__ void finish_correlation_kernel(double* c, std::int64_t n) {
    const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= n) return;
    for (std::int64_t i = blockIdx.y; i < n; i += gridDim.y) {
        if (j == i) {
            c[i * n + i] = 1.0;
        } else if (j > i) {
            double r = c[j * n + i];
            r = r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
            c[j * n + i] = r;
            c[i * n + j] = r;
        }
    }
}

__global__ void gather_block_kernel(const double* corr, std::int64_t n, const std::int32_t* nodes,
                                    int k, double* out) {
    for (int t = threadIdx.x; t < k * k; t += blockDim.x)
        out[t] = corr[static_cast<std::int64_t>(nodes[t / k]) * n + nodes[t % k]];
}

/// cuBLAS handle bound to a stream for one call's lifetime.
class Cublas {
public:
    explicit Cublas(cudaStream_t s) {
        CUDAG_CUBLAS_CHECK(cublasCreate(&h_));
        CUDAG_CUBLAS_CHECK(cublasSetStream(h_, s));
    }
    ~Cublas() { cublasDestroy(h_); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

}  // namespace

void compute_correlation(const double* h_values, std::int64_t n, std::int64_t m, double* d_corr,
                         cudaStream_t stream) {
    if (n <= 0) return;
    CUDAG_EXPECTS(n <= INT_MAX && m <= INT_MAX, "cuda: the correlation needs n and m below 2^31");
    DeviceBuffer<double> z(static_cast<std::size_t>(n) * static_cast<std::size_t>(m));
    z.upload(h_values, z.size(), stream);
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(n, 1 << 16));
    standardise_kernel<<<blocks, kStdThreads, 0, stream>>>(z.data(), n, m);
    CUDAG_CHECK_LAUNCH();
    {
        Cublas blas(stream);
        const double one = 1.0, zero = 0.0;
        // Z is m×n column-major (lda = m); C = Zᵀ Z into the upper triangle.
        CUDAG_CUBLAS_CHECK(cublasDsyrk(blas.get(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T,
                                       static_cast<int>(n), static_cast<int>(m), &one, z.data(),
                                       static_cast<int>(m), &zero, d_corr, static_cast<int>(n)));
    }
    const dim3 grid(static_cast<unsigned>((n + 255) / 256),
                    static_cast<unsigned>(std::min<std::int64_t>(n, 65535)));
    finish_correlation_kernel<<<grid, 256, 0, stream>>>(d_corr, n);
    CUDAG_CHECK_LAUNCH();
    // z is freed when it goes out of scope; cudaFree waits for the queued work.
}

void launch_gather_block(const double* d_corr, std::int64_t n, const std::int32_t* d_nodes, int k,
                         double* d_out, cudaStream_t stream) {
    gather_block_kernel<<<1, 128, 0, stream>>>(d_corr, n, d_nodes, k, d_out);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
