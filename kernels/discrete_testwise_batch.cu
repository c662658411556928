// SPDX-License-Identifier: Apache-2.0
// χ² and G² under `--missing testwise` on the GPU: ci::BatchTest whose every answer is the CPU's
// TestwiseTest (skeleton/ci_tests.cpp) bit for bit.
//
// The CPU test of x ⟂ y | S takes the rows where none of x, y, S is missing (increasing), makes
// the data set of the columns x, y, S (S sorted) on those rows, each discrete variable keeping
// only the levels those rows hold (core/missing.cpp subset: codes renumbered in the labels'
// order), and runs DiscreteTest on it: skeleton::CpuDiscreteEngine::test(0, 1, {2, ..}) (its
// encode_discrete refuses a variable of one level unless the dof rule is causal-learn's).
//
// Here the codes (one byte; 0 where missing) and one bitmap per column (bit r of word r / 64:
// row r present) are uploaded once, and each batch goes through discrete_batch.cu's path
// (discrete_batch_tests with DiscreteBatchData::d_present; discrete_batch.cuh says why the
// recoding leaves the statistic alone and what it changes in the degrees of freedom), with S
// sorted as TestwiseTest sorts it. The CPU's TestwiseTest answers inside the same batch the
// queries it refuses (no complete row; a variable of one level on them), so that its one-line
// errors are the same (that of the first such query in batch order is thrown), and the queries
// whose strata keys do not fit in 62 bits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ci/batch.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "cuda_check.hpp"
#include "device_context.hpp"
#include "device_handles.hpp"
#include "device_memory.hpp"
#include "discrete_batch.cuh"
#include "engines.hpp"
#include "skeleton/ci_tests.hpp"

