// SPDX-License-Identifier: Apache-2.0
#include "pcmci/drawing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "io/writers.hpp"

namespace cudag::pcmci {
namespace {

/// "x,y!" in inches, 4 decimals (a pinned neato position).
std::string pinned(double x, double y) {
    char buf[64];
    // -0.0000 and 0.0000 are one position: write the rounded value's sign only when not zero.
    const auto round4 = [](double v) { return std::abs(v) < 5e-5 ? 0.0 : v; };
    std::snprintf(buf, sizeof buf, "\"%.4f,%.4f!\"", round4(x), round4(y));
    return buf;
}

/// Graphviz's arrow shape for one end mark of a link string.
const char* arrow_shape(char mark) {
    switch (mark) {
        case '>':
        case '<':
            return "normal";
        case 'o':
            return "odot";
        case 'x':
            return "tee";
        default:
            return "none";
    }
}

/// The edge attributes of a link mark (`-->` the default arrow) and `label` (the lags; a mark
/// with an 'x' is added to it, Graphviz having no such arrow), without brackets, each entry
/// followed by ", ".
std::string mark_attributes(const std::string& mark, std::string label = "") {
    std::string out;
    if (mark == "<--") {
        out = "dir=back, ";
    } else if (mark != "-->" && mark.size() == 3) {
        out = "dir=both, arrowtail=";
        out += arrow_shape(mark[0]);
        out += ", arrowhead=";
        out += arrow_shape(mark[2]);
        out += ", ";
        if (mark.find('x') != std::string::npos) label += label.empty() ? mark : " " + mark;
    }
    if (!label.empty()) {
        out += "label=";
        out += io::dot_quote(label);
        out += ", ";
    }
    return out;
}

/// One edge statement: `from -> to [attributes..., color=...];`.
std::string edge(const std::string& from, const std::string& to, const std::string& attributes, double value) {
    std::string out = "    ";
    out += from;
    out += " -> ";
    out += to;
    out += " [";
    out += attributes;
    out += "color=\"";
    out += rdbu_r_colour(value);
    out += "\"];\n";
    return out;
}

std::string node_id(std::int32_t i) {
    std::string id = "n";
    id += std::to_string(i);
    return id;
}

std::string node_id(std::int32_t i, std::int32_t column) {
    std::string id = node_id(i);
    id += '_';
    id += std::to_string(column);
    return id;
}

/// The lagged links i → j (lag >= 1, a non-empty graph entry).
std::vector<std::int32_t> lagged_links(const Result& r, std::int32_t i, std::int32_t j) {
    std::vector<std::int32_t> lags;
    for (std::int32_t lag = 1; lag <= r.tau_max; ++lag)
        if (!r.graph[r.at(i, j, lag)].empty()) lags.push_back(lag);
    return lags;
}

/// The strongest of `lags` (largest |value|, the smallest lag on ties: numpy's argmax).
std::int32_t strongest(const Result& r, std::int32_t i, std::int32_t j, const std::vector<std::int32_t>& lags) {
    std::int32_t best = lags.front();
    for (const std::int32_t lag : lags)
        if (std::abs(r.val_matrix[r.at(i, j, lag)]) > std::abs(r.val_matrix[r.at(i, j, best)])) best = lag;
    return best;
}

constexpr const char* kLegend = "colour: MCI value, blue -1, white 0, red +1 (nodes: auto-MCI); edge labels: lags";

}  // namespace

std::string rdbu_r_colour(double value) {
    if (std::isnan(value)) return "#bdbdbd";
    // ColorBrewer RdBu (11 classes) from +1 down to -1: RdBu_r maps -1 to its last colour.
    static constexpr std::array<std::array<int, 3>, 11> kRdBu = {{{0x67, 0x00, 0x1f},
                                                                  {0xb2, 0x18, 0x2b},
                                                                  {0xd6, 0x60, 0x4d},
                                                                  {0xf4, 0xa5, 0x82},
                                                                  {0xfd, 0xdb, 0xc7},
                                                                  {0xf7, 0xf7, 0xf7},
                                                                  {0xd1, 0xe5, 0xf0},
                                                                  {0x92, 0xc5, 0xde},
                                                                  {0x43, 0x93, 0xc3},
                                                                  {0x21, 0x66, 0xac},
                                                                  {0x05, 0x30, 0x61}}};
    // matplotlib's colormaps are tables of 256 colours: value's entry, then its place on RdBu.
    const double x = (std::clamp(value, -1.0, 1.0) + 1.0) / 2.0;  // 0 at -1, 1 at +1
    const double entry = std::min(255.0, std::floor(x * 256.0));
    const double at = (1.0 - entry / 255.0) * 10.0;  // 0 at +1 (RdBu's first colour), 10 at -1
    const auto k = static_cast<std::size_t>(std::min(9.0, std::floor(at)));
    const double f = at - static_cast<double>(k);
    char buf[8];
    int rgb[3];
    for (std::size_t c = 0; c < 3; ++c)
        rgb[c] = static_cast<int>(std::lround(kRdBu[k][c] + f * (kRdBu[k + 1][c] - kRdBu[k][c])));
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    return buf;
}

std::string process_graph_dot(const Result& r, const std::vector<std::string>& names) {
    const std::int32_t n = r.n_vars;
    std::string out = "digraph pcmci {\n";
    out += "    graph [layout=neato, splines=true, outputorder=edgesfirst, fontsize=9, label=";
    out += io::dot_quote(kLegend);
    out += "];\n";
    out += "    node [shape=circle, style=filled, fixedsize=true, width=0.9, fontsize=11];\n";
    out += "    edge [penwidth=3, arrowsize=0.8, fontsize=11];\n";
    // The circle's radius grows with the series so that neighbours keep ~1.7 inches apart.
    const double radius = std::max(1.5, 1.7 * n / (2.0 * std::numbers::pi));
    for (std::int32_t i = 0; i < n; ++i) {
        const double theta = 2.0 * std::numbers::pi * i / n;
        const std::vector<std::int32_t> auto_lags = lagged_links(r, i, i);
        const double auto_value = auto_lags.empty() ? 0.0 : r.val_matrix[r.at(i, i, strongest(r, i, i, auto_lags))];
        out += "    " + node_id(i) + " [label=" + io::dot_quote(names[static_cast<std::size_t>(i)]) +
               ", pos=" + pinned(n > 1 ? radius * std::cos(theta) : 0.0, n > 1 ? radius * std::sin(theta) : 0.0) +
               ", fillcolor=\"" + rdbu_r_colour(auto_value) + "\"];\n";
    }
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j) {
            if (i == j) continue;
            if (std::vector<std::int32_t> lags = lagged_links(r, i, j); !lags.empty()) {
                const std::int32_t best = strongest(r, i, j, lags);
                std::stable_sort(lags.begin(), lags.end(), [&](std::int32_t a, std::int32_t b) {
                    const double va = std::abs(r.val_matrix[r.at(i, j, a)]);
                    const double vb = std::abs(r.val_matrix[r.at(i, j, b)]);
                    return va != vb ? va > vb : a > b;
                });
                std::string label;
                for (const std::int32_t lag : lags) {
                    if (!label.empty()) label += ',';
                    label += std::to_string(lag);
                }
                out += edge(node_id(i), node_id(j), mark_attributes(r.graph[r.at(i, j, best)], label),
                            r.val_matrix[r.at(i, j, best)]);
            }
            if (i < j && !r.graph[r.at(i, j, 0)].empty())
                out +=
                    edge(node_id(i), node_id(j), mark_attributes(r.graph[r.at(i, j, 0)]), r.val_matrix[r.at(i, j, 0)]);
        }
    return out + "}\n";
}

