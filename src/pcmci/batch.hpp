// SPDX-License-Identifier: Apache-2.0
// The batches of PCMCI and PCMCI+ (pcmci.cpp, pcmciplus.cpp): queries laid flat with their
// answers, run through a ci::BatchTest in slices so that progress is told while a phase runs.
//
// A slice's size adapts to the test's speed: it starts at 16 queries (a slow test such as
// CMIknn shows progress within seconds), doubles while a slice takes under half a second (up
// to 2^22) and halves when one takes over two seconds. The size is kept from one batch to the
// next of a phase (SliceSize), so a phase of many small batches (the MCI skeleton's rounds)
// does not start each of them at 16 queries. Each test is a function of its query alone: the
// answers do not depend on the slicing. Under MPI every rank runs the same phase and each call
// is a collective (pcmci::RankSplitBatch): the time that sizes the next slice is agreed
// (BatchTest::agreed_max), so the ranks cut their batches alike.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "ci/batch.hpp"
#include "core/interrupt.hpp"
#include "pcmci/lagged.hpp"
#include "pcmci/pcmci.hpp"

namespace cudag::pcmci {

/// The slice size of one phase's batches (see above).
struct SliceSize {
    std::size_t queries = 16;
};

/// Queries of one batch with their answers.
struct Batch {
    ci::QueryList queries;
    std::vector<double> statistic, p;

    /// x ⟂ y | z over the lagged table's columns.
    void add(const LaggedData& lagged, Node x, Node y, const std::vector<Node>& z) {
        queries.x.push_back(lagged.column(x));
        queries.y.push_back(lagged.column(y));
        for (const Node n : z) queries.nodes.push_back(lagged.column(n));
        queries.offsets.push_back(static_cast<std::int64_t>(queries.nodes.size()));
    }

    /// Every query, in slices of `slice` (adapted as it goes); `progress` told after each
    /// slice with done_before + the queries answered so far.
    void run(ci::BatchTest& tests, SliceSize& slice, const char* phase, std::int64_t done_before, std::int64_t planned,
             const ProgressFn& progress) {
        statistic.assign(queries.size(), 0.0);
        p.assign(queries.size(), 0.0);
        const ci::Queries all = queries.view();
        for (std::size_t begin = 0; begin < all.size();) {
            const std::size_t end = std::min(all.size(), begin + slice.queries);
            const auto t0 = std::chrono::steady_clock::now();
            tests.run(all.slice(begin, end), std::span<double>(statistic).subspan(begin, end - begin),
                      std::span<double>(p).subspan(begin, end - begin));
            // Only a full slice says how fast the test is (a batch's short tail does not). The
            // ranks of an MPI run must cut alike: the time is the slowest rank's.
            if (end - begin == slice.queries) {
                const double took = tests.agreed_max(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                if (took < 0.5 && slice.queries < (std::size_t{1} << 22))
                    slice.queries *= 2;
                else if (took > 2.0 && slice.queries > 16)
                    slice.queries /= 2;
            }
            begin = end;
            if (progress) progress(phase, done_before + static_cast<std::int64_t>(end), planned);
            // Ctrl-C in a binding (a PollScope on this thread): looked at after every slice too
            // (a GPU batch test does not look inside a slice; the CPU's looks between queries,
            // ci/batch.cpp, and CMIknn between surrogates).
            interrupt::poll_waiting();
        }
    }
};

}  // namespace cudag::pcmci
