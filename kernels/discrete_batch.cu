// SPDX-License-Identifier: Apache-2.0
// χ²/G² test batches (discrete_batch.cuh says how they stay the CPU's bit for bit). The
// contingency tables are gpuPC's (Hagedorn & Huegle, SDM'21 §3: one test's table built by a
// group of threads with atomic counts), kept sparse as the CPU engine keeps them: a launch
// takes a chunk of queries;
//  - discrete_keys_kernel: one thread per (query, sample), the sample's stratum key
//    Σ_t code(s_t) · Π_{u > t} r(s_u) (S's first variable most significant, as
//    CpuDiscreteEngine's build()), and the sample index as the value;
//  - a stable segmented sort (CUB, one segment per query) orders each query's samples by
//    stratum and, within one, by index: the CPU's strata and sample order;
//  - discrete_stat_kernel: one warp per query walks its strata in order (32 samples a step),
//    counts N[x][y], N[x], N[y] with atomics in the query's own table (zero on entry, reset
//    after each stratum through the list of touched cells, as the CPU resets its tables), lists
//    the cells in first-touch order, and lane 0 sums χ²'s terms in that order (G²: the warp
//    lists each cell's N and E for the host).
// Under test-wise deletion a row missing in one of the query's variables gets the key
// kMissingKey (above every stratum's: sorted last, where the walk stops), and
// discrete_levels_kernel counts each variable's levels on the query's rows.
#include "discrete_batch.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cub/device/device_segmented_sort.cuh>
#include <vector>

#include "core/error.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace cudag::cuda {
namespace {

using u64 = unsigned long long;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kStatBlock = 128;  // 4 warps, 4 queries a block
constexpr int kKeysBlock = 256;
constexpr int kLevelsBlock = 128;
/// The key of a row missing in one of the query's variables (strata keys are below 2^62).
constexpr u64 kMissingKey = ~0ull;

/// One launch's queries (device pointers; arrays per query indexed by the launch's query k).
struct BatchArgs {
    const std::uint8_t* codes = nullptr;  ///< n × m, variable-major
    const std::int32_t* cards = nullptr;  ///< levels per variable
    std::int64_t m = 0;
    const u64* present = nullptr;  ///< test-wise: per variable, words bits of rows present (else null)
    std::int64_t words = 0;
    int n_queries = 0;
    const std::int32_t* x = nullptr;
    const std::int32_t* y = nullptr;
    const std::int64_t* set_off = nullptr;  ///< query k's S at nodes[set_off[k], set_off[k + 1])
    const std::int32_t* nodes = nullptr;
    const std::int64_t* table_off = nullptr;    ///< words: rx·ry cells, then N[x] (rx), N[y] (ry)
    const std::int64_t* touched_off = nullptr;  ///< min(rx·ry, m) cell ids
    const std::int64_t* cell_off = nullptr;     ///< G²: slots for the listed cells
    std::uint32_t* tables = nullptr;            ///< zero on entry and on exit
    std::int32_t* touched = nullptr;
    bool chi = true;
    double* statistic = nullptr;     ///< χ²: the statistic
    double* df_seen = nullptr;       ///< causal-learn's dof (observed levels per stratum)
    std::int64_t* listed = nullptr;  ///< cells with a sample (G²: those listed)
    std::uint32_t* cell_n = nullptr;
    double* cell_e = nullptr;
    std::int64_t* rows = nullptr;  ///< test-wise: rows used per query
};

/// Whether row k is present in variable v (always, without bitmaps).
__device__ bool row_present(const BatchArgs& a, std::int32_t v, std::int64_t k) {
    return a.present == nullptr || ((a.present[static_cast<std::int64_t>(v) * a.words + k / 64] >> (k % 64)) & 1ull);
}

/// Thread t of the grid-stride loop: query t / m, sample t % m.
__global__ void discrete_keys_kernel(BatchArgs a, u64* __restrict__ keys, std::int32_t* __restrict__ index) {
    const std::int64_t items = static_cast<std::int64_t>(a.n_queries) * a.m;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < items; t += stride) {
        const std::int64_t q = t / a.m;
        const std::int64_t k = t - q * a.m;
        u64 key = 0;
        bool present = row_present(a, a.x[q], k) && row_present(a, a.y[q], k);
        for (std::int64_t u = a.set_off[q]; u < a.set_off[q + 1]; ++u) {
            const std::int32_t v = a.nodes[u];
            key = key * static_cast<u64>(a.cards[v]) + a.codes[static_cast<std::int64_t>(v) * a.m + k];
            present = present && row_present(a, v, k);
        }
        keys[t] = present ? key : kMissingKey;
        index[t] = static_cast<std::int32_t>(k);
    }
}

