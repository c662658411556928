// SPDX-License-Identifier: Apache-2.0
#include "bootstrap/table.hpp"

#include <array>
#include <cstdio>

#include "core/error.hpp"
#include "io/writers.hpp"

namespace cudag::bootstrap {

namespace {

/// The kinds' columns (1 .. 9) from the least committal on: the consensus PAG's ties go to
/// the first (o-o, o->, <-o, -->, <--, <->, ---, o--, --o).
constexpr std::array<int, kPagKinds - 1> kTieOrder{3, 1, 2, 4, 5, 6, 7, 8, 9};

}  // namespace

int pag_kind(const Pag& g, std::int32_t i, std::int32_t j) {
    if (!g.adjacent(i, j)) return 0;
    const std::string s = edge_string(g, i, j);
    const auto& kinds = edge_kinds();
    for (std::size_t k = 0; k < kinds.size(); ++k)
        if (kinds[k] == s) return static_cast<int>(k) + 1;
    std::string what = "pag_kind: edge '";
    what += s;
    what += "' is not one of edge_kinds()";
    throw LogicError(what);
}

Pag consensus_pag(const Table& t, std::int64_t n) {
    CUDAG_EXPECTS(t.pag && t.counts.size() == t.size() * kPagKinds, "consensus_pag: not a PAG bootstrap's table");
    Pag g(static_cast<std::int32_t>(n));
    const double replicates = static_cast<double>(t.replicates);
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kPagKinds * e;
        const std::int64_t adjacent = static_cast<std::int64_t>(t.replicates) - c[0];
        // A quotient, correctly rounded, as consensus_graph compares it.
        if (adjacent == 0 || static_cast<double>(adjacent) / replicates < t.consensus) continue;
        int best = kTieOrder[0];
        for (const int k : kTieOrder)
            if (c[k] > c[best]) best = k;
        std::uint8_t at_i = 0, at_j = 0;
        const bool ok = parse_edge_string(edge_kinds()[static_cast<std::size_t>(best) - 1], at_i, at_j);
        CUDAG_ASSERT(ok);
        g.add(i, j, at_i, at_j);
    }
    return g;
}

void write_pag_frequencies_tsv(const Table& t, const Pag& consensus, const std::vector<std::string>& names,
                               const std::string& path) {
    CUDAG_EXPECTS(t.pag && t.counts.size() == t.size() * kPagKinds, "write_pag_frequencies_tsv: not a PAG table");
    io::TextFile f(path);
    std::string header = "source\ttarget\tadjacency\tnone";
    for (const auto& k : edge_kinds()) {
        header += '\t';
        header += k;
    }
    header += "\tconsensus\n";
    f.write(header);
    const double replicates = static_cast<double>(t.replicates);
    std::string line;
    char num[32];
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kPagKinds * e;
        line = io::tsv_escape(names[static_cast<std::size_t>(i)]);
        line += '\t';
        line += io::tsv_escape(names[static_cast<std::size_t>(j)]);
        std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(t.replicates - c[0]) / replicates);
        line += num;
        for (int k = 0; k < kPagKinds; ++k) {
            std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(c[k]) / replicates);
            line += num;
        }
        line += '\t';
        if (consensus.adjacent(i, j)) line += edge_string(consensus, i, j);
        line += '\n';
        f.write(line);
    }
    f.close();
}

CpdagKind cpdag_kind(const Pdag& g, std::int32_t i, std::int32_t j) {
    const Mark at_i = g.end(i, j);
    if (at_i == Mark::None) return kNoEdge;
    const Mark at_j = g.end(j, i);
    if (at_i == Mark::Tail) return at_j == Mark::Arrow ? kForward : kUndirected;
    return at_j == Mark::Arrow ? kBidirected : kBackward;
}

ReplicateEdges edges_of(const Pdag& g) {
    ReplicateEdges out;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (j > i) out.push_back({i, j, static_cast<std::int32_t>(cpdag_kind(g, i, j))});
    return out;
}

ReplicateEdges edges_of(const Pag& g) {
    ReplicateEdges out;
    for (std::int32_t i = 0; i < g.n(); ++i)
        for (std::int32_t j : g.neighbours(i))
            if (j > i) out.push_back({i, j, static_cast<std::int32_t>(pag_kind(g, i, j))});
    return out;
}

Pdag consensus_graph(const Table& t, std::int64_t n) {
    Pdag g{Graph(n)};
    const double replicates = static_cast<double>(t.replicates);
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kCpdagKinds * e;
        const std::int64_t adjacent = static_cast<std::int64_t>(t.replicates) - c[kNoEdge];
        // A quotient, correctly rounded: a frequency equal to the threshold's decimal value
        // (3/10 against 0.3) rounds to the same double.
        if (adjacent == 0 || static_cast<double>(adjacent) / replicates < t.consensus) continue;
        int best = kUndirected;
        for (int k : {kForward, kBackward, kBidirected})
            if (c[k] > c[best]) best = k;
        switch (best) {
            case kForward:
                g.set(i, j, Mark::Tail, Mark::Arrow);
                break;
            case kBackward:
                g.set(i, j, Mark::Arrow, Mark::Tail);
                break;
            case kBidirected:
                g.set(i, j, Mark::Arrow, Mark::Arrow);
                break;
            default:
                g.set(i, j, Mark::Tail, Mark::Tail);
                break;
        }
    }
    return g;
}

void write_frequencies_tsv(const Table& t, const Pdag& consensus, const std::vector<std::string>& names,
                           const std::string& path) {
    static const char* const marks[kCpdagKinds] = {"", "-->", "<--", "---", "<->"};
    io::TextFile f(path);
    f.write("source\ttarget\tadjacency\tnone\t-->\t<--\t---\t<->\tconsensus\n");
    const double replicates = static_cast<double>(t.replicates);
    std::string line;
    char num[32];
    for (std::size_t e = 0; e < t.size(); ++e) {
        const std::int32_t i = t.pairs[2 * e], j = t.pairs[2 * e + 1];
        const std::int32_t* c = t.counts.data() + kCpdagKinds * e;
        line = io::tsv_escape(names[static_cast<std::size_t>(i)]);
        line += '\t';
        line += io::tsv_escape(names[static_cast<std::size_t>(j)]);
        std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(t.replicates - c[kNoEdge]) / replicates);
        line += num;
        for (int k = 0; k < kCpdagKinds; ++k) {
            std::snprintf(num, sizeof num, "\t%.6g", static_cast<double>(c[k]) / replicates);
            line += num;
        }
        line += '\t';
        line += marks[cpdag_kind(consensus, i, j)];
        line += '\n';
        f.write(line);
    }
    f.close();
}

}  // namespace cudag::bootstrap
