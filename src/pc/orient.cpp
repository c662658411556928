// SPDX-License-Identifier: Apache-2.0
// Orientation phase of PC. Both families reproduce their peers' semantics (not
// their code): wherever the order of the candidates can decide the output
// (conflicting v-structures, rules that read their own writes) they are taken in
// the peer's order; what cannot depend on it is computed up front, on threads
// for pcalg. Comments name the peer function each part reproduces;
// tests/support/orient_reference.hpp is the plain version both are tested against.
//
// The families live in orient_pcalg.cpp, orient_causal_learn.cpp and orient_bnlearn.cpp;
// this file dispatches.
#include "pc/orient.hpp"

#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "pc/orient_detail.hpp"

namespace cudag::pc {

Pdag orient(const Graph& skeleton, const SepSets& sepsets, const OrientOptions& opt, const PValueFn& pvalue) {
    CUDAG_EXPECTS(skeleton.n() <= std::numeric_limits<std::int32_t>::max(),
                  "orientation supports at most 2^31 - 1 variables");
    switch (opt.rule) {
        case UcRule::Pcalg:
            if (opt.knowledge && opt.knowledge->has_directions())
                return detail::orient_with_knowledge(skeleton, sepsets, *opt.knowledge);
            return detail::orient_pcalg(skeleton, sepsets, resolve_threads(opt.threads), opt.ambiguous);
        case UcRule::Bnlearn:
            return detail::orient_bnlearn(skeleton, sepsets, opt, pvalue);
        case UcRule::Sepset:
        case UcRule::MaxP:
        case UcRule::DefiniteMaxP:
            CUDAG_EXPECTS(opt.uc_priority >= -1 && opt.uc_priority <= 4,
                          "uc_priority must be in -1..4, got " + std::to_string(opt.uc_priority));
            return detail::orient_causal_learn(skeleton, sepsets, opt, pvalue);
    }
    throw InputError("unknown collider rule " + std::to_string(static_cast<int>(opt.rule)));
}

}  // namespace cudag::pc
