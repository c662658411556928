// SPDX-License-Identifier: Apache-2.0
// The CUDA skeleton engine of the nonlinear PC: skeleton::SkeletonEngine over CmiKnnGpu
// (kernels/cmi_knn_batch_engine.cu). Results equal skeleton::CpuCmiKnnEngine's: the same kept pairs and
// p-values at level 0 and, at each level l >= 1, the same separated entries,
// lexicographically smallest separating sets and pMax, because every test's p-value is a
// function of the test alone (its random numbers are keyed by the test id) and the results
// are applied in the CPU's order.
//
// Level l >= 1 (the paper's -Parallel scheme, generalised): each row walks its l-subsets S
// of adj(i) in lexicographic order as skeleton::search_row does, but a batch takes the next set
// of every open row in turn (round robin) until it holds enough tests to fill the GPU, and
// runs them all at once. Applying a batch in the order the sets were taken (per row: the
// lexicographic order), a test of an entry already separated by an earlier set is ignored,
// as the CPU would never have run it; those extra tests are the price of batching and are
// counted in `tests` (the tests the GPU ran).
#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/combinations.hpp"
#include "core/error.hpp"
#include "cmi_knn_types.cuh"
#include "core/pair_index.hpp"
#include "engines.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"

namespace cudag::cuda {
namespace {

class CudaCmiKnnEngine final : public skeleton::SkeletonEngine {
public:
    CudaCmiKnnEngine(const Dataset& data, const skeleton::TestPolicy& policy, const ci::CmiKnnSpec& spec, int max_level,
                     int device)
        : gpu_(make_cmiknn_gpu(data, spec, max_level == 0 ? 0 : 1, device)),
          max_cond_(max_level == 0 ? 0 : 1),
          names_(data.names),
          policy_(policy),
          note_(skeleton::cmi_constant_note(data, gpu_->reference())) {
        // Tests per batch: about 2^28 samples' statistics ((B + 1)·T per test), from 64 to
        // 16384 tests.
        const double t = static_cast<double>(data.n_samples);
        const double per_test = (spec.permutations + 1.0) * t;
        batch_ = static_cast<std::size_t>(std::clamp(double(1 << 28) / per_test, 64.0, 16384.0));
    }

    std::string name() const override { return "cuda"; }
    std::int64_t n_vars() const override { return gpu_->reference().n_vars(); }
    std::string setup_note() const override { return note_; }

    void level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g,
                skeleton::Level0Output& out) override {
        const std::int64_t n = n_vars();
        std::vector<CmiKnnQuery> queries;
        auto flush = [&] {
            if (queries.empty()) return;
            const std::vector<ci::CmiKnnResult> r = gpu_->run(queries);
            for (std::size_t a = 0; a < queries.size(); ++a) {
                const std::int64_t i = queries[a].x, j = queries[a].y;
                const double p = r[a].p;
                if (dense) out.dense_p[pair_index(i, j, n)] = p;
                if (policy_.independent(p)) continue;
                g.add(i, j);
                if (!dense) out.kept_p.push_back({queries[a].x, queries[a].y, p});
            }
            out.tests += static_cast<std::int64_t>(queries.size());
            queries.clear();
        };
        for (std::int64_t i = row_begin; i < row_end; ++i)
            for (std::int64_t j = i + 1; j < n; ++j) {
                CmiKnnQuery q;
                q.x = static_cast<std::int32_t>(i);
                q.y = static_cast<std::int32_t>(j);
                q.test_id = skeleton::cmi_pc_test_id(q.x, q.y, {});
                queries.push_back(std::move(q));
                if (queries.size() >= batch_) flush();
            }
        flush();
    }

    bool splits_rows() const override { return true; }  // queries per entry

