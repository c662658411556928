// SPDX-License-Identifier: Apache-2.0
// pcalg's udag2pag, rule by rule. Every loop walks what pcalg's R code walks in the same
// order: `which(M, arr.ind = TRUE)` is column-major (column j ascending, then row i), a
// `which(row)` is ascending, and marks changed inside a loop are seen by its later steps.
#include "fci/rules.hpp"

#include <utility>
#include <vector>

#include "fci/paths.hpp"

namespace cudag::fci {

namespace {



bool in_sepset(const SepSets& s, std::int32_t x, std::int32_t y, std::int32_t b) { return s.contains(x, y, b); }

bool circ_or_arrow(std::uint8_t m) { return m == kCircle || m == kArrow; }
bool circ_or_tail(std::uint8_t m) { return m == kCircle || m == kTail; }

void rule1(Pag& g, const TripleSet& unf) {
    for (const auto& [a, b] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(i, j) == kArrow; })) {
        std::vector<std::int32_t> ind_c;
        for (const std::int32_t c : g.neighbours(b))
            if (c != a && g(c, b) == kCircle && !g.adjacent(a, c)) ind_c.push_back(c);
        for (const std::int32_t c : ind_c) {
            if (!unf.empty() && unf.contains_either(a, b, c)) continue;
            g.set(b, c, kArrow);
            g.set(c, b, kTail);
        }
    }
}

void rule2(Pag& g) {
    for (const auto& [a, c] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(i, j) == kCircle; })) {
        bool any = false;
        for (const std::int32_t b : g.neighbours(a)) {
            const std::uint8_t ab = g(a, b), ba = g(b, a), cb = g(c, b), bc = g(b, c);
            if ((ab == kArrow && ba == kTail && cb != kNone && bc == kArrow) ||
                (ab == kArrow && ba != kNone && cb == kTail && bc == kArrow)) {
                any = true;
                break;
            }
        }
        if (any) g.set(a, c, kArrow);
    }
}

void rule3(Pag& g, const TripleSet& unf) {
    for (const auto& [b, d] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(j, i) == kCircle; })) {
        std::vector<std::int32_t> ac;
        for (const std::int32_t a : g.neighbours(b))
            if (g(a, b) == kArrow && g(a, d) == kCircle) ac.push_back(a);
        if (ac.size() < 2) continue;
        const std::size_t n = ac.size();
        if (unf.empty()) {
            for (std::size_t i = 0; i + 1 < n && g(d, b) != kArrow; ++i)
                for (std::size_t k = i + 1; k < n && g(d, b) != kArrow; ++k)
                    if (!g.adjacent(ac[i], ac[k])) g.set(d, b, kArrow);
        } else {
            for (std::size_t i = 0; i + 1 < n; ++i)
                for (std::size_t k = i + 1; k < n; ++k)
                    if (!g.adjacent(ac[i], ac[k]) && !unf.contains_either(ac[i], d, ac[k])) g.set(d, b, kArrow);
        }
    }
}

void rule4(Pag& g, const SepSets& sepsets) {
    for (const auto& [b, c] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(j, i) == kCircle; })) {
        std::vector<std::int32_t> ind_a;
        for (const std::int32_t a : g.neighbours(b))
            if (g(b, a) == kArrow && g(c, a) == kTail && g(a, c) == kArrow) ind_a.push_back(a);
        for (std::size_t k = 0; k < ind_a.size() && g(c, b) == kCircle; ++k) {
            const std::int32_t a = ind_a[k];
            if (!(g.adjacent(a, b) && g.adjacent(a, c) && g.adjacent(b, c))) continue;
            const auto d = min_discr_path(g, a, b, c);
            if (!d) continue;
            if (in_sepset(sepsets, *d, c, b)) {
                g.set(b, c, kArrow);
                g.set(c, b, kTail);
            } else {
                g.set(b, c, kArrow);
                g.set(c, b, kArrow);
                g.set(a, b, kArrow);  // pcalg (jci "0") sets it even over a tail
            }
        }
    }
}

void tails(Pag& g, std::int32_t x, std::int32_t y) {
    g.set(x, y, kTail);
    g.set(y, x, kTail);
}

