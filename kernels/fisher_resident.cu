// SPDX-License-Identifier: Apache-2.0
// Resident levels (fisher_resident.cuh): one kernel a level, queued for every level of the run
// at once (each returns at once when an earlier level stopped the run): its warps walk the
// level's pairs and its last block to finish settles the level.
#include "fisher_resident.cuh"

#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "ci/fisher_z.hpp"
#include "combination_walk.hpp"
#include "core/combinations.hpp"
#include "correlation_entry.cuh"
#include "cuda_check.hpp"
#include "kernel_preload.cuh"
#include "pc_gaussian_device.cuh"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;

/// A level kernel's block (8 warps); the last one to finish settles. Small enough that the
/// exact tests' arrays of the deeper levels stay in registers (at 1,024 threads a level
/// kernel had 64 registers a thread and spilled kilobytes).
constexpr int kSettleThreads = 256;

__device__ __forceinline__ u64 global_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// The last row r with off[r] <= e.
__device__ __forceinline__ std::int32_t row_of(const std::int64_t* off, std::int64_t n, std::int64_t e) {
    std::int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const std::int64_t mid = (lo + hi) / 2;
        if (off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return static_cast<std::int32_t>(lo);
}

/// The entry (j, i) in row j of the snapshot (-1: none).
__device__ __forceinline__ std::int64_t reverse_entry(const std::int64_t* off, const std::int32_t* nb, std::int32_t i,
                                                      std::int32_t j) {
    std::int64_t lo = off[j], hi = off[j + 1];
    while (lo < hi) {
        const std::int64_t mid = (lo + hi) / 2;
        if (nb[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < off[j + 1] && nb[lo] == i ? lo : -1;
}

/// Level l's snapshot (`in`) and the next one (`out`), with their entries' rows and reverses.
struct Snapshots {
    const std::int64_t* in_off;
    const std::int32_t* in_nb;
    const std::int32_t* in_row;
    const std::int64_t* in_rev;
    std::int64_t* out_off;
    std::int32_t* out_nb;
    std::int32_t* out_row;
    std::int64_t* out_rev;
    int out_buf;
};

__device__ __forceinline__ Snapshots snapshots(const ResidentArgs& a, int l) {
    const int k = l - a.first, b = (k - 1) & 1;
    Snapshots s;
    s.in_off = k == 0 ? a.off0 : a.off[b];
    s.in_nb = k == 0 ? a.nbrs0 : a.nbrs[b];
    s.in_row = k == 0 ? a.row0 : a.row[b];
    s.in_rev = k == 0 ? a.rev0 : a.rev[b];
    s.out_off = a.off[k & 1];
    s.out_nb = a.nbrs[k & 1];
    s.out_row = a.row[k & 1];
    s.out_rev = a.rev[k & 1];
    s.out_buf = k & 1;
    return s;
}

/// The decision's arguments as the level kernels take them.
__device__ __forceinline__ LevelArgs decision_args(const ResidentArgs& a, int l) {
    LevelArgs la;
    la.corr = a.corr;
    la.n = a.n;
    la.m = a.m;
    la.l = l;
    la.alpha = a.alpha;
    la.strict = a.strict;
    la.r_lo = a.r_lo[l];
    la.r_hi = a.r_hi[l];
    return la;
}

/// The test of (i, j | S) for the set of rank `rank` among the C(d - 1, L) sets of positions
/// other than q (nodes into s): the CPU engine's exact sequence; returns r.
template <int L>
__device__ __forceinline__ double exact_test(const ResidentArgs& a, std::int32_t i, const std::int32_t* nb, int d,
                                             int q, std::int64_t rank, int* s) {
    int c[L];
    combination_unrank_fast(rank, L, d - 1, c);
#pragma unroll
    for (int t = 0; t < L; ++t) s[t] = nb[c[t] + (c[t] >= q ? 1 : 0)];
    double lmat[L * L], work[2 * L * L], yi[L], yj[L];
    ci::ConditioningBlock blk;
    blk.lmat = lmat;
    const detail::CorrReader corr{a.corr};
    blk.factorise_with(corr, s, L, work);
    blk.project_with(corr, s, i, yi);
    blk.project_with(corr, s, nb[q], yj);
    return ci::partial_correlation(blk, detail::corr_entry(a.corr, i, nb[q]), yi, yj);
}

/// The reverse entry of every entry of level `first`'s snapshot, the state and the levels'
/// records started.
__global__ void resident_start_kernel(ResidentArgs a) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t gtid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::int64_t e = gtid; e < a.capacity; e += stride) {
        const std::int32_t i = row_of(a.off0, a.n, e);
        a.row0[e] = i;
        a.rev0[e] = reverse_entry(a.off0, a.nbrs0, i, a.nbrs0[e]);
    }
    if (gtid == 0) {
        ResidentState s;
        s.start_ns = global_ns();
        s.entries = a.capacity;
        *a.state = s;
        for (int l = a.first; l <= a.last; ++l) a.info[l] = ResidentLevelInfo{};
    }
}

/// Pair (i, j)'s pMax raised to p (a NaN never raises, as on the host).
__device__ __forceinline__ void raise_pmax(const ResidentArgs& a, std::int32_t i, std::int32_t j, double p) {
    if (isnan(p)) return;
    const std::int64_t slot = detail::pmax_slot(a.dense, a.n, a.poff, a.pcol, min(i, j), max(i, j));
    if (slot < 0) return;  // not held (cannot happen)
    atomicMax(reinterpret_cast<long long*>(a.table + slot), static_cast<long long>(__double_as_longlong(p)));
}

/// Where a level's records go: its first record and node (the run's totals before it) and
/// its count (info[L].records, raised by the walking warps).
struct RecordSink {
    long long record0, node0;
    unsigned long long* count;
};

/// A warp walks entry e (row i of degree d) in rounds of 32 ranks, a lane a rank; the first
/// independent rank wins: its lane raises the pair's pMax by its test's p and writes the
/// record; an entry with none raises it by the p of its smallest |r|. Returns whether it
/// separated.
template <int L>
__device__ __forceinline__ bool walk_entry(const ResidentArgs& a, const LevelArgs& la, const Snapshots& sn, int lane,
                                           std::int64_t e, std::int32_t i, int d, const RecordSink& sink, u64& tests) {
    const std::int64_t e0 = sn.in_off[i];
    const int q = static_cast<int>(e - e0);
    const std::int32_t j = sn.in_nb[e];
    const std::int64_t total = binomial(d - 1, L);
    u64 smallest = kNoCorrelation;
    for (std::int64_t base = 0; base < total; base += 32) {
        const std::int64_t rank = base + lane;
        const bool live = rank < total;
        bool indep = false;
        u64 bits = ~0ull;
        double r = 0.0;
        int s[L];
        if (live) {
            r = exact_test<L>(a, i, sn.in_nb + e0, d, q, rank, s);
            indep = detail::independent_r(la, r, L);
            bits = static_cast<u64>(__double_as_longlong(fabs(r)));
        }
        const unsigned hit = __ballot_sync(0xffffffffu, live && indep);
        if (hit != 0u) {
            const int w = __ffs(static_cast<int>(hit)) - 1;
            tests += static_cast<u64>(w + 1);
            if (lane == w) {
                const long long k = static_cast<long long>(atomicAdd(sink.count, 1ull));
                a.pairs[2 * (sink.record0 + k)] = min(i, j);
                a.pairs[2 * (sink.record0 + k) + 1] = max(i, j);
#pragma unroll
                for (int u = 0; u < L; ++u) a.nodes[sink.node0 + k * L + u] = s[u];
                raise_pmax(a, i, j, ci::fisher_z_pvalue(r, a.m, L));
            }
            return true;
        }
        tests += static_cast<u64>(total - base < 32 ? total - base : 32);
        for (int off = 16; off > 0; off >>= 1) bits = min(bits, __shfl_xor_sync(0xffffffffu, bits, off));
        smallest = min(smallest, bits);
    }
    if (lane == 0)
        raise_pmax(a, i, j,
                   smallest == kNoCorrelation
                       ? 0.0
                       : ci::fisher_z_pvalue(__longlong_as_double(static_cast<long long>(smallest)), a.m, L));
    return false;
}

/// Entries a settling thread takes at a time in the compaction's scan.
constexpr int kSettleRun = 8;

/// Level L settled by one block (the next snapshot compacted with its entries' rows and
/// reverses, the level's counts written, the next level planned or the run stopped), once
/// every warp's walk is done (pMax and the records are the walking warps'). The walks' flags
/// (other blocks' writes) are read past L1 (__ldcg). The compaction is one scan over the
/// entries, kSettleRun consecutive ones a thread: an entry's place in the next snapshot is the
/// count of kept entries before it (newpos; a removed one holds -1 - that count), so a row's
/// start is its first entry's count and no step walks a row.
template <int L>
__device__ __forceinline__ void settle_level(const ResidentArgs& a, const Snapshots& sn) {
    using Scan = cub::BlockScan<long long, kSettleThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    __shared__ u64 s_rows;
    __shared__ long long s_maxdeg, s_next_maxdeg, s_carry;
    __shared__ double s_planned[kSettleThreads / 32];
    const std::int64_t n = a.n, entries = a.state->entries;
    const long long record0 = a.state->records, node0 = a.state->nodes;
    const int t = static_cast<int>(threadIdx.x);
    if (t == 0) {
        s_rows = 0;
        s_maxdeg = s_next_maxdeg = s_carry = 0;
    }
    __syncthreads();
    // The kept entries (a pair goes when either of its entries separated: the flag its warp
    // wrote on both) moved to their places in order.
    constexpr std::int64_t kPass = static_cast<std::int64_t>(kSettleThreads) * kSettleRun;
    for (std::int64_t e0 = 0; e0 < entries; e0 += kPass) {
        const std::int64_t first = e0 + static_cast<std::int64_t>(t) * kSettleRun;
        bool keep[kSettleRun];
        long long mine = 0;
#pragma unroll
        for (int k = 0; k < kSettleRun; ++k) {
            keep[k] = first + k < entries && __ldcg(a.sep + first + k) == 0;
            mine += keep[k];
        }
        long long before = 0, chunk = 0;
        Scan(scan_storage).ExclusiveSum(mine, before, chunk);
        long long at = s_carry + before;
#pragma unroll
        for (int k = 0; k < kSettleRun; ++k) {
            const std::int64_t e = first + k;
            if (e >= entries) break;
            if (keep[k]) {
                sn.out_nb[at] = sn.in_nb[e];
                sn.out_row[at] = sn.in_row[e];
                a.newpos[e] = at++;
            } else {
                a.newpos[e] = -1 - at;
            }
        }
        __syncthreads();
        if (t == 0) s_carry += chunk;
        __syncthreads();
    }
    const std::int64_t next_entries = s_carry;
    // Per row: its start in the next snapshot, the level's rows and planned tests, the
    // degrees; per entry: the next snapshot's reverse entries (a kept entry's partner is kept).
    double planned = 0.0;
    u64 rows = 0;
    long long maxdeg = 0, next_maxdeg = 0;
    for (std::int64_t r = t; r < n; r += kSettleThreads) {
        const std::int64_t b = sn.in_off[r], f = sn.in_off[r + 1];
        const long long d = f - b;
        maxdeg = max(maxdeg, d);
        if (d - 1 >= L) {
            ++rows;
            planned += static_cast<double>(d) * static_cast<double>(binomial(d - 1, L));
        }
        const std::int64_t pb = b < entries ? a.newpos[b] : next_entries;
        const std::int64_t pf = f < entries ? a.newpos[f] : next_entries;
        const std::int64_t start = pb >= 0 ? pb : -1 - pb, end = pf >= 0 ? pf : -1 - pf;
        sn.out_off[r] = start;
        next_maxdeg = max(next_maxdeg, static_cast<long long>(end - start));
    }
    if (t == 0) sn.out_off[n] = next_entries;
    for (std::int64_t e = t; e < entries; e += kSettleThreads) {
        const std::int64_t to = a.newpos[e];
        if (to < 0) continue;
        const std::int64_t m = sn.in_rev[e];
        sn.out_rev[to] = m >= 0 ? a.newpos[m] : -1;
    }
    // The planned tests summed in a fixed order (the same value on every run): a warp's
    // lanes by shuffles, then the warps' sums in order.
    for (int off = 16; off > 0; off >>= 1) planned += __shfl_down_sync(0xffffffffu, planned, off);
    if ((t & 31) == 0) s_planned[t >> 5] = planned;
    if (rows) atomicAdd(&s_rows, rows);
    if (maxdeg) atomicMax(&s_maxdeg, maxdeg);
    if (next_maxdeg) atomicMax(&s_next_maxdeg, next_maxdeg);
    __syncthreads();
    if (t == 0) {
        double planned_sum = 0.0;
        for (int w = 0; w < kSettleThreads / 32; ++w) planned_sum += s_planned[w];
        ResidentLevelInfo& info = a.info[L];
        const long long records = static_cast<long long>(__ldcg(reinterpret_cast<const u64*>(&info.records)));
        info.removed = static_cast<long long>(__ldcg(reinterpret_cast<const u64*>(&info.removed)));
        info.tests = __ldcg(&info.tests);
        info.entries = entries;
        info.rows = static_cast<long long>(s_rows);
        info.max_degree = s_maxdeg;
        info.planned = planned_sum;
        info.records = records;
        info.record_begin = record0;
        info.node_begin = node0;
        info.ran = 1;
        ResidentState& st = *a.state;
        st.records = record0 + records;
        st.nodes = node0 + records * L;
        st.entries = next_entries;
        st.levels_run += 1;
        st.final_buf = sn.out_buf;
        const long long next = L + 1, d = s_next_maxdeg;
        st.stop = next > a.last || d - 1 < next ||
                  (next <= kResidentMaxLevel && binomial(d - 1, static_cast<int>(next)) > a.max_sets);
        st.blocks_done = 0;  // for the next level's kernel
        info.end_ns = global_ns();
    }
}

/// Level L: a warp per pair, walking its lower entry (i, j > i) and then, where that found no
/// separating set, its upper entry (j, i) (the lower endpoint's set wins: DESIGN.md), and
/// flagging both entries when either separated; the last block to finish settles the level
/// (the other blocks' writes fenced before it counts them).
template <int L>
__global__ void __launch_bounds__(kSettleThreads) resident_level_kernel(ResidentArgs a) {
    __shared__ bool s_last;
    if (a.state->stop) return;
    const Snapshots sn = snapshots(a, L);
    const LevelArgs la = decision_args(a, L);
    const std::int64_t entries = a.state->entries;
    const RecordSink sink{a.state->records, a.state->nodes, reinterpret_cast<u64*>(&a.info[L].records)};
    const int lane = static_cast<int>(threadIdx.x & 31);
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    u64 tests = 0, removed = 0;
    for (std::int64_t e = warp; e < entries; e += warps) {
        const std::int32_t i = sn.in_row[e], j = sn.in_nb[e];
        const std::int64_t m = sn.in_rev[e];
        if (j < i) {  // an upper entry: its lower entry's warp walks it
            if (m < 0 && lane == 0) a.sep[e] = 0;
            continue;
        }
        bool gone = false;
#pragma unroll 1
        for (int side = 0; side < 2 && !gone; ++side) {
            const std::int64_t x = side == 0 ? e : m;
            if (x < 0) break;
            const std::int32_t row = side == 0 ? i : j;
            const int d = static_cast<int>(sn.in_off[row + 1] - sn.in_off[row]);
            if (d - 1 >= L) gone = walk_entry<L>(a, la, sn, lane, x, row, d, sink, tests);
        }
        if (lane == 0) {
            a.sep[e] = gone;
            if (m >= 0) a.sep[m] = gone;
            removed += gone;
        }
    }
    // The walk's count is the same on every lane: lane 0's, one atomic a warp.
    if (lane == 0 && tests) atomicAdd(&a.info[L].tests, tests);
    if (lane == 0 && removed) atomicAdd(reinterpret_cast<u64*>(&a.info[L].removed), removed);
    __threadfence();  // every thread's writes visible to the block that settles
    __syncthreads();
    if (threadIdx.x == 0) s_last = atomicAdd(&a.state->blocks_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    settle_level<L>(a, sn);
}

/// The run's results packed for one read-back (ResidentArgs::pack, resident_pack's layout).
__global__ void resident_pack_kernel(ResidentArgs a) {
    const ResidentState& st = a.outcome->state;
    const ResidentPack p = resident_pack(st.records, st.nodes, a.n, st.entries, a.table_slots);
    const std::int64_t* off = st.final_buf < 0 ? a.off0 : a.off[st.final_buf];
    const std::int32_t* nb = st.final_buf < 0 ? a.nbrs0 : a.nbrs[st.final_buf];
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    const std::int64_t gtid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const auto words = static_cast<std::int64_t>(sizeof(ResidentOutcome) / sizeof(std::uint32_t));
    static_assert(sizeof(ResidentOutcome) % sizeof(std::uint32_t) == 0);
    const auto* out = reinterpret_cast<const std::uint32_t*>(a.outcome);
    for (std::int64_t k = gtid; k < words; k += stride) reinterpret_cast<std::uint32_t*>(a.pack)[k] = out[k];
    auto* pairs = reinterpret_cast<std::int32_t*>(a.pack + p.pairs);
    for (std::int64_t k = gtid; k < 2 * st.records; k += stride) pairs[k] = a.pairs[k];
    auto* nodes = reinterpret_cast<std::int32_t*>(a.pack + p.nodes);
    for (std::int64_t k = gtid; k < st.nodes; k += stride) nodes[k] = a.nodes[k];
    auto* o = reinterpret_cast<std::int64_t*>(a.pack + p.off);
    for (std::int64_t k = gtid; k <= a.n; k += stride) o[k] = off[k];
    auto* b = reinterpret_cast<std::int32_t*>(a.pack + p.nbrs);
    for (std::int64_t k = gtid; k < st.entries; k += stride) b[k] = nb[k];
    auto* t = reinterpret_cast<unsigned long long*>(a.pack + p.table);
    for (std::int64_t k = gtid; k < a.table_slots; k += stride) t[k] = a.table[k];
}

}  // namespace

void launch_resident_levels(const ResidentArgs& a, cudaStream_t stream) {
    CUDAG_ASSERT(a.first >= 1 && a.first <= a.last && a.last <= kResidentMaxLevel && a.capacity > 0);
    const std::int64_t start_blocks = std::min<std::int64_t>((a.capacity + 255) / 256, 1024);
    resident_start_kernel<<<static_cast<unsigned>(start_blocks), 256, 0, stream>>>(a);
    CUDAG_CHECK_LAUNCH();
    const std::int64_t blocks =
        std::min<std::int64_t>((a.capacity + kSettleThreads / 32 - 1) / (kSettleThreads / 32), std::int64_t{1} << 14);
    for (int l = a.first; l <= a.last; ++l) {
        detail::dispatch_level(l, false, [&](auto tag) {
            constexpr int L = decltype(tag)::value;
            if constexpr (L > 0)
                resident_level_kernel<L><<<static_cast<unsigned>(blocks), kSettleThreads, 0, stream>>>(a);
        });
        CUDAG_CHECK_LAUNCH();
    }
    resident_pack_kernel<<<static_cast<unsigned>(std::min<std::int64_t>((a.capacity + 255) / 256, 256) + 1), 256, 0,
                           stream>>>(a);
    CUDAG_CHECK_LAUNCH();
}

int preload_resident_kernels(int max_level) {
    int n = detail::preload(resident_start_kernel) + detail::preload(resident_pack_kernel);
    detail::for_each_level<1, kResidentMaxLevel>([&](auto tag) {
        constexpr int L = decltype(tag)::value;
        if (max_level < 0 || L <= max_level) n += detail::preload(resident_level_kernel<L>);
    });
    return n;
}

}  // namespace cudag::cuda