/// Warp w of the grid: query w. `keys`/`perm`: each query's m samples sorted by stratum
/// (stable), those missing in one of its variables last (kMissingKey).
/// CpuDiscreteEngine::Scratch::test, stratum by stratum, in its order, on the present rows.
__global__ void discrete_stat_kernel(BatchArgs a, const u64* __restrict__ keys, const std::int32_t* __restrict__ perm) {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const std::int64_t q = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    if (q >= a.n_queries) return;  // the whole warp
    const std::int64_t m = a.m;
    const int rx = a.cards[a.x[q]];
    const int ry = a.cards[a.y[q]];
    const std::uint8_t* xc = a.codes + static_cast<std::int64_t>(a.x[q]) * m;
    const std::uint8_t* yc = a.codes + static_cast<std::int64_t>(a.y[q]) * m;
    const u64* key = keys + q * m;
    const std::int32_t* pm = perm + q * m;
    std::uint32_t* table = a.tables + a.table_off[q];
    std::uint32_t* nx = table + rx * ry;
    std::uint32_t* ny = nx + rx;
    std::int32_t* touched = a.touched + a.touched_off[q];
    const ci::DiscreteStat stat = a.chi ? ci::DiscreteStat::ChiSquare : ci::DiscreteStat::GSquare;
    double sum = 0.0;
    double df_seen = 0.0;
    std::int64_t listed = 0;
    std::int64_t b = 0;
    while (b < m) {
        // The stratum [b, e): the samples with b's key; the missing rows end the walk (the
        // key is the same for the whole warp).
        const u64 kb = key[b];
        if (kb == kMissingKey) break;
        std::int64_t e = m;
        for (std::int64_t base = b + 1; base < m; base += 32) {
            const std::int64_t i = base + lane;
            const unsigned differ = __ballot_sync(kFull, i < m && key[i] != kb);
            if (differ) {
                e = base + __ffs(static_cast<int>(differ)) - 1;
                break;
            }
        }
        // Count it 32 samples at a time, in index order. A cell is first touched in a chunk
        // where its count was zero before (one of its lanes gets old == 0), by the lowest of
        // the chunk's lanes holding it: the CPU's touched_ order.
        int n_touched = 0;
        int seen_x = 0;
        int seen_y = 0;
        for (std::int64_t base = b; base < e; base += 32) {
            const std::int64_t i = base + lane;
            const bool valid = i < e;
            int c = 0x10000 + lane;  // idle lanes: distinct from every cell (< 256 · 256)
            unsigned old_c = 1, old_x = 1, old_y = 1;
            if (valid) {
                const std::int32_t k = pm[i];
                const int xv = xc[k];
                const int yv = yc[k];
                c = xv * ry + yv;
                old_c = atomicAdd(table + c, 1u);
                old_x = atomicAdd(nx + xv, 1u);
                old_y = atomicAdd(ny + yv, 1u);
            }
            seen_x += __popc(__ballot_sync(kFull, old_x == 0));
            seen_y += __popc(__ballot_sync(kFull, old_y == 0));
            const unsigned peers = __match_any_sync(kFull, c);
            const bool fresh = (__ballot_sync(kFull, old_c == 0) & peers) != 0;
            const bool first = valid && fresh && __ffs(static_cast<int>(peers)) - 1 == lane;
            const unsigned firsts = __ballot_sync(kFull, first);
            if (first) touched[n_touched + __popc(firsts & ((1u << lane) - 1u))] = c;
            n_touched += __popc(firsts);
        }
        __syncwarp();
        df_seen += static_cast<double>(seen_x - 1) * (seen_y - 1);
        // The counts were made by atomics (in L2): read them past L1 (__ldcg).
        const double ns = static_cast<double>(e - b);
        if (a.chi) {
            if (lane == 0) {
                double e_seen = 0.0;
                for (int t = 0; t < n_touched; ++t) {
                    const int c = touched[t];
                    const double ex = ci::expected_count(__ldcg(nx + c / ry), __ldcg(ny + c % ry), ns);
                    sum += ci::cell_term(stat, __ldcg(table + c), ex);
                    e_seen += ex;
                }
                sum += ns - e_seen;
            }
        } else {
            const std::int64_t at = a.cell_off[q] + listed;
            for (int t = lane; t < n_touched; t += 32) {
                const int c = touched[t];
                a.cell_n[at + t] = __ldcg(table + c);
                a.cell_e[at + t] = ci::expected_count(__ldcg(nx + c / ry), __ldcg(ny + c % ry), ns);
            }
        }
        listed += n_touched;
        __syncwarp();
        for (int t = lane; t < n_touched; t += 32) {
            const int c = touched[t];
            table[c] = 0;
            nx[c / ry] = 0;
            ny[c % ry] = 0;
        }
        __syncwarp();
        b = e;
    }
    if (lane == 0) {
        if (a.rows) a.rows[q] = b;
        a.df_seen[q] = df_seen;
        if (a.chi) a.statistic[q] = sum;
        a.listed[q] = listed;
    }
}