void rule5(Pag& g, const TripleSet& unf) {
    for (const auto& [a, b] :
         which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(i, j) == kCircle && g(j, i) == kCircle; })) {
        std::vector<std::int32_t> ind_c, ind_d;
        for (const std::int32_t c : g.neighbours(a))
            if (c != b && g(a, c) == kCircle && g(c, a) == kCircle && !g.adjacent(b, c)) ind_c.push_back(c);
        for (const std::int32_t d : g.neighbours(b))
            if (d != a && g(b, d) == kCircle && g(d, b) == kCircle && !g.adjacent(a, d)) ind_d.push_back(d);
        if (ind_c.empty() || ind_d.empty()) continue;
        for (std::size_t ic = 0; ic < ind_c.size() && g(a, b) == kCircle; ++ic) {
            const std::int32_t c = ind_c[ic];
            for (std::size_t id = 0; id < ind_d.size() && g(a, b) == kCircle; ++id) {
                const std::int32_t d = ind_d[id];
                if (g(c, d) == kCircle && g(d, c) == kCircle) {
                    const std::int32_t path[] = {a, c, d, b};
                    if (unf.empty() || faithful(path, unf)) {
                        tails(g, a, b);
                        tails(g, a, c);
                        tails(g, c, d);
                        tails(g, d, b);
                    }
                } else {
                    const std::vector<std::int32_t> ucp = min_uncov_circ_path(g, a, c, d, b, unf);
                    if (ucp.size() > 1) {
                        tails(g, ucp.front(), ucp.back());
                        for (std::size_t j = 0; j + 1 < ucp.size(); ++j) tails(g, ucp[j], ucp[j + 1]);
                    }
                }
            }
        }
    }
}

void rule6(Pag& g) {
    for (const auto& [b, c] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(j, i) == kCircle; })) {
        bool any = false;
        for (const std::int32_t a : g.neighbours(b))
            if (g(b, a) == kTail && g(a, b) == kTail) {
                any = true;
                break;
            }
        if (any) g.set(c, b, kTail);
    }
}

void rule7(Pag& g, const TripleSet& unf) {
    for (const auto& [b, c] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(j, i) == kCircle; })) {
        std::vector<std::int32_t> ind_a;
        for (const std::int32_t a : g.neighbours(b))
            if (a != c && g(b, a) == kTail && g(a, b) == kCircle && !g.adjacent(c, a)) ind_a.push_back(a);
        if (ind_a.empty()) continue;
        if (unf.empty()) {
            g.set(c, b, kTail);
        } else {
            for (const std::int32_t a : ind_a)
                if (!unf.contains_either(a, b, c)) g.set(c, b, kTail);
        }
    }
}

auto circle_arrow(const Pag& g) {
    return [&g](std::int32_t i, std::int32_t j) { return g(i, j) == kArrow && g(j, i) == kCircle; };
}

void rule8(Pag& g) {
    for (const auto& [a, c] : which_pairs(g, circle_arrow(g))) {
        bool any = false;
        for (const std::int32_t b : g.neighbours(a)) {
            const std::uint8_t ab = g(a, b);
            if (g(b, a) == kTail && (ab == kArrow || ab == kCircle) && g(c, b) == kTail && g(b, c) == kArrow) {
                any = true;
                break;
            }
        }
        if (any) g.set(c, a, kTail);
    }
}

void rule9(Pag& g, const TripleSet& unf) {
    for (const auto& [a, c] : which_pairs(g, circle_arrow(g))) {
        std::vector<std::int32_t> ind_b;
        for (const std::int32_t b : g.neighbours(a))
            if (b != c && circ_or_arrow(g(a, b)) && circ_or_tail(g(b, a)) && !g.adjacent(c, b)) ind_b.push_back(b);
        for (std::size_t k = 0; k < ind_b.size() && g(c, a) == kCircle; ++k)
            if (min_uncov_pd_path(g, a, ind_b[k], c, unf).size() > 1) g.set(c, a, kTail);
    }
}

