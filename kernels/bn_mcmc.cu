// SPDX-License-Identifier: Apache-2.0
// Order MCMC on a GPU (issue 21): the BDeu/K2 local-score table (a warp per entry: dense
// counts in shared memory, lgamma terms over the lanes, the CPU's sum order on lane 0) and
// max-mode chains (a warp per rescored node: the score-sorted walk, then the enumeration;
// one warp per chain accepts, keeps and settles as bn::advance_chains does).
//
// Compiled with --fmad=false (kernels/CMakeLists.txt) and built on core/exact_math, so every
// score and decision equals the CPU's bit for bit.
#include "bn_engines.hpp"
#include "bn/engines.hpp"  // kMaxGpuParents

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "bn/fixed_sum.hpp"
#include "bn/proposal.hpp"
#include "core/combinations.hpp"
#include "core/error.hpp"
#include "core/exact_math.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {

namespace {

constexpr int kWarps = 8;                           ///< warps per block of the table kernel
constexpr int kMaxParentsGpu = bn::kMaxGpuParents;  ///< larger parent limits stay on the CPU
constexpr int kCells = static_cast<int>(kBnTableCells);

/// One node's part of the table layout, by value in the kernel arguments.
struct NodeLayout {
    std::int32_t v = 0, m = 0, s = 0, r = 0;
    std::int64_t entries = 0, core = 0, block = 0;
    std::int64_t so[kMaxParentsGpu + 2] = {};  ///< size offsets of the candidates' block
    std::int64_t xo[kMaxParentsGpu + 1] = {};  ///< size offsets of an extra's block
};

NodeLayout layout_of(const bn::ScoreTable& t, std::int32_t v) {
    NodeLayout L;
    L.v = v;
    L.m = static_cast<std::int32_t>(t.candidates(v).size());
    L.s = t.max_parents();
    L.entries = t.node_entries(v);
    for (int k = 0; k <= L.s + 1; ++k) L.so[k] = t.size_offset(v, k);
    for (int k = 0; k <= L.s; ++k) L.xo[k] = t.extra_offset(v, k);
    L.core = L.so[L.s + 1];
    L.block = L.xo[L.s];
    return L;
}

/// The largest k with off[k] <= x (off increasing from off[0] = 0).
__device__ int size_of(const std::int64_t* off, int kmax, std::int64_t x) {
    int k = 0;
    while (k < kmax && off[k + 1] <= x) ++k;
    return k;
}

/// Binomial coefficients C(a, b) for a <= rows - 1, b <= cols - 1 (host-computed,
/// saturating), so that the kernels rank and unrank without 128-bit divisions.
struct Binomials {
    const std::int64_t* t = nullptr;
    int cols = 0;
    __device__ std::int64_t operator()(int a, int b) const { return b < 0 || a < b ? 0 : t[a * cols + b]; }
};

/// combination_unrank (core/combinations.hpp) with the table.
__device__ void unrank(const Binomials& C, std::int64_t rank, int k, int n, int* c) {
    int v = 0;
    for (int t = 0; t < k; ++t) {
        for (;; ++v) {
            const std::int64_t block = C(n - 1 - v, k - 1 - t);
            if (rank < block) break;
            rank -= block;
        }
        c[t] = v++;
    }
}

/// combination_rank with the table, in closed form: C(n, k) - 1 - sum_t C(n - 1 - c_t, k - t).
__device__ std::int64_t rank_of(const Binomials& C, const int* c, int k, int n) {
    std::int64_t r = C(n, k) - 1;
    for (int t = 0; t < k; ++t) r -= C(n - 1 - c[t], k - t);
    return r;
}

/// The host table for n elements and sizes up to s.
std::vector<std::int64_t> binomial_table(std::int64_t n, int s) {
    std::vector<std::int64_t> t(static_cast<std::size_t>((n + 1) * (s + 2)));
    for (std::int64_t a = 0; a <= n; ++a)
        for (int b = 0; b <= s + 1; ++b) t[a * (s + 2) + b] = binomial(a, b);
    return t;
}

/// The parents (node ids, increasing) of entry `e` of the node; returns their number.
__device__ int entry_parents(const NodeLayout& L, const Binomials& B, const std::int32_t* cands,
                             const std::int32_t* extras, std::int64_t e, std::int32_t* out) {
    int c[kMaxParentsGpu];
    std::int32_t extra = -1;
    int k = 0;
    std::int64_t rank = 0;
    if (e < L.core) {
        k = size_of(L.so, L.s, e);
        rank = e - L.so[k];
    } else {
        const std::int64_t b = (e - L.core) / L.block, within = (e - L.core) % L.block;
        extra = extras[b];
        k = size_of(L.xo, L.s - 1, within);
        rank = within - L.xo[k];
    }
    unrank(B, rank, k, L.m, c);
    int at = 0;
    bool placed = extra < 0;
    for (int t = 0; t < k; ++t) {
        const std::int32_t p = cands[c[t]];
        if (!placed && extra < p) out[at++] = extra, placed = true;
        out[at++] = p;
    }
    if (!placed) out[at++] = extra;
    return at;
}

// ---- the table ----------------------------------------------------------------------------

struct TableArgs {
    const std::uint8_t* codes;  ///< n_vars × N, variable-major
    const std::int32_t* cards;
    const double* prior;  ///< n × n or null
    std::int64_t n_vars, samples;
    int k2;  ///< 1: K2, 0: BDeu
    double iss, per_parent;
    Binomials binom;
    int cap;  ///< cells per warp (<= kBnTableCells): larger parent tables are the CPU's
};

/// Shared bytes of one warp of table_kernel for `cap` cells: counts, cell terms, row terms.
/// Rounded up to 16 bytes, so that every warp's doubles stay aligned and apart.
CUDAG_HD constexpr std::size_t table_warp_bytes(int cap) {
    const std::size_t bytes = static_cast<std::size_t>(cap) * (sizeof(double) + sizeof(std::uint32_t)) +
                              static_cast<std::size_t>(cap / 2 + 1) * sizeof(double);
    return (bytes + 15) / 16 * 16;
}

__global__ void __launch_bounds__(kWarps * 32)
    table_kernel(NodeLayout L, const std::int32_t* cands, const std::int32_t* extras, TableArgs a, double* out) {
    extern __shared__ double smem_d[];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int cap = a.cap;
    double* term = smem_d + static_cast<std::size_t>(w) * table_warp_bytes(cap) / sizeof(double);
    double* rterm = term + cap;
    auto* cnt = reinterpret_cast<std::uint32_t*>(rterm + cap / 2 + 1);
    const std::int32_t r = a.cards[L.v];
    const std::uint8_t* x = a.codes + static_cast<std::int64_t>(L.v) * a.samples;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * kWarps + w; e < L.entries;
         e += static_cast<std::int64_t>(gridDim.x) * kWarps) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, a.binom, cands, extras, e, ps);
        double q = 1.0;  // as DiscreteScorer::local: the product in parents' order
        std::int64_t qi = 1;
        for (int t = 0; t < kk && qi * r <= cap; ++t) q *= static_cast<double>(a.cards[ps[t]]), qi *= a.cards[ps[t]];
        if (qi * r > cap) continue;  // the CPU's
        const auto cells = static_cast<int>(qi * r);
        for (int c = lane; c < cells; c += 32) cnt[c] = 0;
        __syncwarp();
        for (std::int64_t s = lane; s < a.samples; s += 32) {
            std::uint32_t key = 0;
            for (int t = 0; t < kk; ++t)
                key = key * static_cast<std::uint32_t>(a.cards[ps[t]]) + a.codes[ps[t] * a.samples + s];
            atomicAdd(&cnt[key * static_cast<std::uint32_t>(r) + x[s]], 1u);
        }
        __syncwarp();
        // bd_local_score's terms (bn/local_score.hpp), in parallel.
        const double a_jk = a.k2 ? 1.0 : a.iss / (q * static_cast<double>(r));
        const double a_j = a_jk * static_cast<double>(r);
        const double lg_a_j = xm::lgamma(a_j), lg_a_jk = xm::lgamma(a_jk);
        for (int c = lane; c < cells; c += 32)
            if (cnt[c] != 0) term[c] = xm::lgamma(a_jk + static_cast<double>(cnt[c])) - lg_a_jk;
        for (int j = lane; j < static_cast<int>(qi); j += 32) {
            double n_j = 0.0;
            for (int k = 0; k < r; ++k)
                if (cnt[j * r + k] != 0) n_j += static_cast<double>(cnt[j * r + k]);
            rterm[j] = lg_a_j - xm::lgamma(a_j + n_j);
        }
        __syncwarp();
        if (lane == 0) {
            double score = 0.0;  // the CPU's order: a row's cells, then the row
            for (int j = 0; j < static_cast<int>(qi); ++j) {
                for (int k = 0; k < r; ++k)
                    if (cnt[j * r + k] != 0) score += term[j * r + k];
                score += rterm[j];
            }
            for (int t = 0; t < kk; ++t) {  // bn::PriorScorer's terms, parents increasing
                score += a.per_parent;
                if (a.prior) score += a.prior[ps[t] * a.n_vars + L.v];
            }
            out[e] = score;
        }
        __syncwarp();
    }
}

