// SPDX-License-Identifier: Apache-2.0
// CUDA CMIknn: batches of conditional-independence tests (GPU-CMIknn, Hagedorn et al.,
// DIGEST.md §2.4), every surrogate of every test of a batch in a few launches, with the
// results of the host reference ci::CmiKnn bit for bit (statistic, p-value, surrogate and
// exceedance counts).
//
// What differs from the paper's kernels, and why:
//  - Random numbers: the paper draws its visiting order from thread-block scheduling and
//    atomicCAS races; here every number comes from Philox keyed by (seed, test id,
//    surrogate, sample) as on the host (ci/cmi_knn.hpp), the visiting order is a sort of
//    those keys (a stable segmented sort), and the restricted permutation is one thread per
//    surrogate walking that order, as the host does.
//  - No cap on k: small k keeps the k + 1 smallest joint distances in registers (the
//    paper's scheme; a list of 8, for k < 8); larger k finds the (k + 1)-th smallest distance by
//    a radix select over its bits (5 bits a pass, a 32-bin histogram per thread in shared
//    memory): ranks need ⌈log2 T / 5⌉ passes (3 at T = 10,000), with no list to spill.
//  - The T sample terms are summed in fixed point (ci::cmi_fixed_bits), so the integer
//    atomics give the host's sum exactly whatever the order.
//  - Ranks (the default transform, and uniform, computed on the ranks) are int32 columns:
//    exact integer distances, half the bandwidth of doubles.
// Arithmetic that must round as the host's does (tie-break noise, standardisation) uses
// explicitly rounded operations (__dadd_rn, __dmul_rn, ...), never contracted into FMAs.
//
// This file is the batch core (CmiKnnBatchCore, cmi_knn_batch_core.cuh: batching, the
// surrogate chunks and the early stop, on the device context's stream, over a table of
// columns) and the engine of complete data (CmiKnnGpu, engines.hpp: one table, the data's
// columns as ci::CmiKnn transforms them). The kernels are in cmi_knn_prep_kernels.cu
// (neighbours, draws, restricted permutations, permuted columns) and
// cmi_knn_stat_kernels.cu (the statistic).
#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cmi_knn_batch_core.cuh"
#include "cmi_knn_prep_kernels.cuh"
#include "cmi_knn_stat_kernels.cuh"
#include "core/error.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_memory.hpp"
#include "engines.hpp"