/// Thread t: position t − lvl_off[q] of query lvl_q[t] (0: x, 1: y, then S in order): the
/// number of levels that variable holds on the rows present in all the query's variables
/// (walked word by word through the AND of their bitmaps), as the sub-table of those rows
/// recodes it (core/missing.cpp subset).
__global__ void discrete_levels_kernel(BatchArgs a, const std::int64_t* __restrict__ lvl_off,
                                       const std::int32_t* __restrict__ lvl_q, std::int64_t items,
                                       std::int32_t* __restrict__ levels) {
    const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= items) return;
    const std::int32_t q = lvl_q[t];
    const std::int64_t pos = t - lvl_off[q];
    const std::int64_t s0 = a.set_off[q], s1 = a.set_off[q + 1];
    const std::int32_t v = pos == 0 ? a.x[q] : pos == 1 ? a.y[q] : a.nodes[s0 + pos - 2];
    const std::uint8_t* col = a.codes + static_cast<std::int64_t>(v) * a.m;
    std::uint32_t seen[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::int64_t w = 0; w < a.words; ++w) {
        u64 mask = a.present[static_cast<std::int64_t>(a.x[q]) * a.words + w] &
                   a.present[static_cast<std::int64_t>(a.y[q]) * a.words + w];
        for (std::int64_t u = s0; u < s1; ++u) mask &= a.present[static_cast<std::int64_t>(a.nodes[u]) * a.words + w];
        for (; mask != 0; mask &= mask - 1) {
            const int c = col[w * 64 + (__ffsll(static_cast<long long>(mask)) - 1)];
            seen[c >> 5] |= 1u << (c & 31);
        }
    }
    int n = 0;
    for (int i = 0; i < 8; ++i) n += __popc(seen[i]);
    levels[t] = n;
}

/// Π levels of S as the CPU engine forms it (a double product in S's order).
double strata_product(std::span<const std::int32_t> cards, std::span<const std::int32_t> s) {
    double prod = 1.0;
    for (const std::int32_t v : s) prod *= cards[static_cast<std::size_t>(v)];
    return prod;
}

std::span<const std::int32_t> set_of(const skeleton::FlatQueries& q, std::size_t k) {
    const std::int64_t base = q.offsets[0];
    return q.nodes.subspan(static_cast<std::size_t>(q.offsets[k] - base),
                           static_cast<std::size_t>(q.offsets[k + 1] - q.offsets[k]));
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& v, cudaStream_t stream) {
    DeviceBuffer<T> d(std::max<std::size_t>(1, v.size()));
    d.upload(v.data(), v.size(), stream);
    return d;
}

