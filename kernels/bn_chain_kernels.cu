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
#include "bn/subset_rows.hpp"
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

/// x summed over the warp's lanes (lane 0's answer): exact, as any order of FixedSum adds.
__device__ bn::FixedSum warp_sum(bn::FixedSum x) {
    for (int o = 16; o > 0; o >>= 1) {
        bn::FixedSum y;
        y.hi = __shfl_down_sync(0xffffffffu, x.hi, o);
        y.lo = __shfl_down_sync(0xffffffffu, x.lo, o);
        x.add(y);
    }
    return x;
}

/// node_sum from v's subset row (bn/subset_rows.hpp), as bn::node_score_sum reads it: the
/// row of the mask of the preceding candidates pc[0..np), read at the preceding extras
/// px[0..npx). Sums in registers, then warps' shuffles (no atomics); the extras' weights
/// go to lo[np + k].
__device__ double node_sum_rows(const TableView& T, std::int32_t v, const std::int32_t* pc, int np,
                                const std::int32_t* px, int npx, unsigned long long* lo, double* column) {
    using ReduceD = cub::BlockReduce<double, kRescoreThreads>;
    constexpr int kWarps = kRescoreThreads / 32;
    __shared__ typename ReduceD::TempStorage tmp;
    __shared__ double shared_top;
    // FixedSum halves (a __shared__ array takes no constructor).
    __shared__ std::uint64_t warp_hi[kWarps], warp_lo[kWarps], without_hi[bn::kMaxRowBits], without_lo[bn::kMaxRowBits];
    __shared__ std::int32_t cand_pos[bn::kMaxRowBits];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const std::int64_t w = 1 + T.extra_start[v + 1] - T.extra_start[v];
    if (tid < np) cand_pos[tid] = pc[tid];
    __syncthreads();
    std::uint32_t mask = 0;
    for (int i = 0; i < np; ++i) mask |= std::uint32_t{1} << cand_pos[i];
    const double* base = T.rows + T.row_off[v];
    const double* r = base + static_cast<std::int64_t>(mask) * w;
    const int parts = 1 + npx;
    auto part = [&](const double* row, int k) { return k == 0 ? row[0] : row[1 + px[k - 1]]; };
    double top = -xm::detail::inf();
    for (int k = tid; k < parts; k += kRescoreThreads) {
        const double x = part(r, k);
        if (x > top) top = x;
    }
    const double all_top = ReduceD(tmp).Reduce(top, [](double x, double y) { return y > x ? y : x; });
    if (tid == 0) shared_top = all_top;
    __syncthreads();
    top = shared_top;
    if (top == xm::detail::inf() || top == -xm::detail::inf()) return top;  // no proportions to form
    // The total, and each extra's weight.
    bn::FixedSum mine;
    for (int k = tid; k < parts; k += kRescoreThreads) {
        const std::uint64_t q = bn::to_fixed(xm::exp(part(r, k) - top));
        mine.add(q);
        if (k > 0) lo[np + k - 1] = q;
    }
    mine = warp_sum(mine);
    if (lane == 0) warp_hi[warp] = mine.hi, warp_lo[warp] = mine.lo;
    // Each candidate's sum without it: a warp per candidate, lanes over the parts.
    for (int i = warp; i < np; i += kWarps) {
        const double* r2 = base + static_cast<std::int64_t>(mask ^ (std::uint32_t{1} << cand_pos[i])) * w;
        bn::FixedSum acc;
        for (int k = lane; k < parts; k += 32) acc.add(bn::to_fixed(xm::exp(part(r2, k) - top)));
        acc = warp_sum(acc);
        if (lane == 0) without_hi[i] = acc.hi, without_lo[i] = acc.lo;
    }
    __syncthreads();
    bn::FixedSum total;
    for (int k = 0; k < kWarps; ++k) {
        bn::FixedSum x;
        x.hi = warp_hi[k];
        x.lo = warp_lo[k];
        total.add(x);
    }
    const double all = total.value();
    const std::int32_t* cands = T.cand + T.cand_start[v];
    const std::int32_t* extras = T.extra + T.extra_start[v];
    for (int i = tid; i < np; i += kRescoreThreads) {
        bn::FixedSum x;
        x.hi = without_hi[i];
        x.lo = without_lo[i];
        column[cands[cand_pos[i]]] = total.minus_or_zero(x).value() / all;
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
    if (T.row_off[v] >= 0) return node_sum_rows(T, v, pc, np, px, npx, lo, column);
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

/// Slot q of chain c's proposal at iteration t (the nodes between the swapped positions,
/// slot 0 the one moved forward) rescored by the block, into prop_node / prop_off /
/// prop_col; g picks the scratch and accumulators.
__device__ void rescore_slot(const TableView& T, const ChainsView& C, std::int64_t c, std::int64_t q,
                             const bn::SwapProposal& prop, std::int64_t g, const std::int32_t* order,
                             const std::int32_t* pos) {
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

/// Iteration t's proposal: the nodes between the swapped positions rescored, a block per
/// (chain, slot).
__global__ void __launch_bounds__(kRescoreThreads) rescore_kernel(TableView T, ChainsView C, std::int64_t t) {
    const std::int64_t g = blockIdx.x;
    const std::int64_t c = g / T.n, q = g % T.n;
    if (c >= C.chains || C.done[c] + 1 != t) return;
    const bn::SwapProposal prop = bn::swap_proposal(C.seed, C.id[c], t, T.n, C.moves);
    if (q > prop.j - prop.i) return;
    rescore_slot(T, C, c, q, prop, g, C.order + c * T.n, C.pos + c * T.n);
}

/// Max mode: add node v's column (the parents of its best set) for the kept iterations
/// since it was last added, as Walker::settle does (one thread).
__device__ void settle_max(const TableView& T, const ChainsView& C, std::int64_t c, std::int32_t v) {
    const std::int64_t count = C.kept[c] - C.since[c * T.n + v];
    if (count == 0) return;
    const double cd = static_cast<double>(count);
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

constexpr int kAcceptThreads = 256;  ///< a block per chain
constexpr int kTotalChunk = 1024;    ///< node scores staged in shared memory for the ordered total

/// Iteration t's acceptance, keeping and settling of chain blockIdx.x, as Walker::run does:
/// the proposed total summed by one thread in node order (the CPU's total_of) from values
/// the block stages in shared memory; the columns compared, settled and copied by the block
/// (each entry by one thread: the same additions as the CPU's loop).
/// `order` and `pos`: the chain's, where it keeps them (global memory, or run_kernel's
/// shared copy).
__device__ void accept_chain(const TableView& T, const ChainsView& C, std::int64_t c, std::int64_t t,
                             std::int32_t* order, std::int32_t* pos) {
    __shared__ double staged[kTotalChunk];
    __shared__ double shared_total;
    __shared__ int shared_flag;
    const int tid = threadIdx.x;
    const std::int64_t n = T.n;
    double* node = C.node + c * n;
    const bn::SwapProposal prop = bn::swap_proposal(C.seed, C.id[c], t, n, C.moves);
    const std::int64_t i = prop.i, j = prop.j;
    const std::int32_t a = order[i], b = order[j];
    double total = 0.0;  // summed over v = 0..n-1, as the CPU's total_of (thread 0's)
    for (std::int64_t base = 0; base < n; base += kTotalChunk) {
        const std::int64_t len = n - base < kTotalChunk ? n - base : kTotalChunk;
        for (std::int64_t k = tid; k < len; k += kAcceptThreads) {
            const auto v = static_cast<std::int32_t>(base + k);
            const std::int64_t pp = v == a ? j : v == b ? i : pos[v];
            staged[k] = pp >= i && pp <= j ? C.prop_node[c * n + (pp - i)] : node[v];
        }
        __syncthreads();
        if (tid == 0) {
#pragma unroll 8
            for (std::int64_t k = 0; k < len; ++k) total += staged[k];
        }
        __syncthreads();
    }
    if (tid == 0) {
        shared_total = total;
        shared_flag = xm::log(prop.u) < total - C.score[c] ? 1 : 0;
    }
    __syncthreads();
    total = shared_total;
    if (shared_flag) {
        __syncthreads();  // every thread has read order[i], order[j] and pos above
        if (tid == 0) {
            order[i] = b;
            order[j] = a;
            pos[a] = static_cast<std::int32_t>(j);
            pos[b] = static_cast<std::int32_t>(i);
        }
        __syncthreads();
        if (!C.sum_mode) {
            // Max mode: each moved node's best set, a thread per node (their columns and
            // counters are disjoint, so the order of the settles does not matter).
            for (std::int64_t q = tid; q <= j - i; q += kAcceptThreads) {
                const std::int32_t v = order[i + q];
                const std::uint32_t off = C.prop_off[c * n + q];
                if (off != C.best_off[c * n + v]) {
                    settle_max(T, C, c, v);
                    C.best_off[c * n + v] = off;
                }
                node[v] = C.prop_node[c * n + q];
            }
        }
        for (std::int64_t q = 0; C.sum_mode && q <= j - i; ++q) {
            const std::int32_t v = order[i + q];
            {  // the column as the CPU compares it, entry by entry
                double* now = C.col + (c * n + v) * n;
                const double* next = C.prop_col + (c * n + q) * n;
                int same = 1;
                for (std::int64_t p = tid; p < n; p += kAcceptThreads) same &= now[p] == next[p] ? 1 : 0;
                if (!__syncthreads_and(same)) {
                    // Settle the old column for the kept iterations since it was last added,
                    // then take the new one.
                    const std::int64_t count = C.kept[c] - C.since[c * n + v];
                    const double cd = static_cast<double>(count);
                    for (std::int64_t p = tid; p < n; p += kAcceptThreads) {
                        const double x = now[p];
                        if (count != 0 && x != 0.0) {
                            const std::int64_t at = c * n * n + p * n + v;
                            C.edge_sum[at] += x * cd;
                            C.edge_sumsq[at] += x * x * cd;
                        }
                        now[p] = next[p];
                    }
                    __syncthreads();  // every thread has read since[v]
                    if (tid == 0) C.since[c * n + v] = C.kept[c];
                }
            }
            if (tid == 0) node[v] = C.prop_node[c * n + q];
        }
        if (tid == 0) {
            C.score[c] = total;
            ++C.accepted[c];
            shared_flag = total > C.best_score[c] ? 2 : 1;
            if (shared_flag == 2) C.best_score[c] = total;
        }
        __syncthreads();
        if (shared_flag == 2)
            for (std::int64_t k = tid; k < n; k += kAcceptThreads) C.best_order[c * n + k] = order[k];
    }
    if (tid == 0) {
        C.done[c] = t;
        if (t > C.burn_in && (t - C.burn_in) % C.thin == 0) C.trace[c * C.trace_cap + C.kept[c]++] = C.score[c];
    }
}

__global__ void __launch_bounds__(kAcceptThreads) accept_kernel(TableView T, ChainsView C, std::int64_t t) {
    const std::int64_t c = blockIdx.x;
    if (c >= C.chains || C.done[c] + 1 != t) return;  // the same answer for the whole block
    accept_chain(T, C, c, t, C.order + c * T.n, C.pos + c * T.n);
}

static_assert(kAcceptThreads == kRescoreThreads, "run_kernel's block does both");

/// Iterations first + 1 .. until of every chain in one launch, a block per chain: each
/// iteration's nodes rescored one after the other by the block, then its acceptance (the
/// same work as rescore_kernel and accept_kernel, without a launch per iteration). With
/// `staged`, the chain's order and positions live in shared memory for the launch (the
/// parents' positions are read at every rescore) and go back to global memory at its end.
__global__ void __launch_bounds__(kRescoreThreads)
    run_kernel(TableView T, ChainsView C, std::int64_t first, std::int64_t until, int staged) {
    extern __shared__ std::int32_t chain_state[];  // order, then pos (staged)
    const std::int64_t c = blockIdx.x;
    if (c >= C.chains) return;
    const std::int64_t n = T.n;
    std::int32_t* order = C.order + c * n;
    std::int32_t* pos = C.pos + c * n;
    if (staged) {
        for (std::int64_t k = threadIdx.x; k < n; k += kRescoreThreads) {
            chain_state[k] = order[k];
            chain_state[n + k] = pos[k];
        }
        order = chain_state;
        pos = chain_state + n;
        __syncthreads();
    }
    for (std::int64_t t = first + 1; t <= until; ++t) {
        if (C.done[c] + 1 != t) continue;  // a chain further on; the same answer for the whole block
        const bn::SwapProposal prop = bn::swap_proposal(C.seed, C.id[c], t, n, C.moves);
        for (std::int64_t q = 0; q <= prop.j - prop.i; ++q) rescore_slot(T, C, c, q, prop, c * n, order, pos);
        __syncthreads();
        accept_chain(T, C, c, t, order, pos);
        __syncthreads();  // done[c] read again at the top
    }
    if (staged)
        for (std::int64_t k = threadIdx.x; k < n; k += kRescoreThreads) {
            C.order[c * n + k] = order[k];
            C.pos[c * n + k] = pos[k];
        }
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

void launch_chain_run(const TableView& T, const ChainsView& C, std::int64_t first, std::int64_t until,
                      cudaStream_t stream) {
    // The chain's order and positions in shared memory where they fit the default 48 KiB.
    const std::size_t bytes = 2 * sizeof(std::int32_t) * static_cast<std::size_t>(T.n);
    const int staged = bytes <= 32 * 1024 ? 1 : 0;
    run_kernel<<<static_cast<unsigned>(C.chains), kRescoreThreads, staged ? bytes : 0, stream>>>(T, C, first, until,
                                                                                                 staged);
    CUDAG_CHECK_LAUNCH();
}

void launch_chain_accept(const TableView& T, const ChainsView& C, std::int64_t t, cudaStream_t stream) {
    accept_kernel<<<static_cast<unsigned>(C.chains), kAcceptThreads, 0, stream>>>(T, C, t);
    CUDAG_CHECK_LAUNCH();
}

}  // namespace cudag::cuda
