// SPDX-License-Identifier: Apache-2.0
// kernels/regression_warp.cuh's warp functions run on the host, each lane of a warp one of 32
// threads (the shuffles, votes and __syncwarp emulated with a barrier), against
// regression_core's single-threaded functions, bit for bit: least squares (all rows and a row
// list; 5 to 1,031 rows; designs of continuous, one-hot and ones columns), the logistic
// deviances (binary and multinomial, sklearn's stop) and normaltest's moments. A check of the
// warp kernels' arithmetic and lane bookkeeping where no GPU is at hand (the GPU's own check is
// tests/gpu/test_cuda_regression.cpp); a mismatched __syncwarp shows as a hang. Not part of
// the build; a few minutes on two cores:
//   g++ -std=c++20 -O1 -ffp-contract=off -I src -I . -o /tmp/regression_warp_emulation
//       scripts/dev/regression_warp_emulation.cpp -lpthread && /tmp/regression_warp_emulation
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>
#define __device__
#define __host__
#define __global__
struct Idx {
    unsigned x;
};
thread_local Idx threadIdx;
static std::barrier<> bar(32);
static double sd[32];
static long long si[32];
inline void __syncwarp(unsigned = 0xffffffffu) { bar.arrive_and_wait(); }
inline double __shfl_xor_sync(unsigned, double v, int m) {
    int l = threadIdx.x;
    sd[l] = v;
    bar.arrive_and_wait();
    double r = sd[l ^ m];
    bar.arrive_and_wait();
    return r;
}
inline int __shfl_xor_sync(unsigned, int v, int m) {
    int l = threadIdx.x;
    si[l] = v;
    bar.arrive_and_wait();
    int r = (int)si[l ^ m];
    bar.arrive_and_wait();
    return r;
}
inline double __shfl_sync(unsigned, double v, int src) {
    int l = threadIdx.x;
    sd[l] = v;
    bar.arrive_and_wait();
    double r = sd[src];
    bar.arrive_and_wait();
    return r;
}
inline bool __all_sync(unsigned, bool p) {
    int l = threadIdx.x;
    si[l] = p;
    bar.arrive_and_wait();
    bool r = true;
    for (int j = 0; j < 32; ++j) r = r && si[j];
    bar.arrive_and_wait();
    return r;
}
#include "kernels/regression_warp.cuh"
using namespace cudag;
namespace core = ci::regression_core;
namespace warp = cuda::regression_warp;

template <class F>
double on_warp(F f) {
    double out[32];
    std::vector<std::thread> t;
    for (int l = 0; l < 32; ++l)
        t.emplace_back([&, l] {
            threadIdx.x = l;
            out[l] = f();
        });
    for (auto& x : t) x.join();
    for (int l = 1; l < 32; ++l)
        if (std::memcmp(&out[l], &out[0], 8) != 0) {
            std::printf("lanes differ\n");
        }
    return out[0];
}