/// The queries which[begin, end) in one launch.
void run_chunk(const DiscreteBatchData& data, ci::DiscreteStat stat, ci::DofRule dof, const skeleton::FlatQueries& q,
               std::span<const std::size_t> which, std::span<double> statistic, std::span<double> p,
               const TestwiseCounts& testwise, cudaStream_t stream) {
    const std::int64_t m = data.m;
    const bool chi = stat == ci::DiscreteStat::ChiSquare;
    const bool tw = data.d_present != nullptr;
    const int nq = static_cast<int>(which.size());
    std::vector<std::int32_t> hx(nq), hy(nq), nodes, lvl_q;
    std::vector<std::int64_t> set_off{0}, table_off(nq), touched_off(nq), cell_off(nq), lvl_off{0};
    std::int64_t table_words = 0, touched_words = 0, cell_slots = 0;
    bool sort = false;
    for (int k = 0; k < nq; ++k) {
        const std::size_t w = which[static_cast<std::size_t>(k)];
        const std::span<const std::int32_t> s = set_of(q, w);
        hx[k] = q.x[w];
        hy[k] = q.y[w];
        nodes.insert(nodes.end(), s.begin(), s.end());
        set_off.push_back(static_cast<std::int64_t>(nodes.size()));
        const double prod = strata_product(data.cards, s);
        sort = sort || prod > 1.0 || tw;  // test-wise: the missing rows go last
        if (tw) {
            lvl_q.insert(lvl_q.end(), s.size() + 2, k);
            lvl_off.push_back(static_cast<std::int64_t>(lvl_q.size()));
        }
        const std::int64_t rx = data.cards[static_cast<std::size_t>(hx[k])];
        const std::int64_t ry = data.cards[static_cast<std::size_t>(hy[k])];
        table_off[k] = table_words;
        table_words += rx * ry + rx + ry;
        touched_off[k] = touched_words;
        touched_words += std::min(rx * ry, m);
        cell_off[k] = cell_slots;
        if (!chi) cell_slots += static_cast<std::int64_t>(std::min(static_cast<double>(m), prod * double(rx * ry)));
    }
    const std::size_t items = static_cast<std::size_t>(nq) * static_cast<std::size_t>(m);
    DeviceBuffer<std::int32_t> dx = upload(hx, stream), dy = upload(hy, stream), dnodes = upload(nodes, stream);
    DeviceBuffer<std::int64_t> dset = upload(set_off, stream), dtab = upload(table_off, stream),
                               dtouch = upload(touched_off, stream), dcell = upload(cell_off, stream);
    DeviceBuffer<u64> keys_in(std::max<std::size_t>(1, items)), keys_out;
    DeviceBuffer<std::int32_t> index_in(std::max<std::size_t>(1, items)), index_out;
    DeviceBuffer<std::uint32_t> tables(static_cast<std::size_t>(std::max<std::int64_t>(1, table_words)));
    tables.fill_bytes(0, stream);
    DeviceBuffer<std::int32_t> touched(static_cast<std::size_t>(std::max<std::int64_t>(1, touched_words)));
    DeviceBuffer<double> dstat(static_cast<std::size_t>(nq)), ddf(static_cast<std::size_t>(nq));
    DeviceBuffer<std::int64_t> dlisted(static_cast<std::size_t>(nq));
    DeviceBuffer<std::uint32_t> cell_n(static_cast<std::size_t>(std::max<std::int64_t>(1, cell_slots)));
    DeviceBuffer<double> cell_e(static_cast<std::size_t>(std::max<std::int64_t>(1, cell_slots)));
    DeviceBuffer<std::int64_t> drows(static_cast<std::size_t>(nq));
    DeviceBuffer<std::int64_t> dlvl_off = upload(lvl_off, stream);
    DeviceBuffer<std::int32_t> dlvl_q = upload(lvl_q, stream);
    DeviceBuffer<std::int32_t> dlevels(std::max<std::size_t>(1, lvl_q.size()));

    BatchArgs a;
    a.codes = data.d_codes;
    DeviceBuffer<std::int32_t> dcards(data.cards.size());
    dcards.upload(data.cards.data(), data.cards.size(), stream);
    a.cards = dcards.data();
    a.m = m;
    a.present = reinterpret_cast<const u64*>(data.d_present);
    a.words = (m + 63) / 64;
    a.rows = tw ? drows.data() : nullptr;
    a.n_queries = nq;
    a.x = dx.data();
    a.y = dy.data();
    a.set_off = dset.data();
    a.nodes = dnodes.data();
    a.table_off = dtab.data();
    a.touched_off = dtouch.data();
    a.cell_off = dcell.data();
    a.tables = tables.data();
    a.touched = touched.data();
    a.chi = chi;
    a.statistic = dstat.data();
    a.df_seen = ddf.data();
    a.listed = dlisted.data();
    a.cell_n = cell_n.data();
    a.cell_e = cell_e.data();

    if (items > 0) {
        const auto key_blocks =
            static_cast<unsigned>(std::min<std::size_t>((items + kKeysBlock - 1) / kKeysBlock, std::size_t{1} << 20));
        discrete_keys_kernel<<<key_blocks, kKeysBlock, 0, stream>>>(a, keys_in.data(), index_in.data());
        CUDAG_CHECK_LAUNCH();
    }
    const u64* keys = keys_in.data();
    const std::int32_t* perm = index_in.data();
    DeviceBuffer<int> dseg;
    DeviceBuffer<unsigned char> temp;  // both live until the stream has been waited for
    if (sort && items > 0) {
        // Stable: equal keys keep their index order (the CPU's counting sort is stable too).
        std::vector<int> seg(static_cast<std::size_t>(nq) + 1);
        for (int k = 0; k <= nq; ++k) seg[static_cast<std::size_t>(k)] = static_cast<int>(k * m);
        dseg = upload(seg, stream);
        keys_out.resize_discard(items);
        index_out.resize_discard(items);
        std::size_t temp_bytes = 0;
        CUDAG_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
            nullptr, temp_bytes, keys_in.data(), keys_out.data(), index_in.data(), index_out.data(),
            static_cast<int>(items), nq, dseg.data(), dseg.data() + 1, stream));
        temp.resize_discard(std::max<std::size_t>(1, temp_bytes));
        CUDAG_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(
            temp.data(), temp_bytes, keys_in.data(), keys_out.data(), index_in.data(), index_out.data(),
            static_cast<int>(items), nq, dseg.data(), dseg.data() + 1, stream));
        keys = keys_out.data();
        perm = index_out.data();
    }
    const auto blocks = static_cast<unsigned>((static_cast<std::int64_t>(nq) * 32 + kStatBlock - 1) / kStatBlock);
    discrete_stat_kernel<<<blocks, kStatBlock, 0, stream>>>(a, keys, perm);
    CUDAG_CHECK_LAUNCH();
    const auto lvl_items = static_cast<std::int64_t>(lvl_q.size());
    std::vector<std::int64_t> hrows(static_cast<std::size_t>(nq), m);
    std::vector<std::int32_t> hlevels(lvl_q.size());
    if (tw && lvl_items > 0) {
        discrete_levels_kernel<<<static_cast<unsigned>((lvl_items + kLevelsBlock - 1) / kLevelsBlock), kLevelsBlock, 0,
                                 stream>>>(a, dlvl_off.data(), dlvl_q.data(), lvl_items, dlevels.data());
        CUDAG_CHECK_LAUNCH();
        drows.download(hrows.data(), hrows.size(), stream);
        dlevels.download(hlevels.data(), hlevels.size(), stream);
    }
    std::vector<double> hstat(static_cast<std::size_t>(nq)), hdf(static_cast<std::size_t>(nq));
    std::vector<std::int64_t> hlisted(static_cast<std::size_t>(nq));
    std::vector<std::uint32_t> hn;
    std::vector<double> he;
    ddf.download(hdf.data(), hdf.size(), stream);
    dlisted.download(hlisted.data(), hlisted.size(), stream);  // the cells with a sample
    if (chi) {
        dstat.download(hstat.data(), hstat.size(), stream);
    } else {
        hn.resize(static_cast<std::size_t>(cell_slots));
        he.resize(static_cast<std::size_t>(cell_slots));
        cell_n.download(hn.data(), hn.size(), stream);
        cell_e.download(he.data(), he.size(), stream);
    }
    CUDAG_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int k = 0; k < nq; ++k) {
        const std::size_t w = which[static_cast<std::size_t>(k)];
        double sum = 0.0;
        if (chi) {
            sum = hstat[static_cast<std::size_t>(k)];
        } else {
            // The CPU's running sum over the cells in its order (cell_term with a host log).
            const auto b = static_cast<std::size_t>(cell_off[k]);
            for (std::size_t t = b; t < b + static_cast<std::size_t>(hlisted[static_cast<std::size_t>(k)]); ++t)
                sum += ci::cell_term(stat, hn[t], he[t]);
        }
        const std::int64_t n = hrows[static_cast<std::size_t>(k)];
        int rx = data.cards[static_cast<std::size_t>(hx[k])];
        int ry = data.cards[static_cast<std::size_t>(hy[k])];
        double prod_s = strata_product(data.cards, set_of(q, w));
        if (tw) {
            // The sub-table's levels: those the query's rows hold (S's product in S's order).
            const std::int32_t* lv = hlevels.data() + lvl_off[static_cast<std::size_t>(k)];
            const auto count = static_cast<std::size_t>(lvl_off[static_cast<std::size_t>(k) + 1] -
                                                        lvl_off[static_cast<std::size_t>(k)]);
            rx = lv[0];
            ry = lv[1];
            prod_s = 1.0;
            for (std::size_t t = 2; t < count; ++t) prod_s *= lv[t];
            testwise.rows[w] = n;
            testwise.fewest_levels[w] = *std::min_element(lv, lv + count);
        }
        // As CpuDiscreteEngine::Scratch::test forms df and p (n: its samples).
        ci::DiscreteTable t;
        t.df_full = static_cast<double>(rx - 1) * (ry - 1) * prod_s;
        t.df_seen = hdf[static_cast<std::size_t>(k)];
        t.cells = static_cast<double>(rx) * ry * prod_s;
        t.nonzero = static_cast<double>(hlisted[static_cast<std::size_t>(k)]);
        t.prod_s = prod_s;
        t.l = static_cast<int>(set_of(q, w).size());
        t.n = n;
        statistic[w] = ci::discrete_statistic(dof, sum, t);
        p[w] = ci::discrete_pvalue(dof, sum, t);
    }
}

}  // namespace

