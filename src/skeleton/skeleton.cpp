// SPDX-License-Identifier: Apache-2.0
// learn_skeleton: the level loop (detail::Search, skeleton/search.hpp; its parts in
// search_level0.cpp, search_levels.cpp, partition.cpp and search_records.cpp).
#include "skeleton/skeleton.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "mpi/partition.hpp"
#include "skeleton/search.hpp"

namespace cudag::skeleton {
namespace detail {

Search::Search(SkeletonEngine& engine, const SkeletonOptions& opt, mpi::Communicator& comm,
               const LevelCallback& on_level, const SkeletonHooks& hooks)
    : engine_(engine),
      opt_(opt),
      pol_(opt.policy),
      comm_(comm),
      on_level_(on_level),
      hooks_(hooks),
      n_(engine.n_vars()),
      dense_(n_ <= opt.dense_pmax_limit),
      g_(n_),
      threads_(std::max(1, opt.threads)) {
    // Device-resident results for an engine that offers them, unless every set of a
    // level is tested (exhaustive: the host unites the sets).
    DeviceResults* dev = opt.policy.exhaustive ? nullptr : engine.device_results();
    if (dev)
        results_ = std::make_unique<DeviceResidentResults>(*dev, comm_, pmax_, log_, trace_);
    else
        results_ = std::make_unique<HostResults>(pol_, n_, comm_, pmax_, log_, trace_);
    distributed_ = opt.distributed_records && comm_.size() > 1;
    if (distributed_) {
        // Record rows: blocks of equal pair counts (row i has the n - 1 - i pairs i < j),
        // the same cut on every rank and at every checkpoint.
        std::vector<double> pairs(static_cast<std::size_t>(n_));
        for (std::int64_t i = 0; i < n_; ++i) pairs[static_cast<std::size_t>(i)] = static_cast<double>(n_ - 1 - i);
        record_cut_ = mpi::partition_rows(pairs, comm_.size()).bounds;
        rows_ = {record_cut_[static_cast<std::size_t>(comm_.rank())],
                 record_cut_[static_cast<std::size_t>(comm_.rank()) + 1]};
    }
}

SkeletonResult Search::run() {
    int first = 1;
    if (!resume(first)) level0();
    for (int l = first;; ++l) {
        if (opt_.max_level >= 0 && l > opt_.max_level) break;
        if ((have_next_ ? next_max_degree_ : g_.max_degree()) - 1 < l) break;
        mpi::run_agreed(comm_, [&] {
            if (opt_.max_supported_level >= 0 && l > opt_.max_supported_level)
                throw InputError("level " + std::to_string(l) + " needs at least " + std::to_string(l + 3) +
                                 " samples (" + opt_.supported_level_reason + "); rerun with --max-level " +
                                 std::to_string(l - 1));
        });
        if (const int ran = engine_levels(l); ran > 0) {
            l += ran - 1;
            continue;
        }
        level(l);
    }
    return finish();
}

Search::TestCount Search::count_tests(std::int64_t mine) {
    if (comm_.size() == 1) return {mine, 1.0};
    const std::vector<std::int64_t> all = comm_.allgather(mine);
    TestCount c;
    std::int64_t busiest = 0;
    for (std::int64_t t : all) {
        c.total += t;
        busiest = std::max(busiest, t);
    }
    if (c.total > 0) c.imbalance = static_cast<double>(busiest) * comm_.size() / static_cast<double>(c.total);
    return c;
}

}  // namespace detail

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, mpi::Communicator& comm,
                              const LevelCallback& on_level, const SkeletonHooks& hooks) {
    return detail::Search(engine, opt, comm, on_level, hooks).run();
}

SkeletonResult learn_skeleton(SkeletonEngine& engine, const SkeletonOptions& opt, const LevelCallback& on_level) {
    mpi::SerialCommunicator serial;
    return learn_skeleton(engine, opt, serial, on_level);
}

}  // namespace cudag::skeleton
