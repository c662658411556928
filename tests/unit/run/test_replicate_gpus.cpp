// SPDX-License-Identifier: Apache-2.0
// run::replicate_gpus: the GPUs a rank runs a bootstrap's replicates on. The ranks of a
// node share its GPUs without overlap and without leaving one out; a node with no more
// GPUs than ranks keeps each rank on the GPU it is bound to.
#include <gtest/gtest.h>

#include <vector>

#include "run/context.hpp"

namespace cudag {
namespace {

TEST(ReplicateGpus, OneProcessTakesEveryVisibleGpu) {
    EXPECT_EQ(run::replicate_gpus(4, 0, 1, 0), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(run::replicate_gpus(1, 0, 1, 0), (std::vector<int>{0}));
    EXPECT_EQ(run::replicate_gpus(0, 0, 1, 0), (std::vector<int>{0}));  // no GPU: the engine reports it
}

TEST(ReplicateGpus, RanksOfANodeShareItsGpusWithoutOverlap) {
    for (int visible : {2, 3, 4, 5, 8})
        for (int ranks = 1; ranks < visible; ++ranks) {
            std::vector<int> seen(static_cast<std::size_t>(visible), 0);
            for (int r = 0; r < ranks; ++r) {
                const std::vector<int> mine = run::replicate_gpus(visible, r, ranks, r);
                ASSERT_FALSE(mine.empty());
                EXPECT_EQ(mine.front(), r) << "the bound GPU comes first";
                for (int d : mine) ++seen[static_cast<std::size_t>(d)];
            }
            for (int d = 0; d < visible; ++d)
                EXPECT_EQ(seen[static_cast<std::size_t>(d)], 1)
                    << "GPU " << d << " of " << visible << ", " << ranks << " ranks";
        }
    EXPECT_EQ(run::replicate_gpus(4, 1, 2, 1), (std::vector<int>{1, 3}));
}

TEST(ReplicateGpus, AsManyRanksAsGpusOrMoreKeepTheirOwn) {
    EXPECT_EQ(run::replicate_gpus(4, 2, 4, 2), (std::vector<int>{2}));
    EXPECT_EQ(run::replicate_gpus(2, 3, 4, 1), (std::vector<int>{1}));  // ranks sharing GPUs
    EXPECT_EQ(run::replicate_gpus(4, 0, 0, 0), (std::vector<int>{0}));  // no node size: bound GPU
}

}  // namespace
}  // namespace cudag
