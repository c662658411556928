// SPDX-License-Identifier: Apache-2.0
#include "run/cmi_knn.hpp"

#include "core/error.hpp"

namespace cudag::run {

ci::CmiKnnSpec cmi_knn_spec(const CmiKnnJob& o, std::optional<ci::TestKind> test) {
    if (test != ci::TestKind::CmiKnn && !o.given.empty())
        throw InputError(o.given.front() + " applies to --test cmiknn only" +
                         (!test ? std::string(" (give --test cmiknn)") : " (the test is " + ci::to_string(*test) + ")"));
    ci::CmiKnnSpec spec = o.spec;
    spec.early_stop.reset();
    return spec;
}

}  // namespace cudag::run