namespace cudag::cuda {

// ---- the batch core ---------------------------------------------------------------------------

CmiKnnBatchCore::CmiKnnBatchCore(const ci::CmiKnnSpec& spec, int device)
    : spec_(spec), device_(device), ctx_(DeviceContext::for_device(device)) {
    ranks_ = spec.transform == ci::CmiTransform::Ranks || spec.transform == ci::CmiTransform::Uniform;
    DeviceGuard guard(device_);
    int optin = 0;
    CUDAG_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    window_limit_ = std::min<std::size_t>(kWindowShared, static_cast<std::size_t>(optin));
    sms_ = ctx_.multiprocessors();
}

std::vector<ci::CmiKnnResult> CmiKnnBatchCore::run(const CmiTable& t, const std::vector<CmiKnnQuery>& queries,
                                                   const std::optional<ci::CmiEarlyStop>& early_stop) {
    std::vector<ci::CmiKnnResult> results(queries.size());
    // Batches bounded by the neighbour lists they need (groups × T × m ints).
    const std::size_t per_group = static_cast<std::size_t>(t.n) * spec_.shuffle_neighbors * 4;
    const std::size_t max_groups = std::max<std::size_t>(1, (std::size_t(1) << 30) / per_group);
    std::size_t begin = 0;
    while (begin < queries.size()) {
        std::size_t end = begin;
        std::map<std::vector<std::int32_t>, int> seen;
        while (end < queries.size()) {
            std::vector<std::int32_t> z = queries[end].z;
            if (!seen.count(z) && seen.size() == max_groups) break;
            seen.emplace(std::move(z), 0);
            ++end;
        }
        run_batch(t, queries, begin, end, early_stop, results);
        begin = end;
    }
    return results;
}

void CmiKnnBatchCore::run_batch(const CmiTable& t, const std::vector<CmiKnnQuery>& all, std::size_t begin,
                                std::size_t end, const std::optional<ci::CmiEarlyStop>& early_stop,
                                std::vector<ci::CmiKnnResult>& results) {
    DeviceGuard guard(device_);
    const ci::CmiKnnSpec& spec = spec_;
    const int n = t.n;
    const int m = spec.shuffle_neighbors;
    const auto constant = [&](std::int32_t v) { return t.constant[static_cast<std::size_t>(v)] != 0; };
    // Host view: active queries (x or y constant: statistic 0, p 1, as the host), their
    // groups (conditioning sets without constant columns), the permuted/fixed columns.
    std::vector<QueryDev> qd;
    std::vector<std::size_t> qidx;  // position in `all` of each device query
    std::vector<int> g_off, g_nz, zvars;
    std::map<std::vector<std::int32_t>, int> groups;
    for (std::size_t a = begin; a < end; ++a) {
        const CmiKnnQuery& in = all[a];
        if (constant(in.x) || constant(in.y)) continue;
        std::vector<std::int32_t> z;
        for (std::int32_t v : in.z)
            if (!constant(v)) z.push_back(v);
        auto [it, fresh] = groups.emplace(z, static_cast<int>(g_nz.size()));
        if (fresh) {
            g_off.push_back(static_cast<int>(zvars.size()));
            g_nz.push_back(static_cast<int>(z.size()));
            zvars.insert(zvars.end(), z.begin(), z.end());
        }
        QueryDev q;
        q.p = spec.permute == ci::CmiPermute::Y ? in.y : in.x;
        q.f = spec.permute == ci::CmiPermute::Y ? in.x : in.y;
        q.group = it->second;
        q.test_id = in.test_id;
        q.noise_scale =
            spec.tie_break == ci::CmiTieBreak::Noise ? 1e-6 * t.raw_std[static_cast<std::size_t>(q.p)] : 0.0;
        qd.push_back(q);
        qidx.push_back(a);
    }
    if (qd.empty()) return;
    nz_max_ = *std::max_element(g_nz.begin(), g_nz.end());
    nz_uniform_ = std::all_of(g_nz.begin(), g_nz.end(), [&](int c) { return c == g_nz[0]; });
    zvars.push_back(0);  // never empty
    const int nq = static_cast<int>(qd.size());
    const int ng = static_cast<int>(g_nz.size());
    queries_.resize_discard(qd.size());
    queries_.upload(qd.data(), qd.size(), stream());
    g_off_.resize_discard(g_off.size());
    g_off_.upload(g_off.data(), g_off.size(), stream());
    g_nz_.resize_discard(g_nz.size());
    g_nz_.upload(g_nz.data(), g_nz.size(), stream());
    zvars_.resize_discard(zvars.size());
    zvars_.upload(zvars.data(), zvars.size(), stream());
    any_z_ = std::any_of(g_nz.begin(), g_nz.end(), [](int c) { return c > 0; });
    if (any_z_) {
        nbr_.resize_discard(static_cast<std::size_t>(ng) * n * m);
        if (ranks_)
            launch_neighbors(t.wi, n, g_off_.data(), g_nz_.data(), zvars_.data(), ng, m, spec.seed, nbr_.data(),
                             stream());
        else
            launch_neighbors(t.wd, n, g_off_.data(), g_nz_.data(), zvars_.data(), ng, m, spec.seed, nbr_.data(),
                             stream());
    } else {
        nbr_.resize_discard(1);
    }

    // Surrogates in chunks; with an early stop, small chunks first (most independent
    // tests stop at their first exceedances), the decision taken on the prefix in index
    // order as on the host, so the result does not depend on the chunking.
    const long long b_total = spec.permutations;
    std::vector<long long> cuts{0};
    if (early_stop) {
        for (long long c = 16; c < b_total; c *= 4) cuts.push_back(c);
    }
    cuts.push_back(b_total);
    std::vector<double> observed(static_cast<std::size_t>(nq), 0.0);
    std::vector<char> done(static_cast<std::size_t>(nq), 0);
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
        const long long s0 = cuts[c], s1 = cuts[c + 1];
        std::vector<int> active;
        for (int q = 0; q < nq; ++q)
            if (!done[static_cast<std::size_t>(q)]) active.push_back(q);
        if (active.empty()) break;
        // Units: the observed statistics (first chunk), then (query, surrogate) pairs.
        std::vector<UnitDev> units;
        std::vector<int> surrogate_of;
        if (c == 0)
            for (int q : active) units.push_back({q, -1});
        const int first_surrogate = static_cast<int>(units.size());
        for (int q : active)
            for (long long s = s0; s < s1; ++s) {
                units.push_back({q, static_cast<int>(surrogate_of.size())});
                surrogate_of.push_back(static_cast<int>(s));
            }
        std::vector<u64> sums = compute_units(t, units, first_surrogate, surrogate_of, m);
        std::size_t at = 0;
        if (c == 0)
            for (int q : active)
                observed[static_cast<std::size_t>(q)] = t.statistic(static_cast<std::int64_t>(sums[at++]));
        for (int q : active) {
            ci::CmiKnnResult& r = results[qidx[static_cast<std::size_t>(q)]];
            r.statistic = observed[static_cast<std::size_t>(q)];
            for (long long s = s0; s < s1; ++s, ++at) {
                if (done[static_cast<std::size_t>(q)]) continue;
                const double null = t.statistic(static_cast<std::int64_t>(sums[at]));
                r.exceedances += null >= r.statistic;
                r.surrogates = s + 1;
                if (early_stop && r.surrogates < b_total &&
                    ci::cmi_can_stop(r.exceedances, b_total, early_stop->alpha, early_stop->strict)) {
                    r.early_stopped = true;
                    done[static_cast<std::size_t>(q)] = 1;
                }
            }
            r.p = ci::cmi_pvalue(r.exceedances, b_total);
        }
    }
}