int main() {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> z(0, 1);
    int bad = 0, runs = 0;
    for (long long n : {5LL, 8LL, 31LL, 33LL, 100LL, 129LL, 300LL, 1000LL, 1031LL}) {
        for (int trial = 0; trial < 4; ++trial) {
            const int nv = 5;
            std::vector<std::vector<double>> cols(nv, std::vector<double>(n));
            std::vector<int> levels = {0, 3, 0, 4, 2 + trial % 3};
            for (int v = 0; v < nv; ++v)
                for (long long r = 0; r < n; ++r) {
                    if (levels[v])
                        cols[v][r] = (double)((r * (v + 3) + (long long)(std::fabs(z(rng)) * 2)) % levels[v]);
                    else
                        cols[v][r] = z(rng) * (v + 1) + (v ? 0.5 * cols[v - 1][r] : 0.0) + 10 * v;
                }
            // Maps: identity (every level occurs for n >= levels... check)
            std::vector<std::vector<int>> maps(nv);
            std::vector<int> width(nv, 1);
            for (int v = 0; v < nv; ++v)
                if (levels[v]) {
                    std::vector<int> cnt(levels[v], 0);
                    for (double c : cols[v]) cnt[(int)c]++;
                    int w = 0;
                    maps[v].assign(levels[v], -1);
                    for (int l = 0; l < levels[v]; ++l)
                        if (cnt[l]) maps[v][l] = w++;
                    width[v] = w;
                }
            auto dv = [&](int v) {
                core::DesignVar d;
                d.col = cols[v].data();
                if (levels[v]) {
                    d.kind = core::kDiscrete;
                    d.map = maps[v].data();
                    d.width = width[v];
                }
                return d;
            };
            // rows: all, or a row list (every other + some)
            std::vector<std::int32_t> rowlist;
            for (long long r = 0; r < n; ++r)
                if (r % 3 != 1) rowlist.push_back((int)r);
            for (int rl = 0; rl < 2; ++rl) {
                const std::int32_t* rows = rl ? rowlist.data() : nullptr;
                const long long nn = rl ? (long long)rowlist.size() : n;
                if (nn < 2) continue;
                // Linear: dep var 0 (continuous) on [2, 1, 3] or ones
                for (int setup = 0; setup < 3; ++setup) {
                    std::vector<core::DesignVar> vars;
                    if (setup == 0) {
                        core::DesignVar o;
                        o.kind = core::kOnes;
                        vars.push_back(dv(2));
                        vars.push_back(o);
                    }
                    if (setup == 1) {
                        vars.push_back(dv(2));
                        vars.push_back(dv(1));
                    }
                    if (setup == 2) {
                        vars.push_back(dv(1));
                        vars.push_back(dv(2));
                        vars.push_back(dv(3));
                        vars.push_back(dv(4));
                    }
                    int p = 0;
                    for (auto& v : vars) p += v.width;
                    core::Design d{rows, nn, vars.data(), (int)vars.size(), p};
                    std::vector<double> w1(core::linear_doubles(nn, p)), w2(w1.size());
                    std::vector<std::int32_t> perm(p);
                    const double want = core::residual_sum_of_squares(d, cols[0].data(), w1.data(), perm.data());
                    const double got =
                        on_warp([&] { return warp::residual_sum_of_squares(d, cols[0].data(), w2.data()); });
                    ++runs;
                    if (std::memcmp(&want, &got, 8)) {
                        ++bad;
                        std::printf("rss n %lld rl %d setup %d: %.17g vs %.17g\n", n, rl, setup, want, got);
                    }
                    // Logistic: dep var 4 (discrete) or 1 (3 levels), design vars
                    for (int dep_v : {4, 1, 3}) {
                        if (setup == 2 && dep_v != 4) continue;
                        core::DesignVar dep = dv(dep_v);
                        if (dep.width < 2) continue;
                        std::vector<core::DesignVar> lv;
                        for (auto& v : vars)
                            if (v.col != dep.col) lv.push_back(v);
                        int lp = 0;
                        for (auto& v : lv) lp += v.width;
                        core::Design ld{rows, nn, lv.data(), (int)lv.size(), lp};
                        std::vector<double> a(core::logistic_doubles(nn, lp, dep.width)),
                            b(warp::logistic_doubles(nn, lp, dep.width));
                        const double dw = core::logistic_deviance(ld, dep, dep.width, false, a.data());
                        const double dg =
                            on_warp([&] { return warp::logistic_deviance(ld, dep, dep.width, b.data()); });
                        ++runs;
                        if (std::memcmp(&dw, &dg, 8)) {
                            ++bad;
                            std::printf("dev n %lld rl %d setup %d dep %d k %d: %.17g vs %.17g\n", n, rl, setup, dep_v,
                                        dep.width, dw, dg);
                        }
                    }
                }
                if (nn >= 8) {
                    core::Moments m1 = core::moments(cols[2].data(), rows, nn);
                    double g[4];
                    for (int k = 0; k < 4; ++k)
                        g[k] = on_warp([&] {
                            core::Moments m = warp::moments(cols[2].data(), rows, nn);
                            return k == 0 ? m.mean : k == 1 ? m.m2 : k == 2 ? m.m3 : m.m4;
                        });
                    const double w[4] = {m1.mean, m1.m2, m1.m3, m1.m4};
                    ++runs;
                    if (std::memcmp(w, g, 32)) {
                        ++bad;
                        std::printf("moments n %lld\n", nn);
                    }
                }
            }
        }
    }
    std::printf("runs %d, differing %d\n", runs, bad);
    return bad != 0;
}