namespace cudag::cuda {
namespace {

class CudaTestwiseDiscreteBatch final : public ci::BatchTest {
public:
    CudaTestwiseDiscreteBatch(const Dataset& data, const skeleton::TestSpec& spec, int host_threads, int device)
        : binding_(device),
          data_(data),
          spec_(spec),
          threads_(resolve_threads(host_threads)),
          device_(device),
          m_(data.n_samples),
          words_((data.n_samples + 63) / 64),
          cpu_([&data, spec] { return skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1); }, threads_,
               data.names),
          ctx_(DeviceContext::for_device(device)) {
        CUDAG_EXPECTS(spec.is_discrete(), "the GPU's discrete test-wise batch runs chi-square and g-square only");
        CUDAG_EXPECTS(data.discrete(), "chi-square and g-square need discrete data");
        const std::int64_t n = data.n_vars;
        cards_.resize(static_cast<std::size_t>(n));
        std::vector<std::uint8_t> codes(data.values.size(), 0);
        std::vector<std::uint64_t> bits(static_cast<std::size_t>(n * words_), 0);
        for (std::int64_t v = 0; v < n; ++v) {
            const std::size_t lv = data.levels[static_cast<std::size_t>(v)].size();
            CUDAG_EXPECTS(lv <= 256, "chi-square and g-square: a variable has more than 256 levels");
            cards_[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(lv);
            const double* col = data.column(v);
            std::uint8_t* out = codes.data() + v * m_;
            std::uint64_t* bv = bits.data() + v * words_;
            for (std::int64_t r = 0; r < m_; ++r) {
                if (std::isnan(col[r])) continue;
                out[r] = static_cast<std::uint8_t>(col[r]);
                bv[r / 64] |= std::uint64_t{1} << (r % 64);
            }
        }
        DeviceGuard guard(device_);
        codes_.resize_discard(std::max<std::size_t>(1, codes.size()));
        codes_.upload(codes.data(), codes.size(), stream());
        bits_.resize_discard(std::max<std::size_t>(1, bits.size()));
        bits_.upload(bits.data(), bits.size(), stream());
        ctx_.synchronize();
    }

    ~CudaTestwiseDiscreteBatch() override {
        // The buffers are freed after this body with the device current (binding_ first).
        binding_.bind();
        cudaStreamSynchronize(ctx_.stream());
    }

    std::string name() const override { return spec_.name(); }
    std::string where() const override { return "GPU " + std::to_string(device_); }

    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        const std::size_t nq = q.size();
        if (nq == 0) return;
        CUDAG_EXPECTS(q.y.size() == nq && q.offsets.size() == nq + 1 && statistic.size() >= nq && p.size() >= nq,
                      "discrete testwise batch: malformed queries");
        const auto in_range = [&](std::int32_t v) { return v >= 0 && v < data_.n_vars; };
        // The queries with S sorted (TestwiseTest's sub-table order: S's strata keys in it).
        ci::QueryList sorted;
        std::vector<std::size_t> gpu, cpu;
        std::vector<std::int32_t> s;
        for (std::size_t k = 0; k < nq; ++k) {
            const std::span<const std::int32_t> given = q.set(k);
            CUDAG_EXPECTS(in_range(q.x[k]) && in_range(q.y[k]) && std::all_of(given.begin(), given.end(), in_range),
                          "discrete testwise batch: a query names a variable out of range");
            s.assign(given.begin(), given.end());
            std::sort(s.begin(), s.end());
            sorted.add(q.x[k], q.y[k], s);
            (discrete_batch_fits(cards_, s) ? gpu : cpu).push_back(k);
        }
        if (!gpu.empty()) {
            std::vector<std::int64_t> rows(nq, 0);
            std::vector<std::int32_t> fewest(nq, 0);
            {
                DeviceGuard guard(device_);
                discrete_batch_tests({codes_.data(), cards_, m_, bits_.data()}, spec_.discrete.stat, spec_.discrete.dof,
                                     sorted.view(), gpu, statistic, p, {rows, fewest}, stream());
            }
            // TestwiseTest's refusals: too few rows (its own), a variable of one level on them
            // (encode_discrete's, unless the causal-learn rule tests it with df = 0).
            const int spare = spec_.traits().spare_samples;
            const bool single_ok = spec_.discrete.dof == ci::DofRule::CausalLearn;
            for (const std::size_t k : gpu) {
                const std::int64_t n = rows[k];
                const auto l = static_cast<std::int64_t>(q.set(k).size());
                if (n == 0 || (spare >= 0 && n <= l + spare) || fewest[k] < (single_ok ? 1 : 2)) cpu.push_back(k);
            }
        }
        std::sort(cpu.begin(), cpu.end());
        // The CPU's TestwiseTest on its workers: its results, or its error (that of the first
        // query in batch order).
        const int used = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), cpu.size()));
        if (used > 0) {
            cpu_.make_workers(used);
            std::vector<std::exception_ptr> errors(cpu.size());
            parallel_for(0, static_cast<std::int64_t>(cpu.size()), used, 1, [&](std::int64_t i, int w) {
                const std::size_t k = cpu[static_cast<std::size_t>(i)];
                try {
                    const ci::CiOutcome o = cpu_.worker(w).test(q.x[k], q.y[k], q.set(k));
                    statistic[k] = o.statistic;
                    p[k] = o.p;
                } catch (...) {
                    errors[static_cast<std::size_t>(i)] = std::current_exception();
                }
            });
            for (const std::exception_ptr& e : errors)
                if (e) std::rethrow_exception(e);
        }
        // As ci::CpuBatchTest: a statistic or p-value that is not a result is an error.
        for (std::size_t k = 0; k < nq; ++k)
            if (!ci::is_result(statistic[k], p[k]))
                ci::throw_not_finite(spec_.name(), q.x[k], q.y[k], statistic[k], p[k], data_.names);
    }

private:
    cudaStream_t stream() const { return ctx_.stream(); }

    DeviceBinding binding_;  // first: destroyed last, the device current while buffers go
    const Dataset& data_;
    skeleton::TestSpec spec_;
    int threads_;
    int device_;
    std::int64_t m_, words_;
    ci::CpuBatchTest cpu_;  // the CPU's TestwiseTest, for the queries the device leaves
    DeviceContext& ctx_;
    std::vector<std::int32_t> cards_;   // levels per variable (the whole data's)
    DeviceBuffer<std::uint8_t> codes_;  // the codes, variable-major, 0 where missing
    DeviceBuffer<std::uint64_t> bits_;  // per column, bit r of word r / 64: row r present
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_discrete_testwise_batch(const Dataset& data, const skeleton::TestSpec& spec,
                                                            int host_threads, int device) {
    return std::make_unique<CudaTestwiseDiscreteBatch>(data, spec, host_threads, device);
}

}  // namespace cudag::cuda