/// Fixed-point term sums of `units` (observed ones first, then first_surrogate.. the
/// surrogates, slot = position among them), in slot groups that fit the memory budget.
std::vector<u64> CmiKnnBatchCore::compute_units(const CmiTable& t, const std::vector<UnitDev>& units,
                                                int first_surrogate, const std::vector<int>& surrogate_of, int m) {
    const int n = t.n;
    const long long n_slots = static_cast<long long>(surrogate_of.size());
    const std::size_t vsize = ranks_ ? sizeof(int) : sizeof(double);
    const std::size_t per_slot =
        static_cast<std::size_t>(n) *
            (8 + 8 + 4 + 4 + 8 + 4 + (any_z_ ? 4 * static_cast<std::size_t>(m) : 0) + 8 + vsize) +
        static_cast<std::size_t>((n + 31) / 32) * 4 + 64;
    const std::size_t free_b = device_memory_info().first;  // the block cache's memory included
    const std::size_t budget = std::min<std::size_t>(free_b / 3, std::size_t(6) << 30);
    long long group = std::max<long long>(1, static_cast<long long>(budget / per_slot));
    group = std::min<long long>({group, n_slots > 0 ? n_slots : 1, (INT_MAX - 1) / n});
    std::vector<u64> sums(units.size(), 0);
    units_.resize_discard(units.size());
    units_.upload(units.data(), units.size(), stream());
    sums_.resize_discard(units.size());
    sums_.fill_bytes(0, stream());
    // The observed statistics (no permuted column needed).
    if (first_surrogate > 0) statistic(t, 0, first_surrogate, 0);
    for (long long g0 = 0; g0 < n_slots; g0 += group) {
        const long long slots = std::min(group, n_slots - g0);
        run_slots(t, first_surrogate + static_cast<int>(g0), slots, surrogate_of, g0, m);
        statistic(t, first_surrogate + static_cast<int>(g0), static_cast<int>(slots), g0);
    }
    sums_.download(sums.data(), sums.size(), stream());
    ctx_.synchronize();
    return sums;
}