    void run_level(int level, const Adjacency& snap, const skeleton::LevelBlock& block,
                   skeleton::LevelOutput& out) override {
        struct Row {
            std::int64_t i, d, open;
            std::vector<int> c;  // the next set's positions in row i
            bool more = true;
            std::int64_t qb = 0, qe = 0;  // the block's positions in the row
        };
        std::vector<Row> rows;
        for (std::int64_t i = block.row_begin; i < block.row_end; ++i) {
            const std::int64_t d = snap.degree(i);
            if (d - 1 < level) continue;
            const auto [qb, qe] = block.positions(snap, i);
            if (qe <= qb) continue;
            Row r{i, d, qe - qb, std::vector<int>(static_cast<std::size_t>(level)), true, qb, qe};
            for (int t = 0; t < level; ++t) r.c[static_cast<std::size_t>(t)] = t;
            rows.push_back(std::move(r));
        }
        struct Meta {
            std::int64_t e;   // entry
            std::size_t row;  // index into rows
            std::size_t set;  // index into sets (the set's nodes)
        };
        std::vector<CmiKnnQuery> queries;
        std::vector<Meta> meta;
        std::vector<std::vector<std::int32_t>> sets;
        std::vector<char> in_set;
        while (true) {
            queries.clear();
            meta.clear();
            sets.clear();
            bool progress = true;
            while (progress && queries.size() < batch_) {
                progress = false;
                for (std::size_t ri = 0; ri < rows.size() && queries.size() < batch_; ++ri) {
                    Row& r = rows[ri];
                    if (!r.more || r.open == 0) continue;
                    const std::int32_t* nb = snap.row(r.i);
                    const std::int64_t e0 = snap.offsets[r.i];
                    std::vector<std::int32_t> s(static_cast<std::size_t>(level));
                    in_set.assign(static_cast<std::size_t>(r.d), 0);
                    for (int t = 0; t < level; ++t) {
                        s[static_cast<std::size_t>(t)] = nb[r.c[static_cast<std::size_t>(t)]];
                        in_set[static_cast<std::size_t>(r.c[static_cast<std::size_t>(t)])] = 1;
                    }
                    const std::uint64_t key = ci::cmi_set_key(s.data(), level);
                    const std::size_t set_index = sets.size();
                    for (std::int64_t q = r.qb; q < r.qe; ++q) {
                        if (in_set[static_cast<std::size_t>(q)] || (out.flags[e0 + q] & skeleton::kSeparated)) continue;
                        CmiKnnQuery cq;
                        cq.x = std::min(static_cast<std::int32_t>(r.i), nb[q]);
                        cq.y = std::max(static_cast<std::int32_t>(r.i), nb[q]);
                        cq.z = s;
                        cq.test_id = ci::cmi_test_id(cq.x, cq.y, key);
                        queries.push_back(std::move(cq));
                        meta.push_back({e0 + q, ri, set_index});
                    }
                    sets.push_back(std::move(s));
                    r.more = next_combination(r.c.data(), level, static_cast<int>(r.d));
                    progress = true;
                }
            }
            if (queries.empty()) break;
            const std::vector<ci::CmiKnnResult> res = gpu_->run(queries);
            out.tests += static_cast<std::int64_t>(queries.size());
            for (std::size_t a = 0; a < queries.size(); ++a) {
                const Meta& mt = meta[a];
                if (out.flags[mt.e] & skeleton::kSeparated) continue;  // the CPU stopped before
                const double p = res[a].p;
                out.flags[mt.e] |= skeleton::kTested;
                out.pmax[mt.e] = std::max(out.pmax[mt.e], p);
                if (!policy_.independent(p)) continue;
                out.flags[mt.e] |= skeleton::kSeparated;
                std::copy(sets[mt.set].begin(), sets[mt.set].end(), out.set_slot(static_cast<std::size_t>(mt.e)));
                --rows[mt.row].open;
            }
        }
    }

    double p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) override {
        CmiKnnQuery q;
        q.x = i;
        q.y = j;
        q.z = s;
        std::sort(q.z.begin(), q.z.end());
        q.test_id = skeleton::cmi_pc_test_id(q.x, q.y, q.z);
        return gpu_->run({q}, std::nullopt).front().p;
    }

