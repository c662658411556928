// SPDX-License-Identifier: Apache-2.0
// FCI / RFCI on the d-separation oracle for tests: PC's skeleton search with the oracle's
// tests (pcalg's skeleton with dsepTest), then fci::learn_pag with the same tests.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dsep.hpp"
#include "fci/fci.hpp"
#include "fci/tester.hpp"
#include "skeleton/ci_tests.hpp"
#include "pc/run.hpp"

namespace cudag::test {

struct OraclePag {
    Pag pag;
    std::vector<std::string> names;  ///< the observed nodes, the PAG's order
    SepSets sepsets;
};

inline OraclePag fci_on_oracle(const std::shared_ptr<const DsepOracle>& oracle, const fci::FciOptions& opt,
                               int threads = 1) {
    pc::PcConfig cfg;
    cfg.test.oracle = oracle;
    cfg.backend.kind = BackendKind::Cpu;
    cfg.backend.threads = threads;
    cfg.alpha = 0.5;
    cfg.orient = false;
    cfg.max_level = opt.max_level;
    Dataset data;
    data.names = oracle->var_names();
    data.n_vars = oracle->n_vars();
    data.source = oracle->source();
    pc::PcResult r = pc::run_pc(data, cfg);
    const skeleton::TestSpec spec = pc::resolve_test(cfg, data);
    fci::Tester tester([&] { return skeleton::make_ci_test(data, spec, skeleton::Compat::Pcalg, 1); }, threads,
                       ci::Decision{cfg.alpha, false});
    fci::FciOptions o = opt;
    o.skeleton_max_level = r.levels.empty() ? 0 : r.levels.back().level;
    fci::FciOutcome out = fci::learn_pag(std::move(r.skeleton), std::move(r.sepsets), tester, o);
    return {std::move(out.pag), data.names, std::move(out.sepsets)};
}

/// A DAG over named nodes from "a->b" strings.
inline std::shared_ptr<const DsepOracle> oracle_of(const std::vector<std::string>& names,
                                                   const std::vector<std::pair<std::string, std::string>>& edges,
                                                   const std::vector<std::string>& latent) {
    Dag dag(static_cast<std::int32_t>(names.size()));
    auto id = [&](const std::string& s) {
        for (std::size_t k = 0; k < names.size(); ++k)
            if (names[k] == s) return static_cast<std::int32_t>(k);
        throw Error("no node " + s);
    };
    for (const auto& [a, b] : edges) dag.add_edge(id(a), id(b));
    return std::make_shared<const DsepOracle>(std::move(dag), names, latent, "test DAG");
}

/// The PAG as "a b mark" lines (a < b in the PAG's order, mark read from a to b), sorted.
inline std::vector<std::string> pag_lines(const Pag& g, const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (std::int32_t a = 0; a < g.n(); ++a)
        for (const std::int32_t b : g.neighbours(a))
            if (a < b)
                out.push_back(names[static_cast<std::size_t>(a)] + " " + edge_string(g, a, b) + " " +
                              names[static_cast<std::size_t>(b)]);
    return out;
}

}  // namespace cudag::test
