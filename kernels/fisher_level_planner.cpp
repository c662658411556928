// SPDX-License-Identifier: Apache-2.0
#include "kernels/fisher_level_planner.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "mpi/partition.hpp"

namespace cudag::cuda {
namespace {

/// Per-thread workspace budget of the runtime-l kernels.
constexpr std::size_t kGenericScratchBytes = std::size_t(256) << 20;
/// Rows up to this degree keep their entries in shared memory in cuPC-S (20 bytes each:
/// 40 KiB, under the 48 KiB default). Above kWideRowEntries the auto-tuner runs one
/// block of kWideRowThreads per row, so that the large block keeps occupancy up and one
/// shared copy of the row's best ranks prunes for all its threads.
constexpr int kMaxSharedEntries = 2048;
constexpr int kWideRowEntries = 384;
constexpr int kWideRowThreads = 256;
/// Auto-tuning shrinks threads per row (S) or per edge (E) while the level would
/// launch more than this many times the GPU's resident threads.
constexpr std::int64_t kOversubscribe = 4;
/// Largest θ and β·γ: the level kernels use up to ~160 registers per thread at L = 6,
/// so 256 threads per block stay within the 64K registers of an SM.
constexpr int kMaxBlockThreads = 256;
/// Entry scan: a row is cut into rank ranges of at least this many sets, unless the level
/// would leave most of the GPU idle (kScanSmallSpan).
constexpr std::int64_t kScanMinSpan = 1024;
/// Entry scan of a whole level in one round whose items of kScanMinSpan ranks would fill
/// less than a quarter of the resident warps (a small level: cuPC's 60-variable example at
/// levels 3-5, a few rows whose lanes walked up to 1,024 sets each in a row): ranges of about
/// one item a resident warp instead, never shorter than this (each item unranks its first set
/// and factorises the walk's prefix: a few tests' worth).
constexpr std::int64_t kScanSmallSpan = 16;
/// Entry scan rounds: the first covers ranks [0, FisherTunables::scan_first_round), each
/// later one kScanRoundGrowth times the ranks of the one before.
constexpr std::int64_t kScanRoundGrowth = 16;
/// Entry scan rounds after the first: a row with at most this many entries left gives each
/// a warp whose lanes split its ranks (kItemLanes) rather than one warp of mostly idle lanes.
constexpr int kScanLaneSplitEntries = 16;
/// Device memory left free beside C and the data (level buffers, CUB scratch).
constexpr std::size_t kMemoryMargin = std::size_t(64) << 20;

int round_up(int x, int to) { return (x + to - 1) / to * to; }

}  // namespace

FisherLevelPlanner::FisherLevelPlanner(const FisherTunables& t, std::int64_t resident_threads)
    : t_(t), resident_threads_(resident_threads) {}

void FisherLevelPlanner::check(const skeleton::TestPolicy& policy, const FisherTunables& t) {
    if (policy.exhaustive) throw InputError("--compat causal-learn runs on the CPU backend only");
    if (t.variant != 's' && t.variant != 'e')
        throw InputError(std::string("--variant must be s or e, got '") + t.variant + "'");
    if (t.beta < 1 || t.gamma < 1 || t.theta < 1 || t.delta < 1)
        throw InputError("--beta, --gamma, --theta and --delta must be >= 1");
    if (t.theta > kMaxBlockThreads)
        throw InputError("--theta must be <= " + std::to_string(kMaxBlockThreads) + " (threads per block)");
    if (static_cast<std::int64_t>(t.beta) * t.gamma > kMaxBlockThreads)
        throw InputError("--beta x --gamma must be <= " + std::to_string(kMaxBlockThreads) + " (threads per block)");
    if (t.delta > 65535) throw InputError("--delta must be <= 65535");
    if (t.scan_levels < 0) throw InputError("--tune scan-levels must be >= 0");
    if (t.scan_deep_from < 2) throw InputError("--tune deep-from must be >= 2");
    if (t.deep_min_span < 1) throw InputError("--tune deep-span must be >= 1");
    if (t.scan_first_round < 1) throw InputError("the entry scan's first round must cover >= 1 set");
    if (t.scan_round_levels < 0) throw InputError("--tune scan-round-levels must be >= 0");
    if (t.scan_one_round_tests < 0) throw InputError("the entry scan's one-round bound must be >= 0");
    if (t.level0_bits_bytes < 8) throw InputError("--tune level0-bits must hold one 64-bit word (>= 8 bytes)");
}

// ---- how C is held ----------------------------------------------------------------------

bool FisherLevelPlanner::correlation_fits(std::int64_t n, std::int64_t m, std::size_t free_bytes) const {
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const std::size_t nm = static_cast<std::size_t>(n) * static_cast<std::size_t>(m);
    return (nn + 2 * nm) * sizeof(double) + kMemoryMargin <= free_bytes &&
           (t_.corr_limit_bytes <= 0 || nn * sizeof(double) <= static_cast<std::size_t>(t_.corr_limit_bytes));
}

std::pair<std::int64_t, std::int64_t> FisherLevelPlanner::held_rows(std::int64_t n, std::int64_t row_begin,
                                                                    std::int64_t row_end, std::size_t free_bytes,
                                                                    std::size_t reserve) const {
    const std::size_t row_bytes = static_cast<std::size_t>(n) * sizeof(double);
    std::size_t budget = free_bytes > reserve ? free_bytes - reserve : 0;
    if (t_.corr_limit_bytes > 0) budget = std::min(budget, static_cast<std::size_t>(t_.corr_limit_bytes));
    const std::int64_t fit = static_cast<std::int64_t>(budget / row_bytes);
    return {row_begin, row_begin + std::max<std::int64_t>(0, std::min(fit, row_end - row_begin))};
}

std::size_t FisherLevelPlanner::held_rows_reserve(std::int64_t entries) {
    // Level buffers of this size (and the winners' sets) beside a 1 GiB margin.
    return (std::size_t(1) << 30) + static_cast<std::size_t>(entries) * 64;
}

std::int64_t FisherLevelPlanner::level0_rows_per_block(std::int64_t n, std::int64_t row_begin, std::int64_t row_end,
                                                       std::size_t free_bytes) const {
    const std::size_t row_bytes = static_cast<std::size_t>(n) * sizeof(double);
    std::size_t budget = free_bytes / 4;
    if (t_.corr_limit_bytes > 0) budget = std::min(budget, static_cast<std::size_t>(t_.corr_limit_bytes));
    const std::int64_t fit = static_cast<std::int64_t>(budget / row_bytes);
    return std::min(row_end - row_begin, std::max<std::int64_t>(64, fit / 64 * 64));
}

CorrelationBlocks FisherLevelPlanner::correlation_blocks(std::int64_t n, int rank, int ranks) {
    constexpr std::int64_t kRowsPerTile = 64;
    const std::int64_t tiles = (n + kRowsPerTile - 1) / kRowsPerTile;
    std::vector<double> work(static_cast<std::size_t>(tiles));
    for (std::int64_t t = 0; t < tiles; ++t)
        work[static_cast<std::size_t>(t)] = static_cast<double>(n - kRowsPerTile * t);
    const mpi::RowPartition part = mpi::partition_rows(work, ranks);
    const auto row_of = [&](std::int64_t tile) { return std::min(n, tile * kRowsPerTile); };
    CorrelationBlocks b;
    b.counts.assign(static_cast<std::size_t>(ranks), 0);
    for (int r = 0; r < ranks; ++r)
        b.counts[static_cast<std::size_t>(r)] =
            static_cast<std::size_t>((row_of(part.end(r)) - row_of(part.begin(r))) * n);
    b.row0 = row_of(part.begin(rank));
    b.row1 = row_of(part.end(rank));
    return b;
}

// ---- a level l >= 1 -----------------------------------------------------------------------

LevelPath FisherLevelPlanner::path(int l, bool symmetric, bool whole) const {
    if (symmetric && (whole || l == 1) && l <= t_.scan_levels && (!deep(l) || (whole && l <= kDeepMaxLevel)))
        return LevelPath::Scan;
    return t_.variant == 'e' ? LevelPath::EdgeParallel : LevelPath::SetParallel;
}

bool FisherLevelPlanner::deep(int l) const { return l >= 2 && (l >= t_.scan_deep_from || l > kMaxTemplateLevel); }

bool FisherLevelPlanner::generic(int l) const {
    return (t_.generic_from_level > 0 && l >= t_.generic_from_level) || l > kMaxTemplateLevel;
}

std::int64_t FisherLevelPlanner::max_slots(int l) {
    const std::size_t per = workspace_doubles(l) * sizeof(double) + workspace_ints(l) * sizeof(int);
    return std::max<std::int64_t>(1024, static_cast<std::int64_t>(kGenericScratchBytes / per));
}

LevelRows FisherLevelPlanner::rows(const Adjacency& snap, std::int64_t row_begin, std::int64_t row_end, int l,
                                   LevelPath path) {
    // Rows with something to test, heaviest first (blocks start in index order, so the
    // long rows do not end up in the tail of the grid).
    const bool edge_parallel = path == LevelPath::EdgeParallel;
    LevelRows r;
    std::vector<double> work(static_cast<std::size_t>(snap.n), 0.0);
    for (std::int64_t i = row_begin; i < row_end; ++i) {
        const std::int64_t d = snap.degree(i);
        if (d - 1 < l) continue;
        r.rows.push_back(static_cast<std::int32_t>(i));
        const std::int64_t sets = edge_parallel ? binomial(d - 1, l) : binomial(d, l);
        work[static_cast<std::size_t>(i)] = static_cast<double>(sets) * static_cast<double>(d);
        r.max_sets = std::max(r.max_sets, sets);
        r.max_degree = std::max(r.max_degree, d);
    }
    std::stable_sort(r.rows.begin(), r.rows.end(), [&](std::int32_t x, std::int32_t y) {
        return work[static_cast<std::size_t>(x)] > work[static_cast<std::size_t>(y)];
    });
    return r;
}

SetParallelShape FisherLevelPlanner::set_parallel(const LevelRows& r) const {
    SetParallelShape sp;
    sp.theta = t_.theta;
    sp.delta = t_.delta;
    const std::int64_t max_sets = r.max_sets;
    if (t_.auto_tune) {
        if (max_sets < static_cast<std::int64_t>(sp.theta) * sp.delta) {
            // Too few sets per row to fill δ blocks of θ threads.
            sp.delta = 1;
            sp.theta = std::min(sp.theta, round_up(static_cast<int>(max_sets), 32));
        }
        // Many rows fill the GPU on their own: fewer threads per row means a narrower
        // window of ranks in flight, so fewer tests run after a lower-rank separating
        // set was found (at n = 20,000 level 1 ran 2.9x the CPU's tests with θδ = 128).
        const std::int64_t rows_n = static_cast<std::int64_t>(r.rows.size());
        while (rows_n * sp.theta * sp.delta > kOversubscribe * resident_threads_ && (sp.delta > 1 || sp.theta > 32)) {
            if (sp.delta > 1)
                sp.delta = std::max(1, sp.delta / 2);
            else
                sp.theta = std::max(32, sp.theta / 2);
        }
    }
    sp.shared_entries = static_cast<int>(std::min<std::int64_t>(r.max_degree, kMaxSharedEntries));
    if (t_.auto_tune && sp.shared_entries > kWideRowEntries && max_sets >= static_cast<std::int64_t>(kWideRowThreads)) {
        sp.theta = kWideRowThreads;
        sp.delta = 1;
    }
    return sp;
}

EdgeParallelShape FisherLevelPlanner::edge_parallel(const LevelRows& r, const Adjacency& snap) const {
    EdgeParallelShape ep;
    ep.beta = t_.beta;
    ep.gamma = t_.gamma;
    if (t_.auto_tune) {
        // γ threads per edge: no more than the edge's sets, and fewer when the edges
        // alone fill the GPU (each thread of an edge beyond the first runs tests a
        // sequential scan would have skipped). β grows to keep blocks of >= 64 threads.
        std::int64_t entries = 0;
        for (std::int32_t i : r.rows) entries += snap.degree(i);
        int g2 = 1;
        while (g2 < ep.gamma && g2 < r.max_sets) g2 *= 2;
        while (g2 > 1 && entries * g2 > kOversubscribe * resident_threads_) g2 /= 2;
        if (g2 < ep.gamma) {
            ep.beta = std::min(kMaxBlockThreads / g2, std::max(ep.beta, 64 / g2));
            ep.gamma = g2;
        }
    }
    for (std::int32_t i : r.rows) {
        const int d = static_cast<int>(snap.degree(i));
        for (int q0 = 0; q0 < d; q0 += ep.beta) ep.items.push_back({i, q0});
    }
    return ep;
}

// ---- the entry scan -------------------------------------------------------------------------
// Lower entries (j > i) are scanned before upper ones. Each side runs in rounds over
// growing rank ranges [lo, hi): the first round over every entry, each later one over
// the entries no earlier round separated (compacted on the device; the host reads
// their counts per row to lay out the round). Most entries stop within the first
// ranks, so the later, longer rounds run on full warps instead of warps whose lanes
// wait on one or two entries that scan every set. Warp items are 32 entries of one
// row; a row whose range would keep one warp far longer than the round's average warp
// is cut into rank ranges. In a later round, a row with few entries left gives each
// entry a warp of its own, the lanes splitting the entry's ranks (kItemLanes): its
// entries no longer leave most of a warp's lanes idle.

std::vector<ScanRun> FisherLevelPlanner::scan_runs(const Adjacency& snap, const std::vector<std::int32_t>& rows, int l,
                                                   bool upper, std::int64_t e_begin, std::int64_t e_end) {
    std::vector<ScanRun> live;
    for (std::int32_t i : rows) {
        const std::int32_t* nb = snap.row(i);
        const int d = static_cast<int>(snap.degree(i));
        const int qs = static_cast<int>(std::upper_bound(nb, nb + d, i) - nb);  // first j > i
        const std::int64_t o = snap.offsets[static_cast<std::size_t>(i)];
        const int in_b = static_cast<int>(std::clamp<std::int64_t>(e_begin - o, 0, d));
        const int in_e = static_cast<int>(std::clamp<std::int64_t>(e_end - o, 0, d));
        const int qb = std::max(in_b, upper ? 0 : qs), qe = std::min(in_e, upper ? qs : d);
        if (qe > qb) live.push_back({i, qb, qe - qb, binomial(d, l)});
    }
    return live;
}

ScanRange FisherLevelPlanner::first_scan_range(int l) const {
    // Levels above scan_round_levels run one round: a round's shortest chain of tests
    // plus its sync can cost more than idle lanes do (n4000 level 4 on an H200, exact
    // tests: 4.8 ms in one round, 13.5 ms in rounds).
    // The deep scan's lanes share each test's arithmetic, so it never splits an entry's
    // ranks over lanes (kItemLanes, the later rounds' items): one round.
    return {0, l <= t_.scan_round_levels && !deep(l) ? t_.scan_first_round : std::numeric_limits<std::int64_t>::max()};
}

ScanRange FisherLevelPlanner::first_scan_range(int l, const std::vector<ScanRun>& live) const {
    double walk = 0.0;  // tests of every entry over all its row's sets (in double: C(d, l) sums pass 2^63)
    for (const ScanRun& r : live) walk += static_cast<double>(r.count) * static_cast<double>(r.sets);
    if (walk <= static_cast<double>(t_.scan_one_round_tests) * static_cast<double>(resident_threads_))
        return {0, std::numeric_limits<std::int64_t>::max()};
    return first_scan_range(l);
}

ScanRange FisherLevelPlanner::next_scan_range(ScanRange r) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    return {r.hi, r.hi > kMax / kScanRoundGrowth ? kMax : r.hi * kScanRoundGrowth};
}