// ---- the chains ---------------------------------------------------------------------------

struct TableView {
    std::int64_t n = 0;
    int s = 0, w = 1;
    const double* scores;
    const std::int64_t* node_off;
    const std::int64_t* list_start;  ///< n + 1: node v's sorted list is [list_start[v], list_start[v + 1])
    const std::uint32_t* sorted_off;
    const std::uint16_t* sorted_par;
    const double* sorted_score;  ///< by sorted entry, as sorted_off
    const std::int32_t* cand;    ///< flattened
    const std::int64_t* cand_start;
    const std::int32_t* extra;
    const std::int64_t* extra_start;
    const std::int64_t* so;  ///< n × (s + 2)
    const std::int64_t* xo;  ///< n × (s + 1)
    Binomials binom;
};

struct ChainsView {
    std::int64_t chains = 0, trace_cap = 0;
    std::uint64_t seed = 0;
    bn::MoveSet moves = bn::MoveSet::Swap;
    std::int64_t burn_in = 0, thin = 1;
    std::int64_t* id;  ///< chain ids
    std::int32_t* order;
    std::int32_t* pos;
    double* node;
    std::uint32_t* best_off;
    std::int64_t* since;
    double* edge_sum;
    double* edge_sumsq;
    double* trace;
    std::int32_t* best_order;
    double* score;
    double* best_score;
    std::int64_t* accepted;
    std::int64_t* kept;
    std::int64_t* done;
    double* prop_node;  ///< by (chain, slot)
    std::uint32_t* prop_off;
    // Sum mode: each node's edge column P(p --> v | order) by p, current and proposed, and
    // the per-(chain, slot) scratch of the enumeration.
    int sum_mode = 0;
    double* col;              ///< [chain][v][p]
    double* prop_col;         ///< [chain][slot][p]
    std::int32_t* scratch;    ///< 2n per (chain, slot): preceding candidates and extras
    unsigned long long* acc;  ///< 2 (n + 1) per (chain, slot): 128-bit fixed-point sums
};

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