/// The permuted columns of `slots` slots starting at unit first_unit (slot g0..).
void CmiKnnBatchCore::run_slots(const CmiTable& t, int first_unit, long long slots,
                                const std::vector<int>& surrogate_of, long long g0, int m) {
    const int n = t.n;
    const std::size_t cells = static_cast<std::size_t>(slots) * n;
    surr_.resize_discard(static_cast<std::size_t>(slots));
    surr_.upload(surrogate_of.data() + g0, static_cast<std::size_t>(slots), stream());
    keys_.resize_discard(cells);
    keys_out_.resize_discard(cells);
    iota_.resize_discard(cells);
    order_.resize_discard(cells);
    uni_.resize_discard(cells);
    source_.resize_discard(cells);
    shuffled_.resize_discard(any_z_ ? cells * static_cast<std::size_t>(m) : 1);
    used_.resize_discard(static_cast<std::size_t>(slots) * ((n + 31) / 32));
    if (ranks_)
        pcol_i_.resize_discard(cells);
    else {
        values_.resize_discard(cells);
        pcol_d_.resize_discard(cells);
    }
    std::vector<int> offsets(static_cast<std::size_t>(slots) + 1);
    for (long long s = 0; s <= slots; ++s) offsets[static_cast<std::size_t>(s)] = static_cast<int>(s * n);
    offsets_.resize_discard(offsets.size());
    offsets_.upload(offsets.data(), offsets.size(), stream());
    // Base the unit array at first_unit: slot s is unit first_unit + s.
    launch_draws(units_.data(), queries_.data(), g_nz_.data(), nbr_.data(), n, m, slots, spec_.seed, first_unit,
                 surr_.data(), keys_.data(), iota_.data(), uni_.data(), shuffled_.data(), stream());
    sort_pairs(keys_.data(), keys_out_.data(), iota_.data(), order_.data(), cells, slots);
    if (any_z_)
        launch_restrict(units_.data(), queries_.data(), g_nz_.data(), n, m, slots, first_unit, order_.data(),
                        shuffled_.data(), window_limit_, used_.data(), source_.data(), stream());
    launch_values(units_.data(), queries_.data(), g_nz_.data(), t.raw, n, slots, first_unit, order_.data(),
                  source_.data(), uni_.data(), ranks_, keys_.data(), ranks_ ? nullptr : values_.data(), stream());
    if (ranks_) {
        // iota_ still holds 0..n−1 per slot (the sort wrote order_).
        sort_pairs(keys_.data(), keys_out_.data(), iota_.data(), order_.data(), cells, slots);
        launch_ranks(order_.data(), n, slots, pcol_i_.data(), stream());
    } else {
        launch_standardize(values_.data(), n, slots, spec_.transform == ci::CmiTransform::Standardize, pcol_d_.data(),
                           stream());
    }
}

void CmiKnnBatchCore::sort_pairs(const u64* keys_in, u64* keys_out, const int* vals_in, int* vals_out,
                                 std::size_t cells, long long slots) {
    std::size_t bytes = 0;
    stable_sort_segments(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, static_cast<int>(cells),
                         static_cast<int>(slots), offsets_.data(), stream());
    temp_.resize_discard(std::max<std::size_t>(bytes, 1));
    stable_sort_segments(temp_.data(), bytes, keys_in, keys_out, vals_in, vals_out, static_cast<int>(cells),
                         static_cast<int>(slots), offsets_.data(), stream());
}

