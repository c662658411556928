// SPDX-License-Identifier: Apache-2.0
#include "run/cmi_knn.hpp"

#include "core/error.hpp"

namespace cudag::run {

ci::CmiKnnSpec cmi_knn_spec(const CmiKnnJob& o, const std::string& test) {
    if (test != "cmiknn" && !o.given.empty())
        throw InputError(o.given.front() + " applies to --test cmiknn only" +
                         (test.empty() ? std::string(" (give --test cmiknn)") : " (the test is " + test + ")"));
    ci::CmiKnnSpec spec = o.spec;
    spec.transform = ci::parse_cmi_transform(o.transform);
    spec.permute = ci::parse_cmi_permute(o.permute);
    spec.early_stop.reset();
    return spec;
}

}  // namespace cudag::run