class ChainsImpl final : public OrderChainsGpu {
public:
    ChainsImpl(const bn::ScoreTable& table, const bn::OrderMcmcOptions& opts, int device)
        : binding_(device), device_(device), table_(table), opts_(opts) {
        DeviceGuard guard(device_);
        stream_ = std::make_unique<Stream>();
        CUDAG_EXPECTS(opts.mode == bn::OrderScoreMode::Sum || table.has_sorted(),
                      "the CUDA max-mode chains need the table's score-sorted lists");
        CUDAG_EXPECTS(table.max_parents() <= kMaxParentsGpu,
                      "the CUDA chains take at most " + std::to_string(kMaxParentsGpu) + " parents");
        const std::int64_t n = table.n_nodes();
        const int s = table.max_parents(), w = std::max(s, 1);
        const auto total = static_cast<std::size_t>(table.total_entries());
        const auto listed = static_cast<std::size_t>(table.has_sorted() ? table.sorted_entries() : 0);
        // Max mode reads the sorted lists alone (they carry their scores): the table stays
        // on the host, and a table split over ranks need not be whole (bn/table_split.hpp).
        const bool sum = opts.mode == bn::OrderScoreMode::Sum;
        CUDAG_EXPECTS(!sum || table.holds_all(), "the sum-mode chains need the whole score table");
        scores_.resize_discard(sum ? total : 1);
        sorted_off_.resize_discard(std::max<std::size_t>(listed, 1));
        sorted_par_.resize_discard(std::max<std::size_t>(listed * w, 1));
        sorted_score_.resize_discard(std::max<std::size_t>(listed, 1));
        std::vector<std::int64_t> node_off(n + 1), list_start(n + 1), cand_start(n + 1), extra_start(n + 1), so, xo;
        std::vector<std::int32_t> cand, extra;
        for (std::int32_t v = 0; v < n; ++v) {
            node_off[v] = table.node_offset(v);
            if (sum) {
                const auto sc = table.node_scores(v);
                scores_.upload(sc.data(), sc.size(), stream_->get(), node_off[v]);
            }
            if (table.has_sorted()) {
                const auto off = table.sorted_offsets(v);
                sorted_off_.upload(off.data(), off.size(), stream_->get(), list_start[v]);
                const auto ss = table.sorted_scores(v);
                sorted_score_.upload(ss.data(), ss.size(), stream_->get(), list_start[v]);
                const auto par = table.sorted_parents(v);
                sorted_par_.upload(par.data(), par.size(), stream_->get(), list_start[v] * w);
                list_start[v + 1] = list_start[v] + static_cast<std::int64_t>(off.size());
            }
            cand_start[v] = static_cast<std::int64_t>(cand.size());
            for (const std::int32_t u : table.candidates(v)) cand.push_back(u);
            extra_start[v] = static_cast<std::int64_t>(extra.size());
            for (const std::int32_t u : table.extras(v)) extra.push_back(u);
            for (int k = 0; k <= s + 1; ++k) so.push_back(table.size_offset(v, k));
            for (int k = 0; k <= s; ++k) xo.push_back(table.extra_offset(v, k));
        }
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        node_off[n] = table.total_entries();
        cand_start[n] = static_cast<std::int64_t>(cand.size());
        extra_start[n] = static_cast<std::int64_t>(extra.size());
        put(node_off_, node_off);
        put(list_start_, list_start);
        put(cand_start_, cand_start);
        put(extra_start_, extra_start);
        put(cand_, cand);
        put(extra_, extra);
        put(so_, so);
        put(xo_, xo);
        put(binom_, binomial_table(n, s));
        T_.binom = {binom_.data(), s + 2};
        T_.n = n;
        T_.s = s;
        T_.w = w;
        T_.scores = scores_.data();
        T_.node_off = node_off_.data();
        T_.list_start = list_start_.data();
        T_.sorted_off = sorted_off_.data();
        T_.sorted_par = sorted_par_.data();
        T_.sorted_score = sorted_score_.data();
        T_.cand = cand_.data();
        T_.cand_start = cand_start_.data();
        T_.extra = extra_.data();
        T_.extra_start = extra_start_.data();
        T_.so = so_.data();
        T_.xo = xo_.data();
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    }