std::string time_series_graph_dot(const Result& r, const std::vector<std::string>& names) {
    const std::int32_t n = r.n_vars, columns = r.tau_max + 1;
    std::string out = "digraph pcmci_time_series {\n";
    out += "    graph [layout=neato, splines=true, outputorder=edgesfirst, fontsize=9, label=";
    out += io::dot_quote("colour: MCI value, blue -1, white 0, red +1");
    out += "];\n";
    out += "    node [shape=circle, style=filled, fillcolor=\"#d9d9d9\", fixedsize=true, width=0.3, label=\"\"];\n";
    out += "    edge [penwidth=2, arrowsize=0.7, fontsize=9];\n";
    const auto y_of = [&](std::int32_t i) { return 1.2 * (n - 1 - i); };
    for (std::int32_t i = 0; i < n; ++i)
        out += "    r" + std::to_string(i) + " [shape=plaintext, style=\"\", fixedsize=false, label=" +
               io::dot_quote(names[static_cast<std::size_t>(i)]) + ", pos=" + pinned(-1.2, y_of(i)) + "];\n";
    for (std::int32_t c = 0; c < columns; ++c) {
        std::string label = "t";
        if (c < r.tau_max) label += "-" + std::to_string(r.tau_max - c);
        out += "    c" + std::to_string(c) + " [shape=plaintext, style=\"\", fixedsize=false, label=\"" + label +
               "\", pos=" + pinned(1.5 * c, -0.9) + "];\n";
    }
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t c = 0; c < columns; ++c)
            out += "    " + node_id(i, c) + " [pos=" + pinned(1.5 * c, y_of(i)) + "];\n";
    for (std::int32_t i = 0; i < n; ++i)
        for (std::int32_t j = 0; j < n; ++j)
            for (std::int32_t lag = 0; lag <= r.tau_max; ++lag) {
                const std::string& mark = r.graph[r.at(i, j, lag)];
                if (mark.empty() || (lag == 0 && i >= j)) continue;
                const std::string attributes = mark_attributes(mark);
                for (std::int32_t c = lag; c < columns; ++c)
                    out += edge(node_id(i, c - lag), node_id(j, c), attributes, r.val_matrix[r.at(i, j, lag)]);
            }
    return out + "}\n";
}

}  // namespace cudag::pcmci
