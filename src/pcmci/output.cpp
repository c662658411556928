// SPDX-License-Identifier: Apache-2.0
#include "pcmci/output.hpp"

#include <cstdint>

#include "core/format.hpp"
#include "io/hdf5_file.hpp"
#include "io/writers.hpp"

namespace cudag::pcmci {
namespace {

/// A JSON number: exact, and the non-finite values (never a result) as null.
std::string json_number(double v) { return v - v == 0.0 ? exact_number(v) : "null"; }

template <class Cell>
void json_cube(const Result& r, std::ostream& os, Cell&& cell) {
    os << '[';
    for (std::int32_t i = 0; i < r.n_vars; ++i) {
        os << (i ? "," : "") << '[';
        for (std::int32_t j = 0; j < r.n_vars; ++j) {
            os << (j ? "," : "") << '[';
            for (std::int32_t lag = 0; lag <= r.tau_max; ++lag) os << (lag ? "," : "") << cell(r.at(i, j, lag));
            os << ']';
        }
        os << ']';
    }
    os << ']';
}

}  // namespace

void write_links(const Result& r, const std::vector<std::string>& names, std::ostream& os) {
    os << "cause\teffect\tlag\tstatistic\tp_value\tgraph\n";
    for (std::int32_t i = 0; i < r.n_vars; ++i)
        for (std::int32_t j = 0; j < r.n_vars; ++j)
            for (std::int32_t lag = 0; lag <= r.tau_max; ++lag) {
                if (lag == 0 && i == j) continue;
                const std::size_t at = r.at(i, j, lag);
                os << io::tsv_escape(names[static_cast<std::size_t>(i)]) << '\t'
                   << io::tsv_escape(names[static_cast<std::size_t>(j)]) << '\t' << lag << '\t'
                   << exact_number(r.val_matrix[at]) << '\t' << exact_number(r.p_matrix[at]) << '\t' << r.graph[at]
                   << '\n';
            }
}

void write_json(const Result& r, const std::vector<std::string>& names,
                const std::vector<std::pair<std::string, std::string>>& config, std::ostream& os) {
    os << "{\"format\":" << io::json_quote(kResultFormat) << ",\"variables\":[";
    for (std::size_t v = 0; v < names.size(); ++v) os << (v ? "," : "") << io::json_quote(names[v]);
    os << "],\"tau_max\":" << r.tau_max << ",\"samples\":" << r.samples << ",\"val_matrix\":";
    json_cube(r, os, [&](std::size_t at) { return json_number(r.val_matrix[at]); });
    os << ",\"p_matrix\":";
    json_cube(r, os, [&](std::size_t at) { return json_number(r.p_matrix[at]); });
    os << ",\"graph\":";
    json_cube(r, os, [&](std::size_t at) { return io::json_quote(r.graph[at]); });
    os << ",\"parents\":{";
    for (std::size_t j = 0; j < r.parents.size(); ++j) {
        os << (j ? "," : "") << io::json_quote(names[j]) << ":[";
        for (std::size_t k = 0; k < r.parents[j].size(); ++k)
            os << (k ? "," : "") << '[' << io::json_quote(names[static_cast<std::size_t>(r.parents[j][k].var)]) << ','
               << -r.parents[j][k].lag << ']';
        os << ']';
    }
    os << '}';
    if (!r.pc_alpha_candidates.empty()) {
        // tigramite's pc_alpha selection: the values tried, the chosen one per variable
        // (pcmci) or for the run (pcmciplus), and each one's scores (a row per chosen value).
        const std::size_t k = r.pc_alpha_candidates.size();
        os << ",\"pc_alpha_selection\":{\"candidates\":[";
        for (std::size_t a = 0; a < k; ++a) os << (a ? "," : "") << json_number(r.pc_alpha_candidates[a]);
        os << "],\"optimal\":[";
        for (std::size_t a = 0; a < r.optimal_pc_alpha.size(); ++a)
            os << (a ? "," : "") << json_number(r.optimal_pc_alpha[a]);
        os << "],\"scores\":[";
        for (std::size_t row = 0; row < r.optimal_pc_alpha.size(); ++row) {
            os << (row ? "," : "") << '[';
            for (std::size_t a = 0; a < k; ++a) os << (a ? "," : "") << json_number(r.pc_alpha_scores[row * k + a]);
            os << ']';
        }
        os << "]}";
    }
    os << ",\"settings\":{";
    for (std::size_t k = 0; k < config.size(); ++k)
        os << (k ? "," : "") << io::json_quote(config[k].first) << ':' << io::json_quote(config[k].second);
    os << "}}\n";
}

void write_h5(const Result& r, const std::vector<std::string>& names,
              const std::vector<std::pair<std::string, std::string>>& config, const std::string& path) {
    namespace h5 = io::h5;
    h5::Handle file = h5::create_file(path);
    const hid_t root = file.get();
    h5::write_string_attr(root, "format", kResultFormat, path);
    h5::write_config(root, config, path);
    const auto n = static_cast<hsize_t>(r.n_vars);
    const std::vector<hsize_t> cube{n, n, static_cast<hsize_t>(r.tau_max + 1)};
    h5::write_strings(root, "names", names, path);
    h5::write_array(root, "val_matrix", r.val_matrix, cube, path);
    h5::write_array(root, "p_matrix", r.p_matrix, cube, path);
    // The graph's link strings, flattened in the same [i][j][lag] order (shape in "graph_shape").
    h5::write_strings(root, "graph", r.graph, path);
    h5::write_array(root, "graph_shape", std::vector<std::int64_t>{r.n_vars, r.n_vars, r.tau_max + 1}, {hsize_t{3}},
                    path);
    // Parents as CSR: parents_offsets[j]..parents_offsets[j + 1] index parents_var / parents_lag.
    std::vector<std::int64_t> offsets{0};
    std::vector<std::int32_t> vars, lags;
    for (const auto& p : r.parents) {
        for (const Node& node : p) {
            vars.push_back(node.var);
            lags.push_back(node.lag);
        }
        offsets.push_back(static_cast<std::int64_t>(vars.size()));
    }
    h5::write_array(root, "parents_offsets", offsets, {static_cast<hsize_t>(offsets.size())}, path);
    h5::write_array(root, "parents_var", vars, {static_cast<hsize_t>(vars.size())}, path);
    h5::write_array(root, "parents_lag", lags, {static_cast<hsize_t>(lags.size())}, path);
    if (!r.pc_alpha_candidates.empty()) {
        // tigramite's pc_alpha selection: optimal_pc_alpha per variable (pcmci) or one (pcmciplus),
        // pc_alpha_scores a row per entry of it, a column per candidate.
        const auto k = static_cast<hsize_t>(r.pc_alpha_candidates.size());
        const auto rows = static_cast<hsize_t>(r.optimal_pc_alpha.size());
        h5::write_array(root, "pc_alpha_candidates", r.pc_alpha_candidates, {k}, path);
        h5::write_array(root, "optimal_pc_alpha", r.optimal_pc_alpha, {rows}, path);
        h5::write_array(root, "pc_alpha_scores", r.pc_alpha_scores, {rows, k}, path);
    }
}

}  // namespace cudag::pcmci
