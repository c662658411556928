// SPDX-License-Identifier: Apache-2.0
#include "skeleton/ci_tests.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ci/cg_lrt.hpp"
#include "ci/mi_cg.hpp"
#include "ci/mi_g_sh.hpp"
#include "ci/mi_sh.hpp"
#include "ci/cmi_knn.hpp"
#include "ci/correlation.hpp"
#include "ci/fisher_z.hpp"
#include "ci/parcorr.hpp"
#include "ci/regression_ci.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/missing.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"
#include "skeleton/engines.hpp"

namespace cudag::skeleton {
namespace {

/// The columns x, y, s... of `data` as a data set of their own (in that order).
Dataset columns(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    std::vector<std::int32_t> vars{x, y};
    vars.insert(vars.end(), s.begin(), s.end());
    Dataset d;
    d.n_samples = data.n_samples;
    d.n_vars = static_cast<std::int64_t>(vars.size());
    d.source = data.source;
    d.names.reserve(vars.size());
    d.values.reserve(vars.size() * static_cast<std::size_t>(data.n_samples));
    for (const std::int32_t v : vars) {
        d.names.push_back(data.names[v]);
        d.values.insert(d.values.end(), data.column(v), data.column(v) + data.n_samples);
        if (!data.levels.empty()) d.levels.push_back(data.levels[v]);
    }
    return d;
}

/// Whether x, y, s are the columns 0, 1, 2, ... of `data` and no others (a columns() set, as
/// a test-wise deletion's table is): the test then reads `data` itself.
bool in_column_order(const Dataset& data, std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) {
    if (x != 0 || y != 1 || data.n_vars != static_cast<std::int64_t>(s.size()) + 2) return false;
    for (std::size_t t = 0; t < s.size(); ++t)
        if (s[t] != static_cast<std::int32_t>(t + 2)) return false;
    return true;
}

/// Positions 2 .. 1 + |s| of a columns() set: the conditioning variables.
std::vector<std::int32_t> given_positions(std::size_t l) {
    std::vector<std::int32_t> z(l);
    for (std::size_t t = 0; t < l; ++t) z[t] = static_cast<std::int32_t>(t + 2);
    return z;
}

/// Fisher-z's other number: z = √(n − |S| − 3)·|atanh r| (r clamped as the p-value clamps it).
std::pair<std::string, std::string> fisher_z_detail(double r, std::int64_t n, int l) {
    const double c = std::clamp(r, -ci::kMaxAbsCorrelation, ci::kMaxAbsCorrelation);
    return {"z", exact_number(std::sqrt(static_cast<double>(n - l - 3)) * std::fabs(std::atanh(c)))};
}

/// Fisher-z from a correlation matrix shared by every instance (ci_test_factory); with
/// `details`, the outcome carries z as FisherZTest's does.
class SharedFisherZTest final : public ci::CiTest {
public:
    SharedFisherZTest(std::shared_ptr<const CpuFisherEngine> engine, const Dataset& data, const TestSpec& spec,
                      Compat compat, bool details = false)
        : engine_(std::move(engine)),
          data_(data),
          spec_(spec),
          causal_learn_(compat == Compat::CausalLearn),
          details_(details) {}
    std::string name() const override { return spec_.name(); }
    std::vector<std::string> digest() const override { return spec_.digest_entries(data_.n_samples); }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        const int l = static_cast<int>(s.size());
        ci::CiOutcome o;
        given_.assign(s.begin(), s.end());
        o.statistic = engine_->partial_correlation(x, y, given_);
        o.p = ci::fisher_z_pvalue(o.statistic, data_.n_samples, l, causal_learn_);
        if (causal_learn_) o.singular = engine_->singular(x, y, given_);
        if (details_) o.extra.push_back(fisher_z_detail(o.statistic, data_.n_samples, l));
        return o;
    }

private:
    std::shared_ptr<const CpuFisherEngine> engine_;
    const Dataset& data_;
    TestSpec spec_;
    bool causal_learn_;
    bool details_;
    std::vector<std::int32_t> given_;
};

class FisherZTest final : public ci::CiTest {
public:
    FisherZTest(const Dataset& data, const TestSpec& spec, Compat compat)
        : data_(data), spec_(spec), causal_learn_(compat == Compat::CausalLearn) {}
    std::string name() const override { return spec_.name(); }
    std::vector<std::string> digest() const override { return spec_.digest_entries(data_.n_samples); }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        const int l = static_cast<int>(s.size());
        const Dataset picked = in_column_order(data_, x, y, s) ? Dataset{} : columns(data_, x, y, s);
        const CpuFisherEngine engine(picked.n_vars ? picked : data_, TestPolicy{}, 1);
        ci::CiOutcome o;
        const std::vector<std::int32_t> z = given_positions(s.size());
        o.statistic = engine.partial_correlation(0, 1, z);
        o.p = ci::fisher_z_pvalue(o.statistic, data_.n_samples, l, causal_learn_);
        if (causal_learn_) o.singular = engine.singular(0, 1, z);
        o.extra.push_back(fisher_z_detail(o.statistic, data_.n_samples, l));
        return o;
    }

private:
    const Dataset& data_;
    TestSpec spec_;
    bool causal_learn_;
};