    ~ChainsImpl() override { binding_.bind(); }

    void advance(std::span<bn::ChainState> states, std::int64_t until) override {
        DeviceGuard guard(device_);
        if (states.empty() || table_.n_nodes() < 2) {
            // Nothing to swap: the CPU's walker only counts iterations.
            bn::advance_chains(table_, opts_, states, until);
            return;
        }
        const std::int64_t n = table_.n_nodes(), nc = static_cast<std::int64_t>(states.size());
        const std::int64_t cap = opts_.iterations > opts_.burn_in ? (opts_.iterations - opts_.burn_in) / opts_.thin : 0;
        // Host staging of the states.
        std::vector<std::int64_t> id(nc), since(nc * n), accepted(nc), kept(nc), done(nc);
        std::vector<std::int32_t> order(nc * n), pos(nc * n), best_order(nc * n);
        std::vector<double> score(nc), best(nc), trace(std::max<std::int64_t>(nc * cap, 1), 0.0);
        std::int64_t first = until;
        for (std::int64_t c = 0; c < nc; ++c) {
            const bn::ChainState& st = states[c];
            id[c] = st.chain;
            std::copy(st.order.begin(), st.order.end(), order.begin() + c * n);
            for (std::int64_t k = 0; k < n; ++k) pos[c * n + st.order[k]] = static_cast<std::int32_t>(k);
            std::copy(st.best_order.begin(), st.best_order.end(), best_order.begin() + c * n);
            std::copy(st.since.begin(), st.since.end(), since.begin() + c * n);
            std::copy(st.trace.begin(), st.trace.end(), trace.begin() + c * cap);
            accepted[c] = st.accepted;
            kept[c] = st.kept;
            done[c] = st.done;
            score[c] = st.score;
            best[c] = st.best_score;
            first = std::min(first, st.done);
        }
        put(id_, id);
        put(order_, order);
        put(pos_, pos);
        put(best_order_, best_order);
        put(since_, since);
        put(trace_, trace);
        put(accepted_, accepted);
        put(kept_, kept);
        put(done_, done);
        put(score_, score);
        put(best_, best);
        edge_sum_.resize_discard(nc * n * n);
        edge_sumsq_.resize_discard(nc * n * n);
        for (std::int64_t c = 0; c < nc; ++c) {
            edge_sum_.upload(states[c].edge_sum.data(), n * n, stream_->get(), c * n * n);
            edge_sumsq_.upload(states[c].edge_sumsq.data(), n * n, stream_->get(), c * n * n);
        }
        node_.resize_discard(nc * n);
        best_off_.resize_discard(nc * n);
        prop_node_.resize_discard(nc * n);
        prop_off_.resize_discard(nc * n);
        const bool sum = opts_.mode == bn::OrderScoreMode::Sum;
        if (sum) {
            col_.resize_discard(nc * n * n);
            prop_col_.resize_discard(nc * n * n);
            scratch_.resize_discard(nc * n * 2 * n);
            acc_.resize_discard(nc * n * 2 * (n + 1));
        }
        ChainsView C;
        C.chains = nc;
        C.trace_cap = cap;
        C.seed = opts_.seed;
        C.moves = opts_.moves;
        C.burn_in = opts_.burn_in;
        C.thin = opts_.thin;
        C.id = id_.data();
        C.order = order_.data();
        C.pos = pos_.data();
        C.node = node_.data();
        C.best_off = best_off_.data();
        C.since = since_.data();
        C.edge_sum = edge_sum_.data();
        C.edge_sumsq = edge_sumsq_.data();
        C.trace = trace_.data();
        C.best_order = best_order_.data();
        C.score = score_.data();
        C.best_score = best_.data();
        C.accepted = accepted_.data();
        C.kept = kept_.data();
        C.done = done_.data();
        C.prop_node = prop_node_.data();
        C.prop_off = prop_off_.data();
        C.sum_mode = sum ? 1 : 0;
        C.col = col_.data();
        C.prop_col = prop_col_.data();
        C.scratch = scratch_.data();
        C.acc = acc_.data();
        const auto grid = static_cast<unsigned>(nc * n);  // a block per (chain, node or slot)
        init_kernel<<<grid, kRescoreThreads, 0, stream_->get()>>>(T_, C);
        CUDAG_CHECK_LAUNCH();
        for (std::int64_t t = first + 1; t <= until; ++t) {
            rescore_kernel<<<grid, kRescoreThreads, 0, stream_->get()>>>(T_, C, t);
            CUDAG_CHECK_LAUNCH();
            accept_kernel<<<static_cast<unsigned>(nc), 32, 0, stream_->get()>>>(T_, C, t);
            CUDAG_CHECK_LAUNCH();
        }
        // Back to the states.
        get(order_, order);
        get(best_order_, best_order);
        get(since_, since);
        get(trace_, trace);
        get(accepted_, accepted);
        get(kept_, kept);
        get(done_, done);
        get(score_, score);
        get(best_, best);
        for (std::int64_t c = 0; c < nc; ++c) {
            bn::ChainState& st = states[c];
            edge_sum_.download(st.edge_sum.data(), n * n, stream_->get(), c * n * n);
            edge_sumsq_.download(st.edge_sumsq.data(), n * n, stream_->get(), c * n * n);
        }
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
        for (std::int64_t c = 0; c < nc; ++c) {
            bn::ChainState& st = states[c];
            std::copy_n(order.begin() + c * n, n, st.order.begin());
            std::copy_n(best_order.begin() + c * n, n, st.best_order.begin());
            std::copy_n(since.begin() + c * n, n, st.since.begin());
            st.trace.assign(trace.begin() + c * cap, trace.begin() + c * cap + kept[c]);
            st.accepted = accepted[c];
            st.kept = kept[c];
            st.done = done[c];
            st.score = score[c];
            st.best_score = best[c];
        }
    }

private:
    template <class T>
    void put(DeviceBuffer<T>& d, const std::vector<T>& h) {
        d.resize_discard(std::max<std::size_t>(h.size(), 1));
        d.upload(h.data(), h.size(), stream_->get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    }
    template <class T>
    void get(const DeviceBuffer<T>& d, std::vector<T>& h) {
        d.download(h.data(), h.size(), stream_->get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
    }

    DeviceBinding binding_;  // first: see the destructor
    int device_;
    const bn::ScoreTable& table_;
    bn::OrderMcmcOptions opts_;
    std::unique_ptr<Stream> stream_;
    TableView T_;
    DeviceBuffer<double> scores_;
    DeviceBuffer<std::uint32_t> sorted_off_;
    DeviceBuffer<std::uint16_t> sorted_par_;
    DeviceBuffer<double> sorted_score_;
    DeviceBuffer<std::int64_t> node_off_, list_start_, cand_start_, extra_start_, so_, xo_, binom_;
    DeviceBuffer<std::int32_t> cand_, extra_;
    DeviceBuffer<std::int64_t> id_, since_, accepted_, kept_, done_;
    DeviceBuffer<std::int32_t> order_, pos_, best_order_, scratch_;
    DeviceBuffer<unsigned long long> acc_;
    DeviceBuffer<double> node_, edge_sum_, edge_sumsq_, trace_, score_, best_, prop_node_, col_, prop_col_;
    DeviceBuffer<std::uint32_t> best_off_, prop_off_;
};

/// BGe entries of one node, a thread each: bn::BgeScorer::local (bge_local_score on TN with
/// the host's constants), then bn::PriorScorer's per-parent terms.
__global__ void bge_table_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                 const double* tn, std::int64_t n, const double* consts, double awpn_n,
                                 double per_parent, const double* prior, double* out) {
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < L.entries;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, e, ps);
        double scratch[kMaxParentsGpu * (kMaxParentsGpu + 1)];
        double score = bn::bge_local_score(tn, n, L.v, ps, kk, consts[kk], awpn_n, scratch);
        for (int t = 0; t < kk; ++t) {
            score += per_parent;
            if (prior) score += prior[ps[t] * n + L.v];
        }
        out[e] = score;
    }
}

