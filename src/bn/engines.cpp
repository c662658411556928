// SPDX-License-Identifier: Apache-2.0
#include "bn/engines.hpp"

namespace cudag::bn {

McmcEngines pick_mcmc_engines(const LocalScorer& scorer, const PriorScorer& prior, int max_parents, bool gpu,
                              int device) {
    McmcEngines e;
    e.device = device;
    if (!gpu) return e;
    if (const auto* d = dynamic_cast<const DiscreteScorer*>(&scorer))
        e.filler = cuda_table_filler(*d, prior, device);
    else if (const auto* b = dynamic_cast<const BgeScorer*>(&scorer))
        e.filler = cuda_table_filler(*b, prior, device);
    else if (const auto* c = dynamic_cast<const CgBicScorer*>(&scorer))
        e.filler = cuda_table_filler(*c, prior, device);
    if (max_parents <= kMaxGpuParents) {
        e.sorter = cuda_table_sorter(device);
        e.gpu_chains = true;
    }
    return e;
}

}  // namespace cudag::bn
