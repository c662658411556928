// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/pipeline.hpp"

namespace cudag::bootstrap {

template class BasicReplicatePipeline<ReplicateEdges>;

}  // namespace cudag::bootstrap