/// bn::dominated_sets for the k-sets of one block of a node: block -1 the candidates'
/// (best of the immediate subsets), block e >= 0 extra e's (the set without the extra, and
/// with one candidate fewer). `best` holds each settled set's best proper-subset score.
__global__ void dominate_kernel(NodeLayout L, Binomials B, const double* sc, double* best, std::uint8_t* dom, int k,
                                std::int64_t extras) {
    const std::int64_t per = B(L.m, k);
    const std::int64_t count = extras < 0 ? per : extras * per;
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t e = extras < 0 ? -1 : i / per, r = extras < 0 ? i : i % per;
        int c[kMaxParentsGpu], sub[kMaxParentsGpu];
        unrank(B, r, k, L.m, c);
        const std::int64_t self = L.so[k] + r;
        const std::int64_t base = e < 0 ? 0 : L.core + e * L.block;
        const std::int64_t* off = e < 0 ? L.so : L.xo;
        double b = -xm::detail::inf();
        auto take = [&](std::int64_t j) {
            const double x = sc[j] > best[j] ? sc[j] : best[j];
            if (x > b) b = x;
        };
        if (e >= 0) take(self);
        for (int drop = 0; drop < k; ++drop) {
            int at = 0;
            for (int t = 0; t < k; ++t)
                if (t != drop) sub[at++] = c[t];
            take(base + off[k - 1] + rank_of(B, sub, k - 1, L.m));
        }
        const std::int64_t me = base + off[k] + r;
        best[me] = b;
        dom[me] = (e >= 0 || k > 0) && b >= sc[me] ? 1 : 0;
    }
}