class DiscreteTest final : public ci::CiTest {
public:
    DiscreteTest(const Dataset& data, const TestSpec& spec) : data_(data), spec_(spec) {}
    std::string name() const override { return spec_.name(); }
    std::vector<std::string> digest() const override { return spec_.digest_entries(data_.n_samples); }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        const Dataset picked = in_column_order(data_, x, y, s) ? Dataset{} : columns(data_, x, y, s);
        CpuDiscreteEngine engine(picked.n_vars ? picked : data_, TestPolicy{}, spec_.discrete, 1);
        const CpuDiscreteEngine::TestResult r = engine.test(0, 1, given_positions(s.size()));
        ci::CiOutcome o;
        o.statistic = r.statistic;
        o.p = r.p;
        o.extra.emplace_back("dof", exact_number(r.dof));
        return o;
    }

private:
    const Dataset& data_;
    TestSpec spec_;
};

class CmiKnnTest final : public ci::CiTest {
public:
    CmiKnnTest(const Dataset& data, const TestSpec& spec, int threads, int max_cond)
        : data_(data), spec_(spec), cmi_(data, spec.cmi, max_cond), threads_(threads) {}
    std::string name() const override { return spec_.name(); }
    std::vector<std::string> digest() const override { return spec_.digest_entries(data_.n_samples); }
    std::vector<std::string> notes(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) const override {
        std::vector<std::string> out;
        const auto note = [&](std::int32_t v, bool xy) {
            if (!cmi_.constant(v)) return;
            out.push_back("'" + data_.names[static_cast<std::size_t>(v)] + "' is constant: " +
                          (xy ? "the test gives statistic 0, p = 1 (as tigramite's)"
                              : "dropped from the conditioning set (as tigramite does)"));
        };
        note(x, true);
        note(y, true);
        for (const std::int32_t v : s) note(v, false);
        return out;
    }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        std::vector<std::int32_t> z(s.begin(), s.end());
        std::sort(z.begin(), z.end());
        const int l = static_cast<int>(z.size());
        return keyed(x, y, z, ci::cmi_test_id(x, y, ci::cmi_set_key(z.data(), l)));
    }
    /// The test of x, y given z (sorted) drawing its surrogates from stream `id`.
    ci::CiOutcome keyed(std::int32_t x, std::int32_t y, std::span<const std::int32_t> z, std::uint64_t id) {
        const ci::CmiKnnResult r = cmi_.test(x, y, z, id, resolve_threads(threads_));
        ci::CiOutcome o;
        o.statistic = r.statistic;
        o.p = r.p;
        o.extra.emplace_back("k", std::to_string(cmi_.k()));
        o.extra.emplace_back("permutations", std::to_string(cmi_.spec().permutations));
        o.extra.emplace_back("surrogates", std::to_string(r.surrogates));
        o.extra.emplace_back("exceedances", std::to_string(r.exceedances));
        o.extra.emplace_back("seed", std::to_string(cmi_.spec().seed));
        return o;
    }

private:
    const Dataset& data_;
    TestSpec spec_;
    ci::CmiKnn cmi_;
    int threads_;
};

/// pcalg's dsepTest: p = 1 when x and y are d-separated given s in the oracle's DAG, else 0
/// (statistic: the same number).
class DsepTest final : public ci::CiTest {
public:
    explicit DsepTest(const TestSpec& spec) : oracle_(spec.oracle), spec_(spec) {
        if (!oracle_) throw InputError("the d-separation test needs a DAG (--oracle DAG.tsv)");
    }
    std::string name() const override { return to_string(TestKind::DSep); }
    std::vector<std::string> digest() const override { return spec_.digest_entries(0); }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        ci::CiOutcome o;
        o.p = oracle_->p_value(x, y, s);
        o.statistic = o.p;
        return o;
    }