std::vector<ScanItem> FisherLevelPlanner::scan_items(const std::vector<ScanRun>& live, ScanRange rg, bool on_survivors,
                                                     bool deep) const {
    const std::int64_t lo = rg.lo, hi = rg.hi;
    const double warps = static_cast<double>(std::max<std::int64_t>(1, resident_threads_ / 32));
    // A row's items: warps of up to 32 entries sharing the ranks, or (a later round,
    // few entries left) a warp per entry with the lanes splitting the ranks.
    const auto lane_split = [&](const ScanRun& r) { return on_survivors && r.count <= kScanLaneSplitEntries; };
    double work = 0.0;  // warp-sets (in double: sums of C(d, l) over rows can pass 2^63)
    for (const ScanRun& r : live) {
        const double range = static_cast<double>(std::min(hi, r.sets) - lo);
        work += lane_split(r) ? r.count * range / 32.0 : static_cast<double>((r.count + 31) / 32) * range;
    }
    std::int64_t min_span = deep ? t_.deep_min_span : kScanMinSpan;
    if (!deep && !on_survivors && lo == 0 && hi == std::numeric_limits<std::int64_t>::max() &&
        work < static_cast<double>(kScanMinSpan) * warps / 4.0)
        min_span =
            std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(work / warps)), kScanSmallSpan, kScanMinSpan);
    const std::int64_t span =
        std::max<std::int64_t>(min_span, static_cast<std::int64_t>(std::min(work / (kOversubscribe * warps), 1e18)));
    std::vector<ScanItem> items;
    for (const ScanRun& r : live) {
        const std::int64_t r1 = std::min(hi, r.sets), range = r1 - lo;
        const bool lanes = lane_split(r);
        const std::int64_t per_warp = lanes ? (range + 31) / 32 : range;
        const std::int64_t parts = (per_warp + span - 1) / span;
        const int step = lanes ? 1 : 32;
        for (int c0 = 0; c0 < r.count; c0 += step) {
            for (std::int64_t k = 0; k < parts; ++k) {
                ScanItem it;
                it.row = r.row;
                it.q0 = r.first + c0;
                it.q1 = r.first + std::min(c0 + step, r.count);
                it.r0 = lo + range * k / parts;
                it.r1 = lo + range * (k + 1) / parts;
                it.flags = (it.r0 > 0 || it.r1 < r.sets ? kItemSplit : 0) | (lanes ? kItemLanes : 0);
                items.push_back(it);
            }
        }
    }
    return items;
}

std::vector<ScanRun> FisherLevelPlanner::runs_beyond(const std::vector<ScanRun>& live, ScanRange r) {
    std::vector<ScanRun> next;
    for (const ScanRun& run : live)
        if (run.sets > r.hi) next.push_back(run);
    return next;
}

std::vector<ScanRun> FisherLevelPlanner::surviving_runs(const std::vector<ScanRun>& next,
                                                        const std::vector<std::int32_t>& counts) {
    std::vector<ScanRun> live;
    for (std::size_t k = 0; k < next.size(); ++k)
        if (counts[k] > 0) live.push_back({next[k].row, 0, counts[k], next[k].sets});
    return live;
}

}  // namespace cudag::cuda
