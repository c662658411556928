// SPDX-License-Identifier: Apache-2.0
#include "pc/pag_metrics.hpp"

#include <charconv>
#include <cstdio>
#include <utility>

#include "core/error.hpp"

namespace cudag::pc {

namespace {

std::string real(double x) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, res.ptr);
}

void count(MarkScore& s, Mark kind, Mark truth, Mark estimate) {
    s.in_truth += truth == kind;
    s.in_estimate += estimate == kind;
    s.correct += truth == kind && estimate == kind;
}

void finish(MarkScore& s) {
    s.precision = s.in_estimate > 0 ? static_cast<double>(s.correct) / static_cast<double>(s.in_estimate) : 0.0;
    s.recall = s.in_truth > 0 ? static_cast<double>(s.correct) / static_cast<double>(s.in_truth) : 0.0;
}

}  // namespace

Pdag cpdag_as_pag(const Pdag& cpdag) {
    Pdag out = cpdag;
    for (std::int32_t i = 0; i < cpdag.n(); ++i)
        for (const std::int32_t j : cpdag.neighbours(i)) {
            CUDAG_EXPECTS(cpdag.end(i, j) != Mark::Circle, "cpdag_as_pag: the graph already has a circle mark");
            if (i < j && cpdag.is_undirected(i, j)) out.set(i, j, Mark::Circle, Mark::Circle);
        }
    return out;
}

PagComparison compare_pags(const Pdag& truth, const Pdag& estimate) {
    PagComparison c;
    // Adjacencies and the SHD: compare_graphs already counts a shared pair once when either
    // end's mark differs, whatever the marks are.
    c.skeleton = compare_graphs(truth, estimate);
    for (std::int32_t i = 0; i < truth.n(); ++i)
        for (const std::int32_t j : truth.neighbours(i)) {
            if (!estimate.adjacent(i, j)) continue;
            // The endpoint at j of the edge i–j (each shared edge is seen from both ends).
            const Mark t = truth.end(j, i);
            const Mark e = estimate.end(j, i);
            count(c.arrow, Mark::Arrow, t, e);
            count(c.tail, Mark::Tail, t, e);
            count(c.circle, Mark::Circle, t, e);
        }
    for (MarkScore* s : {&c.arrow, &c.tail, &c.circle}) finish(*s);
    return c;
}

std::string pag_comparison_table(const PagComparison& c) {
    std::string out = comparison_table(c.skeleton);
    char buf[128];
    std::snprintf(buf, sizeof buf, "marks on the %lld edges in both graphs (%lld endpoints):\n",
                  static_cast<long long>(c.skeleton.tp), static_cast<long long>(2 * c.skeleton.tp));
    out += buf;
    std::snprintf(buf, sizeof buf, "%-16s %6s %9s %8s %10s %7s\n", "mark", "truth", "estimate", "correct", "precision",
                  "recall");
    out += buf;
    const std::pair<const char*, const MarkScore*> rows[] = {
        {"arrowhead", &c.arrow}, {"tail", &c.tail}, {"circle", &c.circle}};
    for (const auto& [name, s] : rows) {
        std::snprintf(buf, sizeof buf, "%-16s %6lld %9lld %8lld %10.4f %7.4f\n", name,
                      static_cast<long long>(s->in_truth), static_cast<long long>(s->in_estimate),
                      static_cast<long long>(s->correct), s->precision, s->recall);
        out += buf;
    }
    return out;
}

std::string pag_comparison_json(const PagComparison& c) {
    std::string out = comparison_json(c.skeleton);
    out.pop_back();  // the closing brace
    out += ", \"shared_endpoints\": ";
    out += std::to_string(2 * c.skeleton.tp);
    const std::pair<const char*, const MarkScore*> rows[] = {
        {"arrow", &c.arrow}, {"tail", &c.tail}, {"circle", &c.circle}};
    for (const auto& [name, s] : rows) {
        const auto key = [&out, name = std::string(name)](const char* what) {
            out += ", \"";
            out += name;
            out += '_';
            out += what;
            out += "\": ";
        };
        key("truth");
        out += std::to_string(s->in_truth);
        key("estimate");
        out += std::to_string(s->in_estimate);
        key("correct");
        out += std::to_string(s->correct);
        key("precision");
        out += real(s->precision);
        key("recall");
        out += real(s->recall);
    }
    out += '}';
    return out;
}

}  // namespace cudag::pc
