// SPDX-License-Identifier: Apache-2.0
#include "skeleton/engines.hpp"

#include <algorithm>

#include "ci/correlation.hpp"
#include "core/error.hpp"
#include "skeleton/batch_test_engine.hpp"
#include "skeleton/ci_tests.hpp"
#include "skeleton/cpu/ci_test_engine.hpp"
#include "skeleton/cpu/cmi_knn_engine.hpp"
#include "skeleton/cpu/discrete_engine.hpp"
#include "skeleton/cpu/dsep_engine.hpp"
#include "skeleton/cpu/fisher_engine.hpp"

namespace cudag::skeleton {

namespace {

std::unique_ptr<SkeletonEngine> cpu_fisher(const EngineArgs& a) {
    const int threads = a.backend.threads;
    if (a.correlation) {
        if (a.comm.size() != 1) throw InputError("a given correlation matrix runs on one process");
        return std::make_unique<CpuFisherEngine>(a.correlation, a.data.n_vars, a.data.n_samples, a.policy, threads,
                                                 a.correlation_symmetric);
    }
    if (a.comm.size() == 1) return std::make_unique<CpuFisherEngine>(a.data, a.policy, threads);
    // CPU ranks compute the correlation matrix together (bit-identical to one rank's).
    mpi::run_agreed(a.comm, [&] { ci::check_no_constant_columns(a.data); });
    std::vector<double> corr = ci::correlation_matrix(a.data, threads, a.comm);
    return make_agreed(a.comm, [&] {
        return std::make_unique<CpuFisherEngine>(std::move(corr), a.data.n_vars, a.data.n_samples, a.policy, threads);
    });
}

std::unique_ptr<SkeletonEngine> cpu_discrete(const EngineArgs& a) {
    return make_agreed(a.comm, [&] {
        return std::make_unique<CpuDiscreteEngine>(a.data, a.policy, a.test.discrete, a.backend.threads);
    });
}

std::unique_ptr<SkeletonEngine> cpu_cmiknn(const EngineArgs& a) {
    return make_agreed(a.comm, [&] {
        return std::make_unique<CpuCmiKnnEngine>(a.data, a.policy, a.test.cmi, a.max_level, a.backend.threads);
    });
}

/// Any test as single ci::CiTest calls (make_ci_test), one instance per thread: the engine of
/// the tests without an engine of their own, and of every test under `--missing testwise`.
std::unique_ptr<SkeletonEngine> cpu_single_tests(const EngineArgs& a) {
    const Compat compat = a.policy.causal_learn_pvalue ? Compat::CausalLearn : Compat::Pcalg;
    const int max_cond = a.max_level < 0 ? -1 : a.max_level;
    return make_agreed(a.comm, [&] {
        const Dataset& data = a.data;
        const TestSpec spec = a.test;
        return std::make_unique<CpuCiTestEngine>(
            data.n_vars, [&data, spec, compat, max_cond] { return make_ci_test(data, spec, compat, 1, max_cond); },
            a.policy, a.backend.threads);
    });
}

std::unique_ptr<SkeletonEngine> cpu_dsep(const EngineArgs& a) {
    return make_agreed(a.comm,
                       [&] { return std::make_unique<CpuDsepEngine>(a.test.oracle, a.policy, a.backend.threads); });
}

}  // namespace

std::vector<EngineEntry> cpu_engines() {
    return {
        {TestKind::FisherZ, BackendKind::Cpu, cpu_fisher},
        {TestKind::ChiSquare, BackendKind::Cpu, cpu_discrete},
        {TestKind::GSquare, BackendKind::Cpu, cpu_discrete},
        {TestKind::CmiKnn, BackendKind::Cpu, cpu_cmiknn},
        {TestKind::CgLrt, BackendKind::Cpu, cpu_single_tests},
        {TestKind::Regression, BackendKind::Cpu, cpu_single_tests},
        {TestKind::MiCg, BackendKind::Cpu, cpu_single_tests},
        {TestKind::MiSh, BackendKind::Cpu, cpu_single_tests},
        {TestKind::MiGSh, BackendKind::Cpu, cpu_single_tests},
        {TestKind::DSep, BackendKind::Cpu, cpu_dsep},
    };
}

const std::vector<EngineEntry>& engine_registry() {
    static const std::vector<EngineEntry> all = [] {
        std::vector<EngineEntry> v = cpu_engines();
        for (const EngineEntry& e : cuda_engines()) v.push_back(e);
        return v;
    }();
    return all;
}

bool picks_gpu(BackendKind kind, const TestPolicy& policy) {
    if (policy.exhaustive && kind == BackendKind::Cuda && cuda_compiled())
        throw InputError("--compat causal-learn runs on the CPU engine only (use --backend cpu or auto)");
    if (policy.student_t && kind == BackendKind::Cuda && cuda_compiled())
        throw InputError(
            "the Student-t test of the partial correlation (bnlearn's cor) runs on the CPU engine only "
            "(use the cpu or auto backend)");
    if ((policy.exhaustive || policy.student_t) && kind == BackendKind::Auto) return false;
    return cudag::picks_gpu(kind);
}

bool gpu_candidate(BackendKind kind, const TestPolicy& policy) {
    return kind != BackendKind::Cpu && !policy.exhaustive && !policy.student_t;
}

bool testwise_on_gpu(TestKind kind) {
    return kind == TestKind::FisherZ || kind == TestKind::ChiSquare || kind == TestKind::GSquare ||
           kind == TestKind::CgLrt || kind == TestKind::CmiKnn || kind == TestKind::Regression;
}

std::unique_ptr<SkeletonEngine> make_engine(const EngineArgs& args) {
    EngineFactory make = nullptr;
    if (args.data.missing > 0 && args.test.kind != TestKind::DSep) {
        // --missing testwise: each test on its own rows; the tests of testwise_on_gpu in batches
        // on a GPU where the backend picks one, single tests on the CPU otherwise.
        bool gpu = false;
        mpi::run_agreed(args.comm, [&] {
            if (args.test.bnlearn_missing) {  // bnlearn's rule: the CPU's single tests
                if (args.backend.kind == BackendKind::Cuda && cuda_compiled())
                    throw InputError(
                        "bnlearn's tests of data with missing values run on the CPU only "
                        "(use the cpu or auto backend)");
            } else if (testwise_on_gpu(args.test.kind)) {
                gpu = picks_gpu(args.backend.kind, args.policy);
            } else if (args.backend.kind == BackendKind::Cuda) {
                throw InputError("--missing testwise runs --test " + args.test.name() +
                                 " on the CPU only for now (use --backend cpu or auto)");
            }
        });
        if (!gpu) return cpu_single_tests(args);
        return make_agreed(args.comm, [&] {
            std::unique_ptr<ci::BatchTest> batch = cuda_testwise_batch(args.data, args.test, args.policy, args.backend);
            if (!batch)
                throw LogicError("the GPU's test-wise " + args.test.name() + " batch is missing from this build");
            return make_batch_test_engine(args.data.n_vars, std::move(batch), args.policy, args.backend.threads,
                                          "cuda");
        });
    }
    mpi::run_agreed(args.comm, [&] {
        // A test without a GPU engine (the d-separation oracle) answers on the CPU: auto
        // picks it, cuda is refused.
        const bool cpu_only = !args.test.traits().gpu;
        if (cpu_only && args.backend.kind == BackendKind::Cuda)
            throw InputError(args.test.traits().data == ci::TestData::Dag
                                 ? "--oracle runs on the CPU only (use --backend cpu or auto)"
                                 : "--test " + args.test.name() + " runs on the CPU only (use --backend cpu or auto)");
        const BackendKind backend =
            !cpu_only && picks_gpu(args.backend.kind, args.policy) ? BackendKind::Cuda : BackendKind::Cpu;
        const auto& reg = engine_registry();
        const auto it = std::find_if(reg.begin(), reg.end(), [&](const EngineEntry& e) {
            return e.test == args.test.kind && e.backend == backend;
        });
        if (it == reg.end())
            throw InputError("--test " + args.test.name() + " has no " + to_string(backend) + " engine");
        make = it->make;
    });
    return make(args);
}

}  // namespace cudag::skeleton
