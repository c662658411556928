// SPDX-License-Identifier: Apache-2.0
// Launchers of the Gaussian (Fisher-z) PC kernels: level 0 and levels l >= 1
// (cuPC-S, cuPC-E) plus the winner pass. Arguments are plain structs of device
// pointers; every launcher takes the stream last and checks the launch.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "pc_gaussian_types.hpp"

namespace cudag::cuda {

/// Sentinel of LevelArgs::best: no separating set found.
constexpr unsigned long long kNoRank = ~0ull;
/// LevelArgs::best of an entry (i, j), j < i, skipped because row j separated (j, i);
/// above every rank, and reset to kNoRank by launch_finish_level.
constexpr unsigned long long kLowerSideSeparated = ~0ull - 1;
/// Initial LevelArgs::pmax (every byte 0x7f: a double far above any |r| <= 1).
constexpr int kNoCorrelationByte = 0x7f;
constexpr unsigned long long kNoCorrelation = 0x7f7f7f7f7f7f7f7full;

/// Where the kernels read the correlation matrix: rows [lo, hi) held (row a at
/// rows + (a - lo) * n, every column), any other entry summed again from the standardised
/// columns z (n×m, variable-major) in the order of kernels/correlation.cu, so it equals the
/// held value bit for bit. lo = 0, hi = n: C held whole (z unused). See corr_entry().
struct CorrSource {
    const double* rows = nullptr;
    std::int64_t n = 0, lo = 0, hi = 0;
    const double* z = nullptr;
    std::int64_t m = 0;
    __host__ __device__ bool whole() const { return lo == 0 && hi == n; }
};

/// C whole, n×n row-major on the device.
inline CorrSource whole_correlation(const double* c, std::int64_t n) {
    CorrSource s;
    s.rows = c;
    s.n = n;
    s.hi = n;
    return s;
}

/// |r| thresholds (r_lo, r_hi) around the p = alpha boundary of fisher_z_pvalue at level
/// l with m samples: outside [r_lo, r_hi] the p-value's side of alpha is certain (the
/// band is 1e-6 relative, p moves by far more than its rounding across it).
std::pair<double, double> decision_band(std::int64_t m, int l, double alpha, bool strict);

/// Level 0 over the pairs (i, j), i in [row_begin, row_end), j > i.
struct Level0Args {
    CorrSource corr;
    std::int64_t n = 0;
    std::int64_t m = 0;  ///< samples
    double alpha = 0.01;
    bool strict = false;  ///< independent iff p > alpha (else p >= alpha)
    /// decision_band(m, 0, alpha, strict): |r| < r_lo is independent and |r| > r_hi
    /// dependent without the p-value; r_lo = -1, r_hi = +inf decide every pair on p.
    double r_lo = -1.0, r_hi = 1e300;
    std::int64_t row_begin = 0, row_end = 0;
    /// Optional (nullptr: not wanted): p of (i, j) at upper-triangle index
    /// i*n - i*(i+1)/2 + (j-i-1) minus dense_base.
    double* dense_p = nullptr;
    std::int64_t dense_base = 0;
    /// Bit adjacency (the layout of cudag::Graph, viewed as 32-bit words), zeroed by the
    /// caller; kept pairs set bit j of row i and, when `mirror`, bit i of row j. Row i
    /// lives at row i - bits_row0 of the buffer (a block of rows: no mirror bits then).
    std::uint32_t* bits = nullptr;
    std::int64_t words32 = 0;  ///< 32-bit words per row (2 × 64-bit words)
    std::int64_t bits_row0 = 0;
    bool mirror = true;
};
void launch_gaussian_level0(const Level0Args& a, cudaStream_t stream);

/// p-values of kept pairs listed as compacted rows: pair k is (row_begin + r, cols[k])
/// for offsets[r] <= k < offsets[r+1]; writes p_out[k].
struct PairPArgs {
    CorrSource corr;
    std::int64_t n = 0, m = 0;
    std::int64_t row_begin = 0, n_rows = 0;
    const std::int64_t* offsets = nullptr;  ///< n_rows + 1
    const std::int32_t* cols = nullptr;
    std::int64_t count = 0;
    double* p_out = nullptr;
};
void launch_pair_pvalues(const PairPArgs& a, cudaStream_t stream);

/// Shared by the level-l kernels. Entries e index the snapshot's compacted rows:
/// e = offsets[i] + q is (row i, neighbour nbrs[e]), tested with S ⊆ adj(i) \ {nbrs[e]}.
struct LevelArgs {
    CorrSource corr;  ///< whole for the entry scan at levels >= 2
    std::int64_t n = 0, m = 0;
    int l = 1;
    double alpha = 0.01;
    bool strict = false;
    const std::int64_t* offsets = nullptr;  ///< device, n + 1
    const std::int32_t* nbrs = nullptr;     ///< device, offsets[n]
    /// Per entry: the smallest rank of a separating set found (kNoRank: none). Ranks are
    /// lexicographic: of S's positions among row i's d neighbours in C(d, l) for
    /// cuPC-S, among the d-1 neighbours other than j in C(d-1, l) for cuPC-E.
    unsigned long long* best = nullptr;
    /// Per entry, during the level: bit pattern of the smallest |r| of a non-separating
    /// test (|r| >= 0, so the integer order is the numeric order); initialised to
    /// kNoCorrelation. p is decreasing in |r|, so that test has the largest p;
    /// launch_finish_level turns it into the bit pattern of that p (0 when none).
    unsigned long long* pmax = nullptr;
    /// The decision on |r| without a p-value: |r| < r_lo is independent, |r| > r_hi is
    /// dependent, anything between (or NaN) is decided on the exact p of the CPU engine.
    /// See decision_band(); r_lo = -1, r_hi = +inf decide every test on p.
    double r_lo = -1.0, r_hi = 1e300;
    /// Optional (nullptr: off): per entry e = (i, j), the entry (j, i) when j < i, else -1.
    /// The lower endpoint's separating set wins (DESIGN.md), so row i skips j once row j
    /// has found one: the skeleton and the recorded sets do not change.
    const std::int64_t* mirror = nullptr;
    unsigned long long* tests = nullptr;  ///< one counter: tests run
    /// Runtime-l kernels only: per-thread workspace, `slots` threads' worth
    /// (workspace_doubles(l) and workspace_ints(l) each).
    double* scratch = nullptr;
    int* iscratch = nullptr;
    std::int64_t slots = 0;
    bool generic = false;  ///< use the runtime-l kernels
    /// C is held whole and its diagonal is exactly 1: the entry scan's fast decisions
    /// (levels 1-4) then read no C[k,k] to check it.
    bool unit_diag = false;
    /// The entries this rank tests (skeleton::LevelBlock): a row cut between ranks has only
    /// these of its entries scanned (the entry scan's survivor lists keep to them).
    std::int64_t e_begin = 0, e_end = 0;
    /// Optional (nullptr: off), the entry scans only: C not held whole, each listed row's
    /// neighbourhood block (launch_row_blocks). Row i with d neighbours reads C from its
    /// (d+1)x(d+1) block at blocks + row_block[i] with local ids: p for the neighbour at
    /// position p, d for i itself (iota[p] = p stands in for the neighbour list).
    const double* blocks = nullptr;
    const std::int64_t* row_block = nullptr;  ///< device, n
    const std::int32_t* iota = nullptr;       ///< device, 0, 1, 2, ... (the largest degree)
};

/// C[{i} + adj(i), {i} + adj(i)] of each listed row, summed (or read from the held rows)
/// as corr_entry does, so every value equals C's bit for bit: the block of rows[k] (d its
/// degree) at out + at[k], (d+1)x(d+1) row-major, position p < d its neighbour nbrs[offsets[i] + p]
/// and position d the row itself. at[k + 1] - at[k] = (d+1)^2; total = at[n_rows].
struct RowBlocksArgs {
    CorrSource corr;
    const std::int64_t* offsets = nullptr;
    const std::int32_t* nbrs = nullptr;
    const std::int32_t* rows = nullptr;
    std::int64_t n_rows = 0;
    const std::int64_t* at = nullptr;  ///< device, n_rows + 1
    std::int64_t total = 0;
    double* out = nullptr;
};
void launch_row_blocks(const RowBlocksArgs& a, cudaStream_t stream);

/// cuPC-S launch: `rows` lists the rows to run (degree - 1 >= l), heaviest first.
struct SetParallelLaunch {
    const std::int32_t* rows = nullptr;  ///< device
    std::int64_t n_rows = 0;
    int theta = 64;  ///< threads per block
    int delta = 2;   ///< blocks per row
    /// Rows with at most this many neighbours keep their neighbour list and their
    /// entries' best/pmax in shared memory (0: never).
    int shared_entries = 0;
};
void launch_cupc_s(const LevelArgs& a, const SetParallelLaunch& s, cudaStream_t stream);
/// Threads the runtime-l cuPC-S launch uses at most (size LevelArgs::slots from it).
std::int64_t cupc_s_generic_threads(const SetParallelLaunch& s, std::int64_t max_slots);

/// cuPC-E launch: work item k = (row, first entry position q0) covers entries
/// q0 .. q0+beta-1 of the row; γ threads split each entry's sets.
struct EdgeParallelLaunch {
    const int2* items = nullptr;  ///< device: x = row, y = q0
    std::int64_t n_items = 0;
    int beta = 2;
    int gamma = 32;
};
void launch_cupc_e(const LevelArgs& a, const EdgeParallelLaunch& s, cudaStream_t stream);
std::int64_t cupc_e_generic_threads(const EdgeParallelLaunch& s, std::int64_t max_slots);

/// Entry scan (pc_gaussian_scan.cu), levels 1..kMaxTemplateLevel: a warp per item, a lane
/// per entry q in [q0, q1) of `row`, each lane walking the ranks [r0, r1) of the C(d, l)
/// position subsets of the row in lexicographic order and stopping at its first
/// separating set. best[e] gets the rank in cuPC-S's convention (C(d, l), the winner
/// pass with ranks_exclude_entry = false); pmax as for the other kernels. Items and their
/// flags: ScanItem (pc_gaussian_types.hpp).
struct EntryScanLaunch {
    const ScanItem* items = nullptr;  ///< device
    std::int64_t n_items = 0;
    /// Upper entries (j < i): skip an entry whose mirror (j, i) has a separating rank.
    /// Launched after the lower entries' scan, so that rank is final.
    bool upper = false;
    /// Optional (nullptr: off): item (row, q0, q1) covers the row's surviving entries
    /// q0..q1-1 listed by launch_scan_survivors, at survivors[offsets[row] + k].
    const std::int32_t* survivors = nullptr;
};
void launch_entry_scan(const LevelArgs& a, const EntryScanLaunch& s, cudaStream_t stream);

/// The deep entry scan (pc_gaussian_deep.cu), any level l >= 2 up to kDeepMaxLevel: the same
/// contract as launch_entry_scan (items without kItemLanes), with the tests' arithmetic
/// shared by a warp's lanes and along the walk. Needs LevelArgs::scratch for
/// deep_scan_threads() threads (the sets whose factorisation fails run there).
void launch_deep_scan(const LevelArgs& a, const EntryScanLaunch& s, cudaStream_t stream);
/// Threads (scratch slots) the deep scan uses for `n_items` items, at most `max_slots`.
std::int64_t deep_scan_threads(std::int64_t n_items, std::int64_t max_slots);

/// The entries of each listed row that are still to scan: on the lower side (j > i) or
/// the upper one (j < i, mirror not separated), with no separating rank found so far.
/// Row rows[k]'s positions go, increasing, to survivors[offsets[row] ..], their number
/// to counts[k]. Between rounds of the entry scan over rank ranges, so that the next
/// round's warps hold only entries that still run (most stop early, and a warp whose
/// 32 lanes wait on one long-running entry is the scan's main loss).
void launch_scan_survivors(const LevelArgs& a, const std::int32_t* rows, std::int64_t n_rows, bool upper,
                           std::int32_t* survivors, std::int32_t* counts, cudaStream_t stream);

/// Per-entry mirror indices (LevelArgs::mirror) of the compacted adjacency.
void launch_mirror(const std::int64_t* offsets, const std::int32_t* nbrs, std::int64_t n, std::int64_t* mirror,
                   cudaStream_t stream);

/// After a level, entries [e_begin, e_end): LevelArgs::pmax from smallest |r| to the
/// bit pattern of its p (0 when the entry ran no non-separating test), and
/// kLowerSideSeparated back to kNoRank (the entry is reported as not separated from its
/// side; the lower endpoint's set decides the edge).
void launch_finish_level(const LevelArgs& a, std::int64_t e_begin, std::int64_t e_end, cudaStream_t stream);

/// After a level: for each listed separated entry, the nodes of its winning set
/// (set_out[k*l ..], increasing) and the p-value of that test (p_out[k]).
struct WinnerArgs {
    const std::int64_t* entries = nullptr;  ///< device, `count` entry indices
    std::int64_t count = 0;
    bool ranks_exclude_entry = false;  ///< cuPC-E ranks (C(d-1, l)) instead of cuPC-S (C(d, l))
    double* p_out = nullptr;
    std::int32_t* set_out = nullptr;
};
void launch_gaussian_winners(const LevelArgs& a, const WinnerArgs& w, cudaStream_t stream);

/// A level's per-entry results for entries [e_begin, e_end), laid out like the host's
/// LevelOutput so that they download straight into it: flags (`tested` on every entry
/// of the listed rows, `separated` added on the winners), the winner's p over pmax (as
/// its bits; -1 where no test ran), and the winner's l nodes at nodes[(e - e_begin) * l].
/// flags must arrive zeroed; `count` = e_end - e_begin.
struct UnpackArgs {
    const std::int32_t* rows = nullptr;  ///< device, the level's listed rows
    std::int64_t n_rows = 0;
    const std::int64_t* offsets = nullptr;
    const std::int64_t* sel = nullptr;  ///< device, the winners' entries
    const double* pwin = nullptr;
    const std::int32_t* sets = nullptr;
    std::int64_t n_sel = 0;
    int l = 0;
    std::int64_t e_begin = 0, e_end = 0;  ///< the block's entries (rows cut between ranks)
    std::uint8_t tested = 0, separated = 0;
    std::uint8_t* flags = nullptr;       ///< entry e at flags[e - e_begin]
    unsigned long long* pmax = nullptr;  ///< indexed by entry, like LevelArgs::pmax
    std::int32_t* nodes = nullptr;
};
void launch_unpack_level(const UnpackArgs& u, std::int64_t count, cudaStream_t stream);

// ---- Results kept on the device (skeleton::DeviceResults) --------------------------------
// Instead of unpacking per-entry results for the host, the engine hands over the block's
// removal bits, and after the ranks' maps are merged raises its device pMax table and
// lists only the winning separating sets (O(removals) to copy, not O(entries)).

/// The winners' p over pmax (pmax[sel[k]] = pwin[k], k < n_sel) and the removal bits of
/// entries [e_begin, e_end): bit k of 32-bit word k / 32 <=> best[e_begin + k] != kNoRank.
void launch_pack_level(const unsigned long long* best, std::int64_t e_begin, std::int64_t e_end,
                       const std::int64_t* sel, const double* pwin, std::int64_t n_sel, unsigned long long* pmax,
                       std::uint32_t* bits, cudaStream_t stream);

/// A level's results against the merged removal map (entry e of row a separated from a's
/// side <=> bit bit0[a] + e - offsets[a] of `removal`, bit k in byte k / 8).
struct SettleArgs {
    std::int64_t n = 0;
    const std::int64_t* offsets = nullptr;  ///< the level's snapshot (n + 1)
    const std::int32_t* nbrs = nullptr;
    const std::int64_t* mirror = nullptr;  ///< launch_mirror's, for this snapshot (-1 on lower entries)
    const std::uint8_t* removal = nullptr;
    const std::int64_t* bit0 = nullptr;
    const std::int32_t* rows = nullptr;  ///< the rows tested at the level
    std::int64_t n_rows = 0;
    std::int64_t e_begin = 0, e_end = 0;    ///< of which the entries this rank tested
    const unsigned long long* p = nullptr;  ///< per entry: the level's pMax (bits of a double)
    /// The pMax table (double bits, -1 where no test): dense, pair (i < j) at slot
    /// i*n - i*(i+1)/2 + j - i - 1; or sparse, row i's pairs at [poff[i], poff[i+1]) of pcol.
    bool dense = true;
    const std::int64_t* poff = nullptr;
    const std::int32_t* pcol = nullptr;
    unsigned long long* table = nullptr;
    /// The separated entries (sel), their winning sets (sets[k*l ..]).
    const std::int64_t* sel = nullptr;
    std::int64_t n_sel = 0;
    const std::int32_t* sets = nullptr;
    int l = 0;
    std::uint8_t* keep = nullptr;       ///< n_sel + 1 flags: record k is written
    const std::int64_t* pos = nullptr;  ///< exclusive sum of keep
    std::int32_t* pairs_out = nullptr;  ///< record r: (min, max) at 2r, its set at nodes_out[r*l ..]
    std::int32_t* nodes_out = nullptr;
};
/// Raise the table's pair {a, b} to p[e] for every entry e = (a, b) of the tested rows
/// within [e_begin, e_end), except b < a with (b, a) separated.
void launch_settle_pmax(const SettleArgs& a, cudaStream_t stream);
/// keep[k] for the separated entry sel[k] = (a, b): b > a, or (b, a) not separated; keep[n_sel] = 0.
void launch_settle_keep(const SettleArgs& a, cudaStream_t stream);
/// The kept records at pos[k]: the pair and the set.
void launch_settle_records(const SettleArgs& a, cudaStream_t stream);

/// Load the kernels of pc_gaussian_level0.cu, pc_gaussian_levels.cu, pc_gaussian_scan.cu and
/// pc_gaussian_deep.cu (kernel_preload.cuh); each returns how many. `max_level` (-1: all):
/// the template kernels of deeper levels are left (and the runtime-l ones at max_level 0).
int preload_level0_kernels();
int preload_level_kernels(int max_level);
int preload_scan_kernels(int max_level);
int preload_deep_kernels();

/// A pMax table's pairs with a value (>= 0) in slot order, i.e. sorted by (i, j): the
/// layout of skeleton::PairP.
struct TablePair {
    std::int32_t i, j;
    double p;
};
struct TablePairsArgs {
    std::int64_t n = 0;
    bool dense = true;  ///< else rows' slots at [poff[i], poff[i+1]) with columns pcol
    const std::int64_t* poff = nullptr;
    const std::int32_t* pcol = nullptr;
    const double* values = nullptr;
    std::int64_t count = 0;             ///< slots
    std::uint8_t* flag = nullptr;       ///< count + 1
    const std::int64_t* pos = nullptr;  ///< exclusive sum of flag
    TablePair* out = nullptr;
};
/// flag[s] = values[s] >= 0, flag[count] = 0.
void launch_table_flags(const TablePairsArgs& a, cudaStream_t stream);
/// out[pos[s]] = (i, j, values[s]) for the flagged slots.
void launch_table_pairs(const TablePairsArgs& a, cudaStream_t stream);
std::int64_t winners_generic_threads(std::int64_t count, std::int64_t max_slots);

}  // namespace cudag::cuda
