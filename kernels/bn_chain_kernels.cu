// SPDX-License-Identifier: Apache-2.0
// The order-MCMC chain kernels (issue 21): max-mode chains (a block per rescored node: the
// score-sorted walk) and sum-mode chains (a block per rescored node: the enumeration of its
// consistent sets, summed in 128-bit fixed point); one thread per chain accepts, keeps and
// settles as bn::advance_chains does.
//
// Compiled with --fmad=false (kernels/CMakeLists.txt) and built on core/exact_math, so every
// score and decision equals the CPU's bit for bit.
#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "bn/fixed_sum.hpp"
#include "bn/proposal.hpp"
#include "bn_chain_kernels.cuh"
#include "core/exact_math.hpp"
#include "cuda_check.hpp"

namespace cudag::cuda {
namespace {

struct BestSet {
    double score;
    std::uint32_t off;
};

constexpr int kRescoreThreads = 256;  ///< a block per rescored node
constexpr int kWalkUnroll = 4;        ///< sorted entries each thread checks per step

struct Min64 {
    __device__ std::int64_t operator()(std::int64_t x, std::int64_t y) const { return y < x ? y : x; }
};

/// Node v's best consistent set given positions pos_at(u), by a block of kRescoreThreads
/// (every thread returns it): the first consistent entry of its score-sorted undominated
/// sets, as bn::node_score_max. The empty set ends every list, so a walk always ends.
template <class Pos>
__device__ BestSet best_consistent(const TableView& T, std::int32_t v, Pos pos_at) {
    using ReduceI = cub::BlockReduce<std::int64_t, kRescoreThreads>;
    __shared__ typename ReduceI::TempStorage tmp;
    __shared__ std::int64_t shared_i;
    const int tid = threadIdx.x;
    const std::int64_t here = pos_at(v);
    const std::int64_t start = T.list_start[v], len = T.list_start[v + 1] - start;
    constexpr std::int64_t step = static_cast<std::int64_t>(kRescoreThreads) * kWalkUnroll;
    constexpr std::int64_t none = 0x7fffffffffffffffLL;
    for (std::int64_t base = 0; base < len; base += step) {
        std::int64_t first = none;
#pragma unroll
        for (int u = 0; u < kWalkUnroll; ++u) {
            const std::int64_t i = base + u * kRescoreThreads + tid;
            if (i >= len || i >= first) continue;
            const std::uint16_t* set = T.sorted_par + (start + i) * T.w;
            bool ok = true;
            for (int t = 0; t < T.w && set[t] != 0xffffu; ++t)
                if (pos_at(set[t]) >= here) {
                    ok = false;
                    break;
                }
            if (ok) first = i;
        }
        const std::int64_t found = ReduceI(tmp).Reduce(first, Min64());
        if (tid == 0) shared_i = found;
        __syncthreads();
        const std::int64_t hit = shared_i;
        __syncthreads();
        if (hit != none) {
            return {T.sorted_score[start + hit], T.sorted_off[start + hit]};
        }
    }
    return {-xm::detail::inf(), 0};  // unreachable: the empty set is in every list
}

/// a += q in 128 bits (lo, hi) by atomics: exact, so any order of additions gives the same sum.
__device__ void add128(unsigned long long* lo, unsigned long long* hi, std::uint64_t q) {
    const unsigned long long old = atomicAdd(lo, static_cast<unsigned long long>(q));
    if (old + q < old) atomicAdd(hi, 1ull);
}

/// bn::FixedSum::value of (hi, lo).
__device__ double fixed_value(unsigned long long hi, unsigned long long lo) {
    return static_cast<double>(hi) * 4.0 + static_cast<double>(lo) * 0x1p-62;
}

/// node_sum from v's subset row (bn/subset_rows.hpp), as bn::node_score_sum reads it: the
/// row of the mask of the preceding candidates pc[0..np), read at the preceding extras
/// px[0..npx); the accumulators (zeroed) hold each candidate's sum without it, each extra's
/// weight, then the total.
__device__ double node_sum_rows(const TableView& T, std::int32_t v, const std::int32_t* pc, int np,
                                const std::int32_t* px, int npx, unsigned long long* lo, unsigned long long* hi,
                                double* column) {
    using ReduceD = cub::BlockReduce<double, kRescoreThreads>;
    __shared__ typename ReduceD::TempStorage tmp;
    __shared__ double shared_top;
    const int tid = threadIdx.x;
    const std::int64_t w = 1 + T.extra_start[v + 1] - T.extra_start[v];
    std::uint32_t mask = 0;
    for (int i = 0; i < np; ++i) mask |= std::uint32_t{1} << pc[i];
    const double* base = T.rows + T.row_off[v];
    const double* r = base + static_cast<std::int64_t>(mask) * w;
    const int parts = 1 + npx;
    double top = -xm::detail::inf();
    for (int k = tid; k < parts; k += kRescoreThreads) {
        const double x = k == 0 ? r[0] : r[1 + px[k - 1]];
        if (x > top) top = x;
    }
    const double all_top = ReduceD(tmp).Reduce(top, [](double x, double y) { return y > x ? y : x; });
    if (tid == 0) shared_top = all_top;
    __syncthreads();
    top = shared_top;
    if (top == xm::detail::inf() || top == -xm::detail::inf()) return top;  // no proportions to form
    const int slots = np + npx + 1;
    for (int k = tid; k < parts; k += kRescoreThreads) {
        const std::uint64_t q = bn::to_fixed(xm::exp((k == 0 ? r[0] : r[1 + px[k - 1]]) - top));
        add128(&lo[slots - 1], &hi[slots - 1], q);
        if (k > 0) lo[np + k - 1] = q;
    }
    const std::int64_t items = static_cast<std::int64_t>(np) * parts;
    for (std::int64_t idx = tid; idx < items; idx += kRescoreThreads) {
        const auto i = static_cast<int>(idx / parts), k = static_cast<int>(idx % parts);
        const double* r2 = base + static_cast<std::int64_t>(mask ^ (std::uint32_t{1} << pc[i])) * w;
        add128(&lo[i], &hi[i], bn::to_fixed(xm::exp((k == 0 ? r2[0] : r2[1 + px[k - 1]]) - top)));
    }
    __syncthreads();
    bn::FixedSum total;
    total.hi = hi[slots - 1];
    total.lo = lo[slots - 1];
    const double all = total.value();
    const std::int32_t* cands = T.cand + T.cand_start[v];
    const std::int32_t* extras = T.extra + T.extra_start[v];
    for (int i = tid; i < np; i += kRescoreThreads) {
        bn::FixedSum without;
        without.hi = hi[i];
        without.lo = lo[i];
        column[cands[pc[i]]] = total.minus_or_zero(without).value() / all;
    }
    for (int k = tid; k < npx; k += kRescoreThreads) column[extras[px[k]]] = fixed_value(0, lo[np + k]) / all;
    __syncthreads();
    return top + xm::log(all);
}

/// Node v's sum-based score given positions pos_at(u), by a block (thread 0's return value
/// counts), as bn::node_score_sum: log of the sum of exp(score) over its consistent sets,
/// and its edge column (P(p --> v | order) by p) in `column`. The weights exp(score - top)
/// are summed as 62-bit fixed-point integers in 128 bits, exactly, in any order.
template <class Pos>
__device__ double node_sum(const TableView& T, std::int32_t v, Pos pos_at, std::int32_t* scratch,
                           unsigned long long* acc, double* column) {
    using Scan = cub::BlockScan<int, kRescoreThreads>;
    using ReduceD = cub::BlockReduce<double, kRescoreThreads>;
    __shared__ union {
        typename Scan::TempStorage scan;
        typename ReduceD::TempStorage rd;
    } tmp;
    __shared__ double shared_top;
    const int tid = threadIdx.x;
    const std::int64_t here = pos_at(v);
    const std::int32_t* cands = T.cand + T.cand_start[v];
    const auto m = static_cast<int>(T.cand_start[v + 1] - T.cand_start[v]);
    const std::int32_t* extras = T.extra + T.extra_start[v];
    const auto nx = static_cast<int>(T.extra_start[v + 1] - T.extra_start[v]);
    std::int32_t* pc = scratch;
    std::int32_t* px = scratch + T.n;
    int np = 0, npx = 0;
    for (int list = 0; list < 2; ++list) {
        const int len = list == 0 ? m : nx;
        const std::int32_t* nodes = list == 0 ? cands : extras;
        std::int32_t* out = list == 0 ? pc : px;
        int count = 0;
        for (int base = 0; base < len; base += kRescoreThreads) {
            const int i = base + tid;
            const int in = i < len && pos_at(nodes[i]) < here ? 1 : 0;
            int at = 0, total = 0;
            Scan(tmp.scan).ExclusiveSum(in, at, total);
            __syncthreads();
            if (in) out[count + at] = i;
            count += total;
        }
        (list == 0 ? np : npx) = count;
    }
    // Accumulators: [0, np) candidates, [np, np + npx) extras, then the total; lo and hi.
    const int slots = np + npx + 1;
    unsigned long long* lo = acc;
    unsigned long long* hi = acc + T.n + 1;
    for (int k = tid; k < slots; k += kRescoreThreads) lo[k] = hi[k] = 0;
    for (std::int64_t p = tid; p < T.n; p += kRescoreThreads) column[p] = 0.0;
    __syncthreads();
    if (T.row_off[v] >= 0) return node_sum_rows(T, v, pc, np, px, npx, lo, hi, column);
    std::int64_t cum[kMaxParentsGpu + 2], cumx[kMaxParentsGpu + 1];
    cum[0] = 0;
    for (int k = 0; k <= T.s; ++k) cum[k + 1] = cum[k] + T.binom(np, k);
    cumx[0] = 0;
    for (int k = 0; k < T.s; ++k) cumx[k + 1] = cumx[k] + T.binom(np, k);
    const std::int64_t core_sets = cum[T.s + 1], extra_sets = T.s >= 1 ? cumx[T.s] : 0;
    const std::int64_t budget = core_sets + static_cast<std::int64_t>(npx) * extra_sets;
    const std::int64_t node_off = T.node_off[v];
    const std::int64_t* so = T.so + static_cast<std::int64_t>(v) * (T.s + 2);
    const std::int64_t* xo = T.xo + static_cast<std::int64_t>(v) * (T.s + 1);
    const std::int64_t core_total = so[T.s + 1], block = xo[T.s];
    // Set idx of the enumeration: its size, its members (indices into pc), its extra (-1:
    // none) and its score.
    auto visit = [&](std::int64_t idx, int* c, int& k, std::int64_t& e) {
        std::int64_t rank = 0, off = 0;
        int p[kMaxParentsGpu];
        e = -1;
        if (idx < core_sets) {
            k = size_of(cum, T.s, idx);
            rank = idx - cum[k];
            off = so[k];
        } else {
            e = (idx - core_sets) / extra_sets;
            const std::int64_t within = (idx - core_sets) % extra_sets;
            k = size_of(cumx, T.s - 1, within);
            rank = within - cumx[k];
            off = core_total + static_cast<std::int64_t>(px[e]) * block + xo[k];
        }
        unrank(T.binom, rank, k, np, c);
        for (int t = 0; t < k; ++t) p[t] = pc[c[t]];
        return T.scores[node_off + off + rank_of(T.binom, p, k, m)];
    };
    double top = -xm::detail::inf();
    for (std::int64_t idx = tid; idx < budget; idx += kRescoreThreads) {
        int c[kMaxParentsGpu], k = 0;
        std::int64_t e = -1;
        const double sc = visit(idx, c, k, e);
        if (sc > top) top = sc;
    }
    const double all_top = ReduceD(tmp.rd).Reduce(top, [](double x, double y) { return y > x ? y : x; });
    if (tid == 0) shared_top = all_top;
    __syncthreads();
    top = shared_top;
    if (top == xm::detail::inf() || top == -xm::detail::inf()) return top;  // no proportions to form
    for (std::int64_t idx = tid; idx < budget; idx += kRescoreThreads) {
        int c[kMaxParentsGpu], k = 0;
        std::int64_t e = -1;
        const double sc = visit(idx, c, k, e);
        const std::uint64_t w = bn::to_fixed(xm::exp(sc - top));
        add128(&lo[slots - 1], &hi[slots - 1], w);
        for (int t = 0; t < k; ++t) add128(&lo[c[t]], &hi[c[t]], w);
        if (e >= 0) add128(&lo[np + e], &hi[np + e], w);
    }
    __syncthreads();
    const double total = fixed_value(hi[slots - 1], lo[slots - 1]);
    for (int k = tid; k < np; k += kRescoreThreads) column[cands[pc[k]]] = fixed_value(hi[k], lo[k]) / total;
    for (int k = tid; k < npx; k += kRescoreThreads)
        column[extras[px[k]]] = fixed_value(hi[np + k], lo[np + k]) / total;
    __syncthreads();
    return top + xm::log(total);
}

/// Every node of every chain scored from the chain's order (a chain's working set).
__global__ void __launch_bounds__(kRescoreThreads) init_kernel(TableView T, ChainsView C) {
    const std::int64_t g = blockIdx.x;
    const std::int64_t c = g / T.n, v = g % T.n;
    if (c >= C.chains) return;
    const std::int32_t* pos = C.pos + c * T.n;
    auto at = [&](std::int32_t u) { return pos[u]; };
    if (C.sum_mode) {
        const double score = node_sum(T, static_cast<std::int32_t>(v), at, C.scratch + g * 2 * T.n,
                                      C.acc + g * 2 * (T.n + 1), C.col + (c * T.n + v) * T.n);
        if (threadIdx.x == 0) C.node[c * T.n + v] = score;
        return;
    }
    const BestSet b = best_consistent(T, static_cast<std::int32_t>(v), at);
    if (threadIdx.x == 0) {
        C.node[c * T.n + v] = b.score;
        C.best_off[c * T.n + v] = b.off;
    }
}

/// Iteration t's proposal: the nodes between the swapped positions rescored, by slot.
__global__ void __launch_bounds__(kRescoreThreads) rescore_kernel(TableView T, ChainsView C, std::int64_t t) {
    const std::int64_t g = blockIdx.x;
    const std::int64_t c = g / T.n, q = g % T.n;
    if (c >= C.chains || C.done[c] + 1 != t) return;
    const bn::SwapProposal prop = bn::swap_proposal(C.seed, C.id[c], t, T.n, C.moves);
    if (q > prop.j - prop.i) return;
    const std::int32_t* order = C.order + c * T.n;
    const std::int32_t* pos = C.pos + c * T.n;
    const std::int32_t a = order[prop.i], b = order[prop.j];
    const std::int32_t v = q == 0 ? b : q == prop.j - prop.i ? a : order[prop.i + q];
    const auto i = static_cast<std::int32_t>(prop.i), j = static_cast<std::int32_t>(prop.j);
    auto at = [&](std::int32_t u) { return u == a ? j : u == b ? i : pos[u]; };
    if (C.sum_mode) {
        const double score =
            node_sum(T, v, at, C.scratch + g * 2 * T.n, C.acc + g * 2 * (T.n + 1), C.prop_col + (c * T.n + q) * T.n);
        if (threadIdx.x == 0) C.prop_node[c * T.n + q] = score;
        return;
    }
    const BestSet best = best_consistent(T, v, at);
    if (threadIdx.x == 0) {
        C.prop_node[c * T.n + q] = best.score;
        C.prop_off[c * T.n + q] = best.off;
    }
}

/// Add node v's column (the parents of its best set) for the kept iterations since it was
/// last added, as Walker::settle does.
__device__ void settle(const TableView& T, const ChainsView& C, std::int64_t c, std::int32_t v) {
    const std::int64_t count = C.kept[c] - C.since[c * T.n + v];
    if (count == 0) return;
    const double cd = static_cast<double>(count);
    if (C.sum_mode) {
        const double* column = C.col + (c * T.n + v) * T.n;
        for (std::int64_t p = 0; p < T.n; ++p) {
            const double x = column[p];
            if (x == 0.0) continue;
            const std::int64_t at = c * T.n * T.n + p * T.n + v;
            C.edge_sum[at] += x * cd;
            C.edge_sumsq[at] += x * x * cd;
        }
        C.since[c * T.n + v] = C.kept[c];
        return;
    }
    NodeLayout L;
    L.v = v;
    L.m = static_cast<std::int32_t>(T.cand_start[v + 1] - T.cand_start[v]);
    L.s = T.s;
    for (int k = 0; k <= T.s + 1; ++k) L.so[k] = T.so[static_cast<std::int64_t>(v) * (T.s + 2) + k];
    for (int k = 0; k <= T.s; ++k) L.xo[k] = T.xo[static_cast<std::int64_t>(v) * (T.s + 1) + k];
    L.core = L.so[T.s + 1];
    L.block = L.xo[T.s];
    std::int32_t ps[kMaxParentsGpu];
    const int kk =
        entry_parents(L, T.binom, T.cand + T.cand_start[v], T.extra + T.extra_start[v], C.best_off[c * T.n + v], ps);
    for (int t = 0; t < kk; ++t) {
        const std::int64_t at = c * T.n * T.n + static_cast<std::int64_t>(ps[t]) * T.n + v;
        const double x = 1.0;
        C.edge_sum[at] += x * cd;
        C.edge_sumsq[at] += x * x * cd;
    }
    C.since[c * T.n + v] = C.kept[c];
}

__global__ void accept_kernel(TableView T, ChainsView C, std::int64_t t) {
    const std::int64_t c = blockIdx.x;
    if (threadIdx.x != 0 || c >= C.chains || C.done[c] + 1 != t) return;
    const std::int64_t n = T.n;
    std::int32_t* order = C.order + c * n;
    std::int32_t* pos = C.pos + c * n;
    double* node = C.node + c * n;
    const bn::SwapProposal prop = bn::swap_proposal(C.seed, C.id[c], t, n, C.moves);
    const std::int64_t i = prop.i, j = prop.j;
    const std::int32_t a = order[i], b = order[j];
    double total = 0.0;  // summed over v = 0..n-1, as the CPU's total_of
    for (std::int32_t v = 0; v < n; ++v) {
        const std::int64_t pp = v == a ? j : v == b ? i : pos[v];
        total += pp >= i && pp <= j ? C.prop_node[c * n + (pp - i)] : node[v];
    }
    if (xm::log(prop.u) < total - C.score[c]) {
        order[i] = b;
        order[j] = a;
        pos[a] = static_cast<std::int32_t>(j);
        pos[b] = static_cast<std::int32_t>(i);
        for (std::int64_t q = 0; q <= j - i; ++q) {
            const std::int32_t v = order[i + q];
            if (C.sum_mode) {  // the column as the CPU compares it, entry by entry
                double* now = C.col + (c * n + v) * n;
                const double* next = C.prop_col + (c * n + q) * n;
                bool same = true;
                for (std::int64_t p = 0; p < n && same; ++p) same = now[p] == next[p];
                if (!same) {
                    settle(T, C, c, v);
                    for (std::int64_t p = 0; p < n; ++p) now[p] = next[p];
                }
            } else {
                const std::uint32_t off = C.prop_off[c * n + q];
                if (off != C.best_off[c * n + v]) {
                    settle(T, C, c, v);
                    C.best_off[c * n + v] = off;
                }
            }
            node[v] = C.prop_node[c * n + q];
        }
        C.score[c] = total;
        ++C.accepted[c];
        if (total > C.best_score[c]) {
            C.best_score[c] = total;
            for (std::int64_t k = 0; k < n; ++k) C.best_order[c * n + k] = order[k];
        }
    }
    C.done[c] = t;
    if (t > C.burn_in && (t - C.burn_in) % C.thin == 0) C.trace[c * C.trace_cap + C.kept[c]++] = C.score[c];
}

}  // namespace

void launch_chain_init(const TableView& T, const ChainsView& C, cudaStream_t stream) {
    const auto grid = static_cast<unsigned>(C.chains * T.n);  // a block per (chain, node)
    init_kernel<<<grid, kRescoreThreads, 0, stream>>>(T, C);
    CUDAG_CHECK_LAUNCH();
}

void launch_chain_rescore(const TableView& T, const ChainsView& C, std::int64_t t, cudaStream_t stream) {
    const auto grid = static_cast<unsigned>(C.chains * T.n);  // a block per (chain, slot)
    rescore_kernel<<<grid, kRescoreThreads, 0, stream>>>(T, C, t);
    CUDAG_CHECK_LAUNCH();
}

void launch_chain_accept(const TableView& T, const ChainsView& C, std::int64_t t, cudaStream_t stream) {
    accept_kernel<<<static_cast<unsigned>(C.chains), 32, 0, stream>>>(T, C, t);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