/// dom[i] = 1 - dom[i]: the flags of the sets to keep.
__global__ void flip_kernel(std::uint8_t* dom, std::int64_t count) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        dom[i] = dom[i] ? 0 : 1;
}

/// Sort keys of the undominated sets: their scores with -0.0 as +0.0 (the CPU compares
/// them equal); values: their offsets.
__global__ void sort_keys_kernel(const double* scores, const std::uint32_t* offs, std::int64_t count, double* keys) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const double x = scores[offs[i]];
        keys[i] = x == 0.0 ? 0.0 : x;
    }
}

/// The parents of each sorted entry, w per entry (0xffff after the last).
__global__ void sort_parents_kernel(NodeLayout L, Binomials B, const std::int32_t* cands, const std::int32_t* extras,
                                    const std::uint32_t* offs, std::int64_t count, int w, std::uint16_t* out) {
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        std::int32_t ps[kMaxParentsGpu];
        const int kk = entry_parents(L, B, cands, extras, offs[i], ps);
        for (int t = 0; t < w; ++t) out[i * w + t] = t < kk ? static_cast<std::uint16_t>(ps[t]) : std::uint16_t{0xffff};
    }
}

/// What the per-node table kernels share: each node's candidates and extras on the device
/// (uploaded by node()), the binomial table, and the largest entry count of the nodes
/// `nodes` (those the caller computes).
class NodeLists {
public:
    NodeLists(const bn::ScoreTable& table, bn::NodeRange nodes, cudaStream_t stream) : table_(table), stream_(stream) {
        std::int64_t lists = 1;
        for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
            most_ = std::max(most_, table.node_entries(v));
            lists = std::max<std::int64_t>(
                lists, static_cast<std::int64_t>(table.candidates(v).size() + table.extras(v).size()));
        }
        cands_.resize_discard(static_cast<std::size_t>(lists));
        extras_.resize_discard(static_cast<std::size_t>(lists));
        const std::vector<std::int64_t> binom = binomial_table(table.n_nodes(), table.max_parents());
        binom_.resize_discard(binom.size());
        binom_.upload(binom.data(), binom.size(), stream);
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    /// Node v's layout, its lists uploaded.
    NodeLayout node(std::int32_t v) {
        const auto c = table_.candidates(v);
        const auto x = table_.extras(v);
        cands_.upload(c.data(), c.size(), stream_);
        extras_.upload(x.data(), x.size(), stream_);
        return layout_of(table_, v);
    }
    std::int64_t most() const { return most_; }
    const std::int32_t* cands() { return cands_.data(); }
    const std::int32_t* extras() { return extras_.data(); }
    Binomials binomials() { return {binom_.data(), table_.max_parents() + 2}; }

private:
    const bn::ScoreTable& table_;
    cudaStream_t stream_;
    std::int64_t most_ = 1;
    DeviceBuffer<std::int32_t> cands_, extras_;
    DeviceBuffer<std::int64_t> binom_;
};

}  // namespace

