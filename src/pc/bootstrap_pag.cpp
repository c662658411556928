// SPDX-License-Identifier: Apache-2.0
// A PAG bootstrap's table (cudag fci --bootstrap): the edge kinds counted, the consensus
// PAG and the frequency table (pc/bootstrap.hpp).
#include <array>
#include <cstdio>

#include "core/error.hpp"
#include "io/writers.hpp"
#include "pc/bootstrap.hpp"

namespace cudag::pc {

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

Pag consensus_pag(const BootstrapTable& t, std::int64_t n) {
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

void write_pag_frequencies_tsv(const BootstrapTable& t, const Pag& consensus, const std::vector<std::string>& names,
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

}  // namespace cudag::pc
