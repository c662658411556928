// SPDX-License-Identifier: Apache-2.0
// The path searches of the FCI orientation rules, as pcalg runs them (breadth first, in
// pcalg's order, so that the first path found is pcalg's): discriminating paths (R4),
// uncovered circle paths (R5) and uncovered potentially directed paths (R9, R10).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/pag.hpp"
#include "fci/triples.hpp"

namespace cudag::fci {

using namespace cudag::marks;

/// pcalg's minDiscrPath(pag, a, b, c): the first node d (breadth first from a) that ends a
/// discriminating path for b (d ... a, b, c with d not adjacent to c), or none. pcalg keeps
/// only the last two nodes of each queued path; so does this.
std::optional<std::int32_t> min_discr_path(const Pag& g, std::int32_t a, std::int32_t b, std::int32_t c);

/// pcalg's minUncovPdPath(p, pag, a, b, c, unfVect): a minimal uncovered potentially
/// directed path a, b, ..., c (every triple on it unambiguous when `unf` is not empty), or
/// an empty vector. Requires a (o-)--(o>) b.
std::vector<std::int32_t> min_uncov_pd_path(const Pag& g, std::int32_t a, std::int32_t b, std::int32_t c,
                                            const TripleSet& unf);

/// pcalg's minUncovCircPath(p, pag, path = (a, c, d, b), unfVect): a minimal uncovered circle
/// path a, c, ..., d, b, or an empty vector.
std::vector<std::int32_t> min_uncov_circ_path(const Pag& g, std::int32_t a, std::int32_t c, std::int32_t d,
                                              std::int32_t b, const TripleSet& unf);

/// pcalg's faith.check(cp, unfVect, p): no triple of the circular path `cp` (consecutive,
/// wrapping around) is ambiguous, except that, as in pcalg, the triple that starts at the
/// path's last node (cp[n-1], cp[0], cp[1]) is not checked.
bool faithful(std::span<const std::int32_t> cp, const TripleSet& unf);

}  // namespace cudag::fci
