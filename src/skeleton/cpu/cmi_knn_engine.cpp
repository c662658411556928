// SPDX-License-Identifier: Apache-2.0
#include "skeleton/cpu/cmi_knn_engine.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/pair_index.hpp"
#include "core/parallel.hpp"
#include "skeleton/cpu/row_search.hpp"

namespace cudag::skeleton {

using ci::cmi_set_key;
using ci::cmi_test_id;
using ci::CmiKnn;
using ci::CmiKnnSpec;
using ci::CmiKnnWorkspace;

std::uint64_t cmi_pc_test_id(std::int32_t& x, std::int32_t& y, std::span<const std::int32_t> s) {
    if (y < x) std::swap(x, y);
    return cmi_test_id(x, y, cmi_set_key(s.data(), static_cast<int>(s.size())));
}

std::string cmi_constant_note(const Dataset& data, const CmiKnn& cmi) {
    std::string constant;
    std::int64_t count = 0;
    for (std::int64_t v = 0; v < data.n_vars; ++v) {
        if (!cmi.constant(v)) continue;
        if (++count <= 5) constant += (count > 1 ? ", '" : "'") + data.names[v] + "'";
    }
    if (count > 5) constant += " and " + std::to_string(count - 5) + " more";
    if (count == 0) return {};
    return "cmiknn: constant column" + std::string(count > 1 ? "s " : " ") + constant +
           ": their tests give statistic 0, p = 1 (as tigramite's), and they are dropped "
           "from conditioning sets";
}

CpuCmiKnnEngine::CpuCmiKnnEngine(const Dataset& data, const TestPolicy& policy, const CmiKnnSpec& spec, int max_level,
                                 int threads)
    : cmi_(data, spec, max_level == 0 ? 0 : 1),
      policy_(policy),
      threads_(resolve_threads(threads)),
      ws_(static_cast<std::size_t>(threads_)),
      note_(cmi_constant_note(data, cmi_)) {}

void CpuCmiKnnEngine::level0(std::int64_t row_begin, std::int64_t row_end, bool dense, Graph& g, Level0Output& out) {
    const std::int64_t n = cmi_.n_vars();
    // The block's pairs (i, j > i) numbered row by row; one test per work item, since a
    // test costs B surrogates and rows differ in length.
    std::vector<std::int64_t> first(static_cast<std::size_t>(row_end - row_begin + 1), 0);
    for (std::int64_t i = row_begin; i < row_end; ++i) first[i - row_begin + 1] = first[i - row_begin] + (n - 1 - i);
    const std::int64_t pairs = first.back();
    std::vector<double> p(static_cast<std::size_t>(pairs));
    parallel_for(0, pairs, threads_, 1, [&](std::int64_t k, int w) {
        interrupt::poll();  // Ctrl-C in a binding (row_search.hpp's search_row)
        if (interrupt::stop_requested()) return;
        const auto at = std::upper_bound(first.begin(), first.end(), k) - first.begin() - 1;
        auto x = static_cast<std::int32_t>(row_begin + at);
        auto y = static_cast<std::int32_t>(x + 1 + (k - first[static_cast<std::size_t>(at)]));
        const std::uint64_t id = cmi_pc_test_id(x, y, {});
        p[static_cast<std::size_t>(k)] =
            cmi_.test(x, y, {}, id, std::span<CmiKnnWorkspace>(&ws_[static_cast<std::size_t>(w)], 1)).p;
    });
    std::int64_t k = 0;
    for (std::int64_t i = row_begin; i < row_end; ++i) {
        for (std::int64_t j = i + 1; j < n; ++j, ++k) {
            const double pij = p[static_cast<std::size_t>(k)];
            if (dense) out.dense_p[pair_index(i, j, n)] = pij;
            if (policy_.independent(pij)) continue;
            g.add(i, j);
            if (!dense) out.kept_p.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), pij});
        }
    }
    out.tests += pairs;
}

namespace {

/// One row's tests at level l: the conditioning set's key is formed once per S.
struct CmiRowTester {
    const CmiKnn& cmi;
    CmiKnnWorkspace& ws;
    std::int32_t i;
    std::vector<std::int32_t> s;
    std::uint64_t key = 0;

    void prepare(const std::int32_t* set, int l) {
        s.assign(set, set + l);
        std::sort(s.begin(), s.end());
        key = cmi_set_key(s.data(), l);
    }
    double test(std::int32_t j) {
        const std::int32_t x = std::min(i, j), y = std::max(i, j);
        return cmi.test(x, y, s, cmi_test_id(x, y, key), std::span<CmiKnnWorkspace>(&ws, 1)).p;
    }
};

}  // namespace

void CpuCmiKnnEngine::run_level(int level, const Adjacency& snap, const LevelBlock& block, LevelOutput& out) {
    std::vector<std::int64_t> tests(static_cast<std::size_t>(threads_), 0);
    parallel_for(block.row_begin, block.row_end, threads_, 1, [&](std::int64_t i, int w) {
        const auto [qb, qe] = block.positions(snap, i);
        if (snap.degree(i) - 1 < level) return;
        CmiRowTester tester{cmi_, ws_[static_cast<std::size_t>(w)], static_cast<std::int32_t>(i), {}};
        tests[static_cast<std::size_t>(w)] += search_row(level, snap, i, policy_, out, tester, qb, qe);
    });
    for (std::int64_t t : tests) out.tests += t;
}

double CpuCmiKnnEngine::p_value(std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& s) {
    std::vector<std::int32_t> sorted = s;
    std::sort(sorted.begin(), sorted.end());
    const std::uint64_t id = cmi_pc_test_id(i, j, sorted);
    return cmi_.test(i, j, sorted, id, std::span<CmiKnnWorkspace>(ws_.data(), ws_.size()), std::nullopt).p;
}

}  // namespace cudag::skeleton