void fill_discrete_table(const ci::DiscreteCodes& codes, const bn::ScoreSpec& spec, double per_parent,
                         std::span<const double> prior_terms, bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    if (table.max_parents() > kMaxParentsGpu || nodes.empty()) return;  // all on the CPU, or nothing to do
    DeviceGuard guard(device);
    Stream stream;
    DeviceBuffer<std::uint8_t> d_codes(std::max<std::size_t>(codes.codes.size(), 1));
    d_codes.upload(codes.codes.data(), codes.codes.size(), stream.get());
    DeviceBuffer<std::int32_t> d_cards(codes.cards.size());
    d_cards.upload(codes.cards.data(), codes.cards.size(), stream.get());
    DeviceBuffer<double> d_prior(std::max<std::size_t>(prior_terms.size(), 1));
    d_prior.upload(prior_terms.data(), prior_terms.size(), stream.get());
    NodeLists lists(table, nodes, stream.get());
    DeviceBuffer<double> d_out(static_cast<std::size_t>(lists.most()));
    TableArgs a{d_codes.data(), d_cards.data(),  prior_terms.empty() ? nullptr : d_prior.data(),
                codes.n_vars,   codes.n_samples, spec.kind == bn::ScoreKind::K2 ? 1 : 0,
                spec.iss,       per_parent,      lists.binomials(),
                kCells};
    CUDAG_CUDA_CHECK(cudaFuncSetAttribute(table_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kWarps * table_warp_bytes(kCells))));
    int sms = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (table.node_entries(v) == 0) continue;
        const NodeLayout L = lists.node(v);
        const auto c = table.candidates(v);
        const auto x = table.extras(v);
        d_out.fill_bytes(0xff, stream.get(), static_cast<std::size_t>(L.entries));  // NaN: left to the CPU
        // Cells for the largest parent table of the node (levels of its s most-levelled parents).
        std::vector<std::int64_t> levels;
        for (const std::int32_t u : c) levels.push_back(codes.cards[u]);
        for (const std::int32_t u : x) levels.push_back(codes.cards[u]);
        std::sort(levels.begin(), levels.end(), std::greater<>());
        std::int64_t cells = codes.cards[v];
        for (int k = 0; k < table.max_parents() && k < static_cast<int>(levels.size()) && cells <= kCells; ++k)
            cells *= levels[k];
        a.cap = static_cast<int>(std::min<std::int64_t>(cells, kCells));
        const std::size_t smem = kWarps * table_warp_bytes(a.cap);
        const auto grid = static_cast<unsigned>(std::min<std::int64_t>((L.entries + kWarps - 1) / kWarps, sms * 16));
        table_kernel<<<grid, kWarps * 32, smem, stream.get()>>>(L, lists.cands(), lists.extras(), a, d_out.data());
        CUDAG_CHECK_LAUNCH();
        const std::span<double> dst = table.mutable_node_scores(v);
        d_out.download(dst.data(), dst.size(), stream.get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }
}

void fill_bge_table(const bn::BgeScorer& scorer, double per_parent, std::span<const double> prior_terms,
                    bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    if (table.max_parents() > kMaxParentsGpu || nodes.empty()) return;  // all on the CPU, or nothing to do
    DeviceGuard guard(device);
    Stream stream;
    const std::int64_t n = table.n_nodes();
    DeviceBuffer<double> d_tn(scorer.tn().size()), d_consts(scorer.consts().size());
    d_tn.upload(scorer.tn().data(), scorer.tn().size(), stream.get());
    d_consts.upload(scorer.consts().data(), scorer.consts().size(), stream.get());
    DeviceBuffer<double> d_prior(std::max<std::size_t>(prior_terms.size(), 1));
    d_prior.upload(prior_terms.data(), prior_terms.size(), stream.get());
    NodeLists lists(table, nodes, stream.get());
    DeviceBuffer<double> d_out(static_cast<std::size_t>(lists.most()));
    int sms = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (table.node_entries(v) == 0) continue;
        const NodeLayout L = lists.node(v);
        const auto grid = static_cast<unsigned>(std::min<std::int64_t>((L.entries + 127) / 128, sms * 16));
        bge_table_kernel<<<grid, 128, 0, stream.get()>>>(L, lists.binomials(), lists.cands(), lists.extras(),
                                                         d_tn.data(), n, d_consts.data(), scorer.awpn_n(), per_parent,
                                                         prior_terms.empty() ? nullptr : d_prior.data(), d_out.data());
        CUDAG_CHECK_LAUNCH();
        const std::span<double> dst = table.mutable_node_scores(v);
        d_out.download(dst.data(), dst.size(), stream.get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }
}