private:
    std::shared_ptr<const DsepOracle> oracle_;
    TestSpec spec_;
};

/// `--missing testwise`: each test runs on the rows where none of its variables is missing
/// (causal-learn's mv_fisherz, micd's test-wise deletion), as the same test on a table of
/// those rows and of the columns x, y, S (S in increasing order; discrete variables keep the
/// levels those rows hold). CMIknn draws its surrogates keyed by the variables' indices in
/// the whole data, as without missing values. The outcome adds "n_samples": the rows used.
/// TestSpec::bnlearn_missing: bnlearn's locally complete observations instead (every level
/// kept; a test without the rows it needs independent, see bnlearn_independent).
class TestwiseTest final : public ci::CiTest {
public:
    TestwiseTest(const Dataset& data, const TestSpec& spec, Compat compat, int threads)
        : data_(data), spec_(spec), compat_(compat), threads_(threads) {}
    std::string name() const override { return spec_.name(); }
    std::vector<std::string> digest() const override {
        std::vector<std::string> d = spec_.digest_entries(data_.n_samples);
        d.push_back("missing=testwise");
        return d;
    }
    ci::CiOutcome test(std::int32_t x, std::int32_t y, std::span<const std::int32_t> s) override {
        std::vector<std::int32_t> vars{x, y};
        vars.insert(vars.end(), s.begin(), s.end());
        std::sort(vars.begin() + 2, vars.end());
        const std::vector<std::int64_t> rows = complete_rows(data_, vars);
        const auto n = static_cast<std::int64_t>(rows.size());
        const int l = static_cast<int>(s.size());
        const int spare = spec_.traits().spare_samples;
        ci::CiOutcome o;
        if (spec_.bnlearn_missing) {
            if (bnlearn_independent(n, l)) {  // bnlearn: statistic 0, p = 1
                // the degrees of freedom bnlearn still reports: its discrete tests' (mi-adf's,
                // x2-adf's: 0, no level observed) and, on one row, mi-cg's (its Gaussian tests' are 0)
                if (spec_.is_discrete() && spec_.discrete.dof == ci::DofRule::BnlearnAdf) {
                    o.extra.emplace_back("dof", "0");
                } else if (spec_.is_discrete()) {
                    double dof = 1.0;
                    for (std::size_t k = 0; k < vars.size(); ++k)
                        dof *= static_cast<double>(data_.levels[static_cast<std::size_t>(vars[k])].size()) -
                               (k < 2 ? 1.0 : 0.0);
                    o.extra.emplace_back("dof", exact_number(dof));
                } else if (spec_.kind == TestKind::MiCg && n == 1) {
                    o.extra.emplace_back("dof", exact_number(ci::mi_cg_dof(data_, x, y, s)));
                }
                o.extra.emplace_back("n_samples", std::to_string(n));
                return o;
            }
        } else if (n == 0 || (spare >= 0 && n <= l + spare)) {
            throw InputError("--missing testwise leaves " + std::to_string(n) + " complete rows for the test of " +
                             described(vars) + ": " + spec_.name() +
                             (spare >= 0 ? " needs more than " + std::to_string(l + spare) : " needs one or more"));
        }
        const std::vector<std::int32_t> z = given_positions(s.size());
        if (spec_.bnlearn_missing && (spec_.kind == TestKind::ChiSquare || spec_.kind == TestKind::GSquare)) {
            if (const auto r = discrete_on_rows(vars, rows, z)) {
                o.statistic = r->statistic;
                o.p = r->p;
                o.extra.emplace_back("dof", exact_number(r->dof));
                o.extra.emplace_back("n_samples", std::to_string(n));
                return o;
            }
        }
        const Dataset sub = subset(data_, vars, rows, spec_.bnlearn_missing);
        try {
            if (spec_.kind == TestKind::CmiKnn) {
                CmiKnnTest cmi(sub, spec_, threads_, l);
                o = cmi.keyed(0, 1, z, ci::cmi_test_id(x, y, ci::cmi_set_key(vars.data() + 2, l)));
            } else {
                o = make_ci_test(sub, spec_, compat_, threads_, l)->test(0, 1, z);
            }
        } catch (const InputError& e) {
            throw InputError("the test of " + described(vars) + " on its " + std::to_string(n) +
                             " complete rows (--missing testwise): " + e.what());
        }
        if (spec_.student_t) {  // bnlearn's cor: the exact t test of r, df = n - |S| - 2
            const double r = o.statistic == o.statistic ? o.statistic : 0.0;
            o.p = ci::parcorr_p_value(r, n, l + 2);
            o.extra.clear();
        }
        o.extra.emplace_back("n_samples", std::to_string(n));
        return o;
    }

private:
    /// χ² / G² of vars[0], vars[1] given the others on `rows`, their codes gathered straight
    /// into the engine's form with every declared level (bnlearn's rule; what the subset's
    /// table gives, without a Dataset of doubles between). Nothing for a variable of fewer
    /// than 2 levels, which the general path refuses in its words.
    std::optional<CpuDiscreteEngine::TestResult> discrete_on_rows(const std::vector<std::int32_t>& vars,
                                                                  const std::vector<std::int64_t>& rows,
                                                                  const std::vector<std::int32_t>& z) const {
        ci::DiscreteCodes c;
        c.n_vars = static_cast<std::int64_t>(vars.size());
        c.n_samples = static_cast<std::int64_t>(rows.size());
        c.codes.resize(vars.size() * rows.size());
        for (std::size_t k = 0; k < vars.size(); ++k) {
            const auto r = static_cast<std::int32_t>(data_.levels[static_cast<std::size_t>(vars[k])].size());
            if (r < 2) return std::nullopt;
            c.cards.push_back(r);
            const double* col = data_.column(vars[k]);
            std::uint8_t* out = c.codes.data() + k * rows.size();
            for (const std::int64_t row : rows) *out++ = static_cast<std::uint8_t>(col[row]);
        }
        CpuDiscreteEngine engine(std::move(c), TestPolicy{}, spec_.discrete, 1);
        return engine.test(0, 1, z);
    }

