// SPDX-License-Identifier: Apache-2.0
// The registry's CUDA entries (kernels/), compiled only in a CUDA build
// (src/skeleton/engines_nocuda.cpp otherwise).
#include "kernels/engines.hpp"
#include "kernels/regression_batch.hpp"
#include "skeleton/batch_test_engine.hpp"
#include "skeleton/engines.hpp"

namespace cudag::skeleton {

namespace {

cuda::FisherTunables fisher_tunables(const BackendContext& b) {
    cuda::FisherTunables t = b.tunables.fisher;
    t.host_threads = b.threads;
    t.own_stream = b.own_stream;
    return t;
}

// One rank, or GPU ranks: each computes its block of C's rows and the blocks are
// all-gathered (with NCCL); a failure on any rank is agreed on inside.
std::unique_ptr<SkeletonEngine> cuda_fisher(const EngineArgs& a) {
    return cuda::make_fisher_engine(a.data, a.policy, fisher_tunables(a.backend), a.backend.device, &a.comm);
}

std::unique_ptr<SkeletonEngine> cuda_discrete(const EngineArgs& a) {
    return make_agreed(a.comm, [&] {
        return cuda::make_discrete_engine(a.data, a.policy, a.test.discrete, a.backend.tunables.discrete,
                                          a.backend.device);
    });
}

std::unique_ptr<SkeletonEngine> cuda_cmiknn(const EngineArgs& a) {
    return make_agreed(
        a.comm, [&] { return cuda::make_cmiknn_engine(a.data, a.policy, a.test.cmi, a.max_level, a.backend.device); });
}

// cg-lrt: the search's tests in large batches (skeleton::BatchTestEngine) on the GPU batch,
// each rank its own GPU and its share of every level.
std::unique_ptr<SkeletonEngine> cuda_cg_lrt(const EngineArgs& a) {
    return make_agreed(a.comm, [&] {
        return make_batch_test_engine(a.data.n_vars,
                                      cuda::make_cg_lrt_batch(a.data, a.backend.device, a.backend.threads), a.policy,
                                      a.backend.threads, "cuda");
    });
}

// regression: as cg-lrt, on the GPU batch of kernels/regression_batch.cu.
std::unique_ptr<SkeletonEngine> cuda_regression(const EngineArgs& a) {
    return make_agreed(a.comm, [&] {
        const Compat compat = a.policy.causal_learn_pvalue ? Compat::CausalLearn : Compat::Pcalg;
        return make_batch_test_engine(
            a.data.n_vars, cuda::make_regression_batch(a.data, a.test, compat, a.backend.threads, a.backend.device),
            a.policy, a.backend.threads, "cuda");
    });
}

}  // namespace

std::vector<EngineEntry> cuda_engines() {
    return {
        {TestKind::FisherZ, BackendKind::Cuda, cuda_fisher},
        {TestKind::ChiSquare, BackendKind::Cuda, cuda_discrete},
        {TestKind::GSquare, BackendKind::Cuda, cuda_discrete},
        {TestKind::CmiKnn, BackendKind::Cuda, cuda_cmiknn},
        {TestKind::CgLrt, BackendKind::Cuda, cuda_cg_lrt},
        {TestKind::Regression, BackendKind::Cuda, cuda_regression},
    };
}

std::unique_ptr<ci::BatchTest> cuda_testwise_batch(const Dataset& data, const TestSpec& test, const TestPolicy& policy,
                                                   const BackendContext& backend) {
    switch (test.kind) {
        case TestKind::FisherZ:
            return cuda::make_fisher_testwise_batch(data, test,
                                                    policy.causal_learn_pvalue ? Compat::CausalLearn : Compat::Pcalg,
                                                    backend.threads, backend.device);
        // χ², G² and cg-lrt: kernels/discrete_testwise_batch.cu, kernels/cg_lrt_batch.cu.
        case TestKind::ChiSquare:
        case TestKind::GSquare:
            return cuda::make_discrete_testwise_batch(data, test, backend.threads, backend.device);
        case TestKind::CgLrt:
            return cuda::make_cg_lrt_batch(data, backend.device, backend.threads);
        // CMIknn: kernels/cmi_knn_testwise_batch.cu.
        case TestKind::CmiKnn:
            return cuda::make_cmiknn_testwise_batch(data, test, backend.threads, backend.device);
        // regression: kernels/regression_batch.cu.
        case TestKind::Regression:
            return cuda::make_regression_batch(data, test,
                                               policy.causal_learn_pvalue ? Compat::CausalLearn : Compat::Pcalg,
                                               backend.threads, backend.device);
        default:
            return nullptr;
    }
}

}  // namespace cudag::skeleton