void sort_table(bn::ScoreTable& table, bn::NodeRange nodes, int device) {
    CUDAG_EXPECTS(table.max_parents() <= kMaxParentsGpu,
                  "the CUDA sort takes at most " + std::to_string(kMaxParentsGpu) + " parents");
    if (nodes.empty()) return;
    DeviceGuard guard(device);
    Stream stream;
    const int s = table.max_parents(), w = std::max(s, 1);
    NodeLists lists(table, nodes, stream.get());
    const std::int64_t most = lists.most();
    const auto cap = static_cast<std::size_t>(most);
    DeviceBuffer<double> scores(cap), best(cap), keys(cap), keys_out(cap);
    DeviceBuffer<std::uint8_t> dom(cap);
    DeviceBuffer<std::uint32_t> offs(cap), offs_out(cap);
    DeviceBuffer<std::int64_t> kept(1);
    DeviceBuffer<std::uint16_t> parents(cap * w);
    const Binomials B = lists.binomials();
    // Temporary storage for the compaction and the sort at the largest size.
    std::size_t select_bytes = 0, sort_bytes = 0;
    CUDAG_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, thrust::counting_iterator<std::uint32_t>(0),
                                                dom.data(), offs.data(), kept.data(), static_cast<int>(most)));
    CUDAG_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, keys.data(), keys_out.data(),
                                                               offs.data(), offs_out.data(), static_cast<int>(most)));
    DeviceBuffer<unsigned char> temp(std::max<std::size_t>({select_bytes, sort_bytes, 1}));
    int sms = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    auto grid_for = [&](std::int64_t count) {
        return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((count + 255) / 256, sms * 8)));
    };
    for (std::int32_t v = nodes.begin; v < nodes.end; ++v) {
        if (table.node_entries(v) == 0) continue;
        const NodeLayout L = lists.node(v);
        const auto sc = table.node_scores(v);
        scores.upload(sc.data(), sc.size(), stream.get());
        const auto x = table.extras(v);
        // Dominated sets, by size: a set's immediate subsets are settled before it.
        const auto nx = static_cast<std::int64_t>(x.size());
        for (int k = 0; k <= s && k <= L.m; ++k) {
            dominate_kernel<<<grid_for(binomial(L.m, k)), 256, 0, stream.get()>>>(L, B, scores.data(), best.data(),
                                                                                  dom.data(), k, -1);
            CUDAG_CHECK_LAUNCH();
            if (k <= s - 1 && nx > 0) {
                dominate_kernel<<<grid_for(nx * binomial(L.m, k)), 256, 0, stream.get()>>>(
                    L, B, scores.data(), best.data(), dom.data(), k, nx);
                CUDAG_CHECK_LAUNCH();
            }
        }
        // The undominated offsets (dom = 0), increasing, then sorted by score, stably.
        flip_kernel<<<grid_for(L.entries), 256, 0, stream.get()>>>(dom.data(), L.entries);
        CUDAG_CHECK_LAUNCH();
        std::size_t bytes = temp.size();
        CUDAG_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), bytes, thrust::counting_iterator<std::uint32_t>(0),
                                                    dom.data(), offs.data(), kept.data(), static_cast<int>(L.entries),
                                                    stream.get()));
        std::int64_t count = 0;
        kept.download(&count, 1, stream.get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        sort_keys_kernel<<<grid_for(count), 256, 0, stream.get()>>>(scores.data(), offs.data(), count, keys.data());
        CUDAG_CHECK_LAUNCH();
        bytes = temp.size();
        CUDAG_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp.data(), bytes, keys.data(), keys_out.data(),
                                                                   offs.data(), offs_out.data(),
                                                                   static_cast<int>(count), 0, 64, stream.get()));
        sort_parents_kernel<<<grid_for(count), 256, 0, stream.get()>>>(L, B, lists.cands(), lists.extras(),
                                                                       offs_out.data(), count, w, parents.data());
        CUDAG_CHECK_LAUNCH();
        std::vector<std::uint32_t> so(static_cast<std::size_t>(count));
        std::vector<std::uint16_t> sp(static_cast<std::size_t>(count) * w);
        offs_out.download(so.data(), so.size(), stream.get());
        parents.download(sp.data(), sp.size(), stream.get());
        CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        std::vector<double> ss(so.size());  // the entries' scores, bit for bit the table's
        for (std::size_t i = 0; i < so.size(); ++i) ss[i] = sc[so[i]];
        table.set_sorted(v, std::move(so), std::move(sp), std::move(ss));
    }
}

std::unique_ptr<OrderChainsGpu> make_order_chains_gpu(const bn::ScoreTable& table, const bn::OrderMcmcOptions& opts,
                                                      int device) {
    return std::make_unique<ChainsImpl>(table, opts, device);
}

}  // namespace cudag::cuda