    /// bnlearn's rule for a test on n locally complete rows given l variables: independent
    /// when n = 0, for mi-cg and mi-g-sh when n = 1 (one row fits no model; bnlearn's
    /// statistic 0, p 1), and for its Gaussian tests when their degrees of freedom fall below
    /// 1 (cor n - l - 2, zf n - l - 3; mi-g has 1).
    bool bnlearn_independent(std::int64_t n, int l) const {
        if (n == 0) return true;
        if (spec_.kind == TestKind::MiCg || spec_.kind == TestKind::MiGSh) return n == 1;
        if (spec_.kind != TestKind::FisherZ) return false;
        return n - l - (spec_.student_t ? 2 : 3) < 1;
    }

    /// "'x' and 'y' given {'a', 'b'}".
    std::string described(const std::vector<std::int32_t>& vars) const {
        const auto name = [&](std::int32_t v) { return "'" + data_.names[static_cast<std::size_t>(v)] + "'"; };
        std::string out = name(vars[0]) + " and " + name(vars[1]);
        if (vars.size() == 2) return out;
        out += " given {";
        for (std::size_t k = 2; k < vars.size(); ++k) out += (k > 2 ? ", " : "") + name(vars[k]);
        return out + "}";
    }

    const Dataset& data_;
    TestSpec spec_;
    Compat compat_;
    int threads_;
};

}  // namespace

std::unique_ptr<ci::CiTest> make_ci_test(const Dataset& data, const TestSpec& spec, Compat compat, int threads,
                                         int max_cond) {
    if (max_cond < 0) max_cond = static_cast<int>(std::max<std::int64_t>(0, data.n_vars - 2));
    if (data.missing > 0 && spec.kind != TestKind::DSep)
        return std::make_unique<TestwiseTest>(data, spec, compat, threads);
    switch (spec.kind) {
        case TestKind::FisherZ:
            return std::make_unique<FisherZTest>(data, spec, compat);
        case TestKind::ChiSquare:
        case TestKind::GSquare:
            return std::make_unique<DiscreteTest>(data, spec);
        case TestKind::CmiKnn:
            return std::make_unique<CmiKnnTest>(data, spec, threads, max_cond);
        case TestKind::CgLrt:
            return std::make_unique<ci::CgLrtTest>(data);
        case TestKind::Regression:
            return std::make_unique<ci::RegressionCiTest>(data);
        case TestKind::MiCg:
            return std::make_unique<ci::MiCgTest>(data);
        case TestKind::MiSh:
            return std::make_unique<ci::MiShTest>(data);
        case TestKind::MiGSh:
            return std::make_unique<ci::MiGShTest>(data);
        case TestKind::DSep:
            return std::make_unique<DsepTest>(spec);
    }
    return nullptr;
}