void rule10(Pag& g, const TripleSet& unf, bool shortcut) {
    for (const auto& [a, c] : which_pairs(g, circle_arrow(g))) {
        std::vector<std::int32_t> ind_b;
        for (const std::int32_t b : g.neighbours(c))
            if (g(c, b) == kTail && g(b, c) == kArrow) ind_b.push_back(b);
        if (ind_b.size() < 2) continue;
        for (std::size_t kb = 0; kb < ind_b.size() && g(c, a) == kCircle; ++kb) {
            const std::int32_t b = ind_b[kb];
            for (std::size_t kd = 0; kd < ind_b.size() && g(c, a) == kCircle; ++kd) {
                if (kd == kb) continue;
                const std::int32_t d = ind_b[kd];
                if (circ_or_arrow(g(a, b)) && circ_or_tail(g(b, a)) && circ_or_arrow(g(a, d)) &&
                    circ_or_tail(g(d, a)) && !g.adjacent(d, b)) {
                    if (unf.empty() || !unf.contains_either(b, a, d)) g.set(c, a, kTail);
                    continue;
                }
                std::vector<std::int32_t> ind_x;
                for (const std::int32_t x : g.neighbours(a))
                    if (x != c && circ_or_arrow(g(a, x)) && circ_or_tail(g(x, a))) ind_x.push_back(x);
                for (std::size_t k1 = 0; k1 < ind_x.size() && g(c, a) == kCircle; ++k1) {
                    const std::int32_t first = ind_x[k1];
                    for (std::size_t k2 = 0; k2 < ind_x.size() && g(c, a) == kCircle; ++k2) {
                        if (k2 == k1) continue;
                        const std::int32_t second = ind_x[k2];
                        const bool t1 = (shortcut && first == b) || min_uncov_pd_path(g, a, first, b, unf).size() > 1;
                        if (!t1) continue;
                        const bool t2 = (shortcut && second == d) || min_uncov_pd_path(g, a, second, d, unf).size() > 1;
                        if (t2 && first != second && !g.adjacent(first, second) &&
                            (unf.empty() || !unf.contains_either(first, a, second)))
                            g.set(c, a, kTail);
                    }
                }
            }
        }
    }
}

template <class Step>
void to_fixed_point(Pag& g, Step&& step) {
    for (;;) {
        const Pag before = g;
        step();
        if (g == before) return;
    }
}

}  // namespace

void orient_colliders(Pag& g, const SepSets& sepsets, const TripleSet& unf) {
    for (const auto& [x, y] : which_pairs(g, [&](std::int32_t i, std::int32_t j) { return g(i, j) == kCircle; }))
        for (const std::int32_t z : g.neighbours(y)) {
            if (z == x || g.adjacent(x, z) || in_sepset(sepsets, x, z, y)) continue;
            if (!unf.empty() && unf.contains_either(x, y, z)) continue;
            g.set(x, y, kArrow);
            g.set(z, y, kArrow);
        }
}

void apply_rules(Pag& g, const SepSets& sepsets, const TripleSet& unf, const RuleOptions& opt) {
    if (g.n_edges() == 0) return;
    const auto& r = opt.rules;
    to_fixed_point(g, [&] {
        if (r[0]) rule1(g, unf);
        if (r[1]) rule2(g);
        if (r[2]) rule3(g, unf);
        if (r[3]) rule4(g, sepsets);
    });
    to_fixed_point(g, [&] {
        if (r[4]) rule5(g, unf);
        if (r[5]) rule6(g);
        if (r[6]) rule7(g, unf);
    });
    to_fixed_point(g, [&] {
        if (r[7]) rule8(g);
        if (r[8]) rule9(g, unf);
        if (r[9]) rule10(g, unf, true);
    });
}

void apply_rule10(Pag& g, const TripleSet& unf, bool udag2pag_shortcut) { rule10(g, unf, udag2pag_shortcut); }

void apply_rule(int rule, Pag& g, const SepSets& sepsets, const TripleSet& unf) {
    switch (rule) {
        case 1:
            rule1(g, unf);
            break;
        case 2:
            rule2(g);
            break;
        case 3:
            rule3(g, unf);
            break;
        case 4:
            rule4(g, sepsets);
            break;
        case 5:
            rule5(g, unf);
            break;
        case 6:
            rule6(g);
            break;
        case 7:
            rule7(g, unf);
            break;
        case 8:
            rule8(g);
            break;
        case 9:
            rule9(g, unf);
            break;
        case 10:
            rule10(g, unf, true);
            break;
        default:
            break;
    }
}

void udag2pag(Pag& g, const SepSets& sepsets, const TripleSet& unf, const RuleOptions& opt) {
    if (g.n_edges() == 0) return;
    orient_colliders(g, sepsets, unf);
    apply_rules(g, sepsets, unf, opt);
}

}  // namespace cudag::fci
