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

/// Visited flags of one path search over g.n() nodes, on this thread's reused array: a new
/// search takes a new stamp instead of clearing n flags, so it costs what it visits (the
/// searches run once per candidate triple; at 100,000 nodes an n-sized clear each time
/// dominated RFCI). One search at a time per thread (checked).
class VisitMarks {
public:
    explicit VisitMarks(std::int32_t n);
    ~VisitMarks();
    VisitMarks(const VisitMarks&) = delete;
    VisitMarks& operator=(const VisitMarks&) = delete;
    bool operator[](std::int32_t v) const { return marks_[static_cast<std::size_t>(v)] == stamp_; }
    void set(std::int32_t v) { marks_[static_cast<std::size_t>(v)] = stamp_; }

private:
    std::uint32_t* marks_;
    std::uint32_t stamp_;
};

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
