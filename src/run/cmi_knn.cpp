// SPDX-License-Identifier: Apache-2.0
#include "run/cmi_knn.hpp"

#include "core/error.hpp"

namespace cudag::run {

ci::CmiKnnSpec cmi_knn_spec(const CmiKnnJob& o, std::optional<ci::TestKind> test) {
    if (test != ci::TestKind::CmiKnn && !o.given.empty()) {
        std::string why = o.given.front() + " applies to --test cmiknn only";
        if (test) {
            why += " (the test is ";
            why += ci::to_string(*test);
            why += ")";
        } else {
            why += " (give --test cmiknn)";
        }
        throw InputError(why);
    }
    ci::CmiKnnSpec spec = o.spec;
    spec.early_stop.reset();
    return spec;
}

}  // namespace cudag::run