    /// Any queries, each answered as the CPU CMIknn test (skeleton::make_ci_test) answers it:
    /// x and y as given, S sorted, test id ci::cmi_test_id(x, y, cmi_set_key(S)), the spec's
    /// early stop. Conditional queries of an engine made for level 0 only with more shuffle
    /// neighbours than the kernels hold run on the host reference (the same arithmetic).
    bool test_batch(const skeleton::FlatQueries& q, std::span<double> statistic, std::span<double> p) override {
        const std::size_t nq = q.size();
        if (nq == 0) return true;
        CUDAG_EXPECTS(q.y.size() == nq && q.offsets.size() == nq + 1 && statistic.size() >= nq && p.size() >= nq,
                      "cuda cmiknn: malformed test batch");
        const ci::CmiKnn& ref = gpu_->reference();
        const std::int64_t base = q.offsets[0];
        std::vector<CmiKnnQuery> queries(nq);
        std::vector<std::size_t> device, host;
        for (std::size_t k = 0; k < nq; ++k) {
            CmiKnnQuery& c = queries[k];
            c.x = q.x[k];
            c.y = q.y[k];
            const auto b = q.nodes.begin() + (q.offsets[k] - base);
            c.z.assign(b, b + (q.offsets[k + 1] - q.offsets[k]));
            std::sort(c.z.begin(), c.z.end());
            c.test_id = ci::cmi_test_id(c.x, c.y, ci::cmi_set_key(c.z.data(), static_cast<int>(c.z.size())));
            if (c.z.empty() || max_cond_ > 0) {
                device.push_back(k);
                continue;
            }
            if (!validated_) {  // the CPU test validates the spec for conditional tests
                ci::validate(ref.spec(), ref.n_samples(), 1);
                validated_ = true;
            }
            (ref.spec().shuffle_neighbors <= kMaxShuffleGpu ? device : host).push_back(k);
        }
        std::vector<CmiKnnQuery> on_device;
        on_device.reserve(device.size());
        for (const std::size_t k : device) on_device.push_back(std::move(queries[k]));
        const std::vector<ci::CmiKnnResult> r =
            on_device.empty() ? std::vector<ci::CmiKnnResult>{} : gpu_->run(on_device);
        for (std::size_t a = 0; a < device.size(); ++a) {
            statistic[device[a]] = r[a].statistic;
            p[device[a]] = r[a].p;
        }
        for (const std::size_t k : host) {
            const CmiKnnQuery& c = queries[k];
            const ci::CmiKnnResult h = ref.test(c.x, c.y, c.z, c.test_id, 1);
            statistic[k] = h.statistic;
            p[k] = h.p;
        }
        for (std::size_t k = 0; k < nq; ++k) {
            if (std::isfinite(statistic[k]) && std::isfinite(p[k])) continue;
            throw InputError("cuda cmiknn: the test of '" + names_[static_cast<std::size_t>(q.x[k])] + "' and '" +
                             names_[static_cast<std::size_t>(q.y[k])] + "' given " +
                             std::to_string(q.offsets[k + 1] - q.offsets[k]) + " variable(s) gave a non-finite " +
                             (std::isfinite(statistic[k]) ? "p-value" : "statistic"));
        }
        return true;
    }

private:
    std::unique_ptr<CmiKnnGpu> gpu_;
    int max_cond_ = 0;
    bool validated_ = false;
    std::vector<std::string> names_;
    skeleton::TestPolicy policy_;
    std::string note_;
    std::size_t batch_ = 1024;
};

}  // namespace

std::unique_ptr<skeleton::SkeletonEngine> make_cmiknn_engine(const Dataset& data, const skeleton::TestPolicy& policy,
                                                             const ci::CmiKnnSpec& spec, int max_level, int device) {
    if (policy.exhaustive)
        throw InputError("--compat causal-learn runs on the CPU engine only (use --backend cpu or auto)");
    return std::make_unique<CudaCmiKnnEngine>(data, policy, spec, max_level, device);
}

}  // namespace cudag::cuda
