// SPDX-License-Identifier: Apache-2.0
#include "pcmci/rank_split.hpp"

#include <vector>

namespace cudag::pcmci {

void RankSplitBatch::run(const ci::Queries& queries, std::span<double> statistic, std::span<double> p) {
    const std::size_t n = queries.size();
    const auto ranks = static_cast<std::size_t>(comm_.size());
    const auto me = static_cast<std::size_t>(comm_.rank());
    // Rank r answers [n·r / ranks, n·(r + 1) / ranks): the same cut on every rank.
    std::vector<std::size_t> counts(ranks);
    for (std::size_t r = 0; r < ranks; ++r) counts[r] = n * (r + 1) / ranks - n * r / ranks;
    const std::size_t begin = n * me / ranks, end = n * (me + 1) / ranks;
    std::vector<double> st(end - begin), pv(end - begin);
    mpi::run_agreed(comm_, [&] {
        if (end > begin) local_->run(queries.slice(begin, end), st, pv);
    });
    comm_.allgatherv(st.data(), statistic.data(), counts, mpi::DataType::Float64);
    comm_.allgatherv(pv.data(), p.data(), counts, mpi::DataType::Float64);
}

}  // namespace cudag::pcmci