/// Launch the statistic kernel for units [u0, u0 + count), whose surrogate slots
/// start at slot_base in the permuted-column buffer. Units of a PC level share one
/// conditioning-set size: that size is the kernel's NZ (registers); a batch of mixed
/// sizes, or more than 2, runs the NZ = −1 kernel that reads each unit's.
void CmiKnnBatchCore::statistic(const CmiTable& t, int u0, int count, long long slot_base) {
    if (count <= 0) return;
    const int n = t.n;
    const int k = static_cast<int>(t.k);
    // Register lists pay for k < 8 only: measured on an H100 (T = 1000, |S| = 1, B = 100),
    // k = 10 and 20 took 1.2–1.4 ms a test with a list of 32 and radix select 0.59 ms at
    // k = 50 to 500.
    const int kk = k < 8 ? 8 : 0;
    const int tiles = (n + kStatThreads - 1) / kStatThreads;
    const int nz_class = nz_uniform_ && nz_max_ <= 2 ? nz_max_ : -1;
    const std::size_t vsize = ranks_ ? sizeof(int) : sizeof(double);
    std::size_t shared = static_cast<std::size_t>(2 + nz_max_ + (nz_class < 0 ? nz_max_ : 0)) * kStatThreads * vsize;
    if (kk == 0) shared += 32 * kStatThreads * sizeof(unsigned);
    const long long blocks = static_cast<long long>(count) * tiles;
    CUDAG_EXPECTS(blocks < INT_MAX, "cuda cmiknn: too many statistics in one launch");
    // Ranks with a small k: the window kernel where the unit's columns fit in shared memory.
    if (ranks_ && kk > 0 && nz_uniform_ && nz_max_ <= 2 && window_shared(nz_max_, n) <= window_limit_) {
        const std::size_t ws = window_shared(nz_max_, n);
        // Few statistics (a single test): split each one's samples over several blocks
        // (each gathers the columns again) so that every SM has work.
        const int parts = std::clamp((4 * sms_ + count - 1) / count, 1, (n + 255) / 256);
        launch_window(nz_max_, count, ws, units_.data() + u0, queries_.data(), g_off_.data(), zvars_.data(), t.wi,
                      t.winv, pcol_i_.data(), order_.data(), slot_base, n, k, parts, t.psi, sums_.data() + u0,
                      stream());
        return;
    }
    auto go = [&](const auto* w, const auto* pc) {
        using V = std::remove_cv_t<std::remove_pointer_t<decltype(w)>>;
        const StatArgs<V> a{units_.data() + u0,
                            queries_.data(),
                            g_off_.data(),
                            g_nz_.data(),
                            zvars_.data(),
                            w,
                            pc,
                            slot_base,
                            n,
                            k,
                            t.psi,
                            tiles,
                            sums_.data() + u0};
        launch_statistic(nz_class, kk, a, static_cast<int>(blocks), shared, stream());
    };
    if (ranks_)
        go(t.wi, static_cast<const int*>(pcol_i_.data()));
    else
        go(t.wd, static_cast<const double*>(pcol_d_.data()));
}

// ---- the engine of complete data --------------------------------------------------------------

