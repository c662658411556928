// SPDX-License-Identifier: Apache-2.0
#include "pc/replicate_pipeline.hpp"

namespace cudag::pc {

template class BasicReplicatePipeline<Pdag>;

}  // namespace cudag::pc