bool discrete_batch_fits(std::span<const std::int32_t> cards, std::span<const std::int32_t> s) {
    return strata_product(cards, s) <= std::ldexp(1.0, 62);
}

void discrete_batch_tests(const DiscreteBatchData& data, ci::DiscreteStat stat, ci::DofRule dof,
                          const skeleton::FlatQueries& q, std::span<const std::size_t> which,
                          std::span<double> statistic, std::span<double> p, const TestwiseCounts& testwise,
                          cudaStream_t stream, std::size_t scratch_bytes) {
    const std::int64_t m = data.m;
    const bool chi = stat == ci::DiscreteStat::ChiSquare;
    std::size_t at = 0;
    while (at < which.size()) {
        // Queries while their scratch (sort buffers and CUB's, tables, cell lists) fits.
        std::size_t end = at;
        double bytes = 0.0;
        std::int64_t items = 0;
        while (end < which.size()) {
            const std::size_t w = which[end];
            const double rx = data.cards[static_cast<std::size_t>(q.x[w])];
            const double ry = data.cards[static_cast<std::size_t>(q.y[w])];
            const double prod = strata_product(data.cards, set_of(q, w));
            const double md = static_cast<double>(m);
            double per = 48.0 * md + 4.0 * (rx * ry + rx + ry + std::min(rx * ry, md)) + 64.0 +
                         12.0 * static_cast<double>(set_of(q, w).size() + 2);
            if (!chi) per += 12.0 * std::min(md, prod * rx * ry);
            if (end > at && (bytes + per > static_cast<double>(scratch_bytes) || items + m > INT_MAX)) break;
            bytes += per;
            items += m;
            ++end;
        }
        CUDAG_EXPECTS(items <= INT_MAX, "cuda discrete: a batch query has more than 2^31 - 1 samples");
        run_chunk(data, stat, dof, q, which.subspan(at, end - at), statistic, p, testwise, stream);
        at = end;
    }
}

}  // namespace cudag::cuda