std::unique_ptr<ci::CiTest> make_matrix_fisher_z(const Dataset& data, const TestSpec& spec, Compat compat,
                                                 int threads) {
    auto engine = std::make_shared<const CpuFisherEngine>(data, TestPolicy{}, std::max(1, threads));
    return std::make_unique<SharedFisherZTest>(std::move(engine), data, spec, compat, true);
}

namespace {

/// Tests that share `engine`'s correlation matrix (SharedFisherZTest).
CiTestFactory shared_fisher_z(std::shared_ptr<const CpuFisherEngine> engine, const Dataset& data, const TestSpec& spec,
                              Compat compat) {
    return [engine = std::move(engine), &data, spec, compat] {
        return std::unique_ptr<ci::CiTest>(std::make_unique<SharedFisherZTest>(engine, data, spec, compat));
    };
}

}  // namespace

CiTestFactory ci_test_factory(const Dataset& data, const TestSpec& spec, Compat compat, int threads,
                              std::int64_t shared_limit, mpi::Communicator* comm) {
    if (spec.traits().shared_matrix && data.n_vars <= shared_limit && data.missing == 0) {
        threads = std::max(1, threads);
        auto engine = comm && comm->size() > 1
                          ? std::make_shared<const CpuFisherEngine>(ci::correlation_matrix(data, threads, *comm),
                                                                    data.n_vars, data.n_samples, TestPolicy{}, threads)
                          : std::make_shared<const CpuFisherEngine>(data, TestPolicy{}, threads);
        return shared_fisher_z(std::move(engine), data, spec, compat);
    }
    return [&data, spec, compat] { return make_ci_test(data, spec, compat, 1); };
}

CiTestFactory ci_test_factory(std::vector<double> corr, const Dataset& data, const TestSpec& spec, Compat compat,
                              int threads) {
    if (spec.kind != TestKind::FisherZ)
        throw InputError("a given correlation matrix takes the fisher-z test, not " + spec.name());
    auto engine = std::make_shared<const CpuFisherEngine>(std::move(corr), data.n_vars, data.n_samples, TestPolicy{},
                                                          std::max(1, threads));
    return shared_fisher_z(std::move(engine), data, spec, compat);
}

namespace {

/// A GPU engine's batch path as a ci::BatchTest.
class EngineBatchTest final : public ci::BatchTest {
public:
    EngineBatchTest(std::unique_ptr<SkeletonEngine> engine, std::string test)
        : engine_(std::move(engine)), test_(std::move(test)) {}
    std::string name() const override { return test_; }
    std::string where() const override { return "the " + engine_->name() + " engine"; }
    void run(const ci::Queries& q, std::span<double> statistic, std::span<double> p) override {
        if (q.size() == 0) return;
        if (!engine_->test_batch(q, statistic, p))
            throw LogicError("the " + engine_->name() + " engine's batch path went away");
    }

private:
    std::unique_ptr<SkeletonEngine> engine_;
    std::string test_;
};

}  // namespace

std::unique_ptr<ci::BatchTest> make_gpu_batch_test(const Dataset& data, const TestSpec& spec, const TestPolicy& policy,
                                                   int max_level, const BackendContext& backend,
                                                   mpi::Communicator& comm) {
    if (!spec.traits().gpu || !picks_gpu(backend.kind, policy)) return nullptr;
    // The engine make_engine picks answers the batch: the GPU engines', or a BatchTestEngine
    // passing it through to the GPU batch of cg-lrt or of test-wise Fisher-z.
    std::unique_ptr<SkeletonEngine> engine = make_engine(EngineArgs{data, spec, policy, max_level, backend, comm});
    // An engine without the batch path (e.g. C not held whole on the GPU): the CPU's
    // tests, on every rank alike. An empty batch asks without testing.
    const std::int64_t none = 0;
    const bool ok = engine->test_batch(ci::Queries{{}, {}, {&none, 1}, {}}, {}, {});
    if (comm.allreduce(static_cast<std::int32_t>(ok ? 1 : 0), mpi::ReduceOp::Min) != 1) return nullptr;
    return std::make_unique<EngineBatchTest>(std::move(engine), spec.name());
}

}  // namespace cudag::skeleton