namespace {

class CmiKnnGpuImpl final : public CmiKnnGpu {
public:
    CmiKnnGpuImpl(const Dataset& data, const ci::CmiKnnSpec& spec, int max_cond, int device)
        : binding_(device),
          device_(device),
          ctx_(DeviceContext::for_device(device)),
          cpu_(data, spec, max_cond),
          n_(data.n_samples),
          vars_(data.n_vars),
          core_(spec, device) {
        CUDAG_EXPECTS(max_cond == 0 || spec.shuffle_neighbors <= kMaxShuffleGpu,
                      "cuda cmiknn: --shuffle-neighbors above " + std::to_string(kMaxShuffleGpu) +
                          " runs on the CPU engine only (use --backend cpu)");
        CUDAG_EXPECTS(n_ < (1ll << 24), "cuda cmiknn: at most 2^24 samples (use --backend cpu)");
        const bool ranks = spec.transform == ci::CmiTransform::Ranks || spec.transform == ci::CmiTransform::Uniform;
        DeviceGuard guard(device_);
        const std::size_t cells = static_cast<std::size_t>(n_ * vars_);
        if (ranks) {
            std::vector<int> w(cells);
            for (std::int64_t v = 0; v < vars_; ++v)
                for (std::int64_t t = 0; t < n_; ++t) w[v * n_ + t] = static_cast<int>(cpu_.working_column(v)[t]);
            wi_.resize_discard(cells);
            wi_.upload(w.data(), cells, stream());
            std::vector<int> inv(cells);  // sample at each rank, per variable
            for (std::int64_t v = 0; v < vars_; ++v)
                for (std::int64_t t = 0; t < n_; ++t) inv[v * n_ + w[v * n_ + t]] = static_cast<int>(t);
            winv_.resize_discard(cells);
            winv_.upload(inv.data(), cells, stream());
        } else {
            std::vector<double> w(cells);
            for (std::int64_t v = 0; v < vars_; ++v) std::copy_n(cpu_.working_column(v), n_, w.data() + v * n_);
            wd_.resize_discard(cells);
            wd_.upload(w.data(), cells, stream());
        }
        raw_.resize_discard(cells);
        raw_.upload(data.values.data(), cells, stream());
        const auto& pf = cpu_.psi_fixed();
        psi_.resize_discard(pf.size());
        psi_.upload(reinterpret_cast<const long long*>(pf.data()), pf.size(), stream());
        ctx_.synchronize();
        // What the core reads: the device columns, and the host reference's view of them.
        constant_.resize(static_cast<std::size_t>(vars_));
        raw_std_.resize(static_cast<std::size_t>(vars_));
        for (std::int64_t v = 0; v < vars_; ++v) {
            constant_[static_cast<std::size_t>(v)] = cpu_.constant(v) ? 1 : 0;
            raw_std_[static_cast<std::size_t>(v)] = cpu_.raw_std(v);
        }
        table_.n = static_cast<int>(n_);
        table_.k = cpu_.k();
        table_.fixed_bits = cpu_.fixed_bits();
        table_.psi_k = cpu_.psi_k();
        table_.wi = ranks ? wi_.data() : nullptr;
        table_.winv = ranks ? winv_.data() : nullptr;
        table_.wd = ranks ? nullptr : wd_.data();
        table_.raw = raw_.data();
        table_.psi = psi_.data();
        table_.constant = constant_;
        table_.raw_std = raw_std_;
    }

    ~CmiKnnGpuImpl() override {
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    const ci::CmiKnn& reference() const override { return cpu_; }

    std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries) override {
        return run(queries, cpu_.spec().early_stop);
    }

    std::vector<ci::CmiKnnResult> run(const std::vector<CmiKnnQuery>& queries,
                                      const std::optional<ci::CmiEarlyStop>& early_stop) override {
        for (const CmiKnnQuery& q : queries) cpu_.check_vars(q.x, q.y, q.z);
        return core_.run(table_, queries, early_stop);
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    DeviceBinding binding_;  // first: see the destructor
    int device_;
    DeviceContext& ctx_;  ///< the device's stream and block cache
    ci::CmiKnn cpu_;
    std::int64_t n_, vars_;
    DeviceBuffer<int> wi_, winv_;
    DeviceBuffer<double> wd_, raw_;
    DeviceBuffer<long long> psi_;
    std::vector<std::uint8_t> constant_;
    std::vector<double> raw_std_;
    CmiTable table_;
    CmiKnnBatchCore core_;
};

}  // namespace

std::unique_ptr<CmiKnnGpu> make_cmiknn_gpu(const Dataset& data, const ci::CmiKnnSpec& spec, int max_cond, int device) {
    return std::make_unique<CmiKnnGpuImpl>(data, spec, max_cond, device);
}

}  // namespace cudag::cuda
