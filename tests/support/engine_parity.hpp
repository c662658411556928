// SPDX-License-Identifier: Apache-2.0
// One parity test body over every available engine of a CI test: the CPU engine with one
// thread is the reference; the CPU engine with two threads and, when this build has CUDA
// and a GPU is visible, the CUDA engine must give the same skeleton, separating sets and
// per-level removals, and pMax within the test's tolerance. Engines come from the
// registry (skeleton::make_engine), so a new test or backend is covered once it is registered.
#pragma once

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "mpi/communicator.hpp"
#include "skeleton/engines.hpp"
#include "skeleton/skeleton.hpp"
#include "support/skeleton_compare.hpp"

namespace cudag::test {

/// One engine to run: a backend and a thread count, with a label for the output.
struct EngineCase {
    std::string label;
    BackendKind backend = BackendKind::Cpu;
    int threads = 1;
};

/// cpu (1 thread, the reference), cpu (2 threads), and cuda when a GPU is visible.
inline std::vector<EngineCase> available_engines() {
    std::vector<EngineCase> out{{"cpu, 1 thread", BackendKind::Cpu, 1}, {"cpu, 2 threads", BackendKind::Cpu, 2}};
    if (visible_gpus() > 0) out.push_back({"cuda, GPU 0", BackendKind::Cuda, 2});
    return out;
}

/// Relative pMax tolerance between engines of `kind`. Skeleton and separating sets are
/// always compared exactly. Fisher-z: the CUDA kernels evaluate the host expressions without
/// FMA contraction, with core/exact_math.hpp's log1p and erfc: p bit for bit
/// (tests/gpu/test_cuda_fisher.cpp); CMIknn: p is a ratio of integer surrogate counts, bit for
/// bit (test_cuda_cmiknn.cpp); chi-square/g-square: the same tables, the strata summed in
/// another order, CUDA's log against glibc's (test_cuda_discrete.cpp).
inline double pmax_tolerance(skeleton::TestKind kind) {
    return kind == skeleton::TestKind::CmiKnn || kind == skeleton::TestKind::FisherZ ? 0.0 : 1e-9;
}

/// The skeleton of `data` under `test` at `alpha` on the engine the registry builds for `c`.
inline skeleton::SkeletonResult engine_skeleton(const Dataset& data, const skeleton::TestSpec& test,
                                                const EngineCase& c, double alpha) {
    skeleton::SkeletonOptions opt;
    opt.policy.alpha = alpha;
    opt.threads = c.threads;
    BackendContext backend;
    backend.kind = c.backend;
    backend.threads = c.threads;
    mpi::SerialCommunicator serial;
    const auto engine =
        skeleton::make_engine(skeleton::EngineArgs{data, test, opt.policy, opt.max_level, backend, serial});
    return skeleton::learn_skeleton(*engine, opt);
}

/// Runs every available engine on `data` and compares each with the first; names the
/// engine and the first mismatch. Prints which engines ran.
inline testing::AssertionResult same_on_every_engine(const Dataset& data, const skeleton::TestSpec& test,
                                                     double alpha) {
    const std::vector<EngineCase> cases = available_engines();
    const skeleton::SkeletonResult want = engine_skeleton(data, test, cases.front(), alpha);
    std::cout << "[ engines  ] " << test.name() << ": " << cases.front().label << " (reference)";
    for (std::size_t k = 1; k < cases.size(); ++k) {
        std::cout << ", " << cases[k].label;
        const skeleton::SkeletonResult got = engine_skeleton(data, test, cases[k], alpha);
        const testing::AssertionResult same = same_result(got, want, pmax_tolerance(test.kind));
        if (!same) {
            std::cout << '\n';
            return testing::AssertionFailure()
                   << test.name() << ", " << cases[k].label << " vs " << cases.front().label << ": " << same.message();
        }
    }
    std::cout << (visible_gpus() > 0 ? "\n" : " (no GPU: CPU only)\n");
    return testing::AssertionSuccess();
}

}  // namespace cudag::test
