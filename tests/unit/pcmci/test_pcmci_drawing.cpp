// SPDX-License-Identifier: Apache-2.0
// PCMCI's drawings (src/pcmci/drawing.hpp) on a small hand-made result: the DOT text's nodes,
// positions (networkx's circular layout, the time-series grid), edges, lag labels (tigramite
// plot_graph's order: by |value|, largest first), marks and colours (RdBu_r's end and middle
// colours in closed form); and Graphviz renders both to PNG/SVG where `dot` is installed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <regex>
#include <string>
#include <vector>

#include "io/writers.hpp"
#include "pcmci/drawing.hpp"
#include "pcmci/pcmci.hpp"

using namespace cudag;
using namespace cudag::pcmci;

namespace {

/// 3 series a, b, c, lags 0..2:
///   a → b at lag 1 (value 0.5) and lag 2 (−0.8): label "2,1", the colour of −0.8;
///   c → b at lags 1 and 2, both |0.3| (0.3, −0.3): label "2,1" (a tie: larger lag first),
///     the colour of lag 1 (numpy's argmax: the first);
///   a – c at lag 0 '-->' (value −1), b – c 'o-o' (+1), a – b 'x-x' (0);
///   a's auto-link at lag 1 (+1: red), c's at lag 2 (−1: blue), none for b (0).
Result small_result() {
    Result r;
    r.n_vars = 3;
    r.tau_max = 2;
    const std::size_t cells = 3 * 3 * 3;
    r.val_matrix.assign(cells, 0.0);
    r.p_matrix.assign(cells, 1.0);
    r.graph.assign(cells, "");
    const auto link = [&](std::int32_t i, std::int32_t j, std::int32_t lag, const char* mark, double v) {
        r.graph[r.at(i, j, lag)] = mark;
        r.val_matrix[r.at(i, j, lag)] = v;
    };
    link(0, 1, 1, "-->", 0.5);
    link(0, 1, 2, "-->", -0.8);
    link(2, 1, 1, "-->", 0.3);
    link(2, 1, 2, "-->", -0.3);
    link(0, 2, 0, "-->", -1.0);
    link(2, 0, 0, "<--", -1.0);
    link(1, 2, 0, "o-o", 1.0);
    link(2, 1, 0, "o-o", 1.0);
    link(0, 1, 0, "x-x", 0.0);
    link(1, 0, 0, "x-x", 0.0);
    link(0, 0, 1, "-->", 1.0);
    link(2, 2, 2, "-->", -1.0);
    return r;
}

const std::vector<std::string> kNames = {"a", "b", "c"};

std::vector<std::string> lines_with(const std::string& text, const std::string& what) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        if (line.find(what) != std::string::npos) out.push_back(line);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

/// The statement lines of edges `from -> to` (exact ids).
std::vector<std::string> edges(const std::string& dot, const std::string& from, const std::string& to) {
    return lines_with(dot, "    " + from + " -> " + to + " [");
}

/// The pinned position of node `id`.
std::pair<double, double> position(const std::string& dot, const std::string& id) {
    const std::regex re("\\n    " + id + " \\[[^\\n]*pos=\"(-?[0-9.]+),(-?[0-9.]+)!\"");
    std::smatch m;
    if (!std::regex_search(dot, m, re)) return {NAN, NAN};
    return {std::stod(m[1]), std::stod(m[2])};
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

bool has_dot() {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "";
    std::size_t start = 0;
    while (start <= p.size()) {
        const std::size_t end = std::min(p.find(':', start), p.size());
        const std::string file = p.substr(start, end - start) + "/dot";
        if (::access(file.c_str(), X_OK) == 0) return true;
        start = end + 1;
    }
    return false;
}

}  // namespace

TEST(PcmciDrawing, RdBuReversedColours) {
    // matplotlib's RdBu_r: a table of 256 entries over ColorBrewer's 11 RdBu colours; −1 and
    // +1 are its ends, 0 falls in entry 128, 98% of the way from #fddbc7 to #f7f7f7.
    EXPECT_EQ(rdbu_r_colour(-1.0), "#053061");
    EXPECT_EQ(rdbu_r_colour(1.0), "#67001f");
    EXPECT_EQ(rdbu_r_colour(-7.0), "#053061");
    EXPECT_EQ(rdbu_r_colour(7.0), "#67001f");
    EXPECT_EQ(rdbu_r_colour(0.0), "#f7f6f6");
    EXPECT_EQ(rdbu_r_colour(NAN), "#bdbdbd");
}

TEST(PcmciDrawing, ProcessGraphAsTigramitePlotGraph) {
    const std::string dot = process_graph_dot(small_result(), kNames);
    SCOPED_TRACE(dot);
    EXPECT_EQ(dot.rfind("digraph pcmci {\n", 0), 0u);
    EXPECT_NE(dot.find("layout=neato"), std::string::npos);
    // networkx's circular_layout: series i at angle 2πi/3 on a circle (radius 1.5 inches).
    for (int i = 0; i < 3; ++i) {
        const auto [x, y] = position(dot, "n" + std::to_string(i));
        const double theta = 2.0 * std::numbers::pi * i / 3.0;
        EXPECT_NEAR(x, 1.5 * std::cos(theta), 1e-4) << i;
        EXPECT_NEAR(y, 1.5 * std::sin(theta), 1e-4) << i;
        EXPECT_NE(dot.find("    n" + std::to_string(i) + " [label=\"" + kNames[i] + "\""), std::string::npos);
    }
    // Node colours: the auto-MCI values.
    EXPECT_EQ(lines_with(dot, "    n0 [label")[0].find("fillcolor=\"#67001f\"") != std::string::npos, true);
    EXPECT_EQ(lines_with(dot, "    n1 [label")[0].find("fillcolor=\"#f7f6f6\"") != std::string::npos, true);
    EXPECT_EQ(lines_with(dot, "    n2 [label")[0].find("fillcolor=\"#053061\"") != std::string::npos, true);
    // a → b: the lagged edge "2,1" (|−0.8| before |0.5|) in −0.8's colour, and the x-x link.
    const auto ab = edges(dot, "n0", "n1");
    ASSERT_EQ(ab.size(), 2u);
    EXPECT_NE(ab[0].find("label=\"2,1\""), std::string::npos);
    EXPECT_EQ(ab[0].find("dir="), std::string::npos);  // '-->': Graphviz's default arrow
    EXPECT_NE(ab[0].find("color=\"" + rdbu_r_colour(-0.8) + "\""), std::string::npos);
    EXPECT_NE(ab[1].find("dir=both, arrowtail=tee, arrowhead=tee"), std::string::npos);
    EXPECT_NE(ab[1].find("label=\"x-x\""), std::string::npos);
    // c → b: a tie of |values| (lags 1 and 2): label "2,1", lag 1's colour (the first maximum).
    const auto cb = edges(dot, "n2", "n1");
    ASSERT_EQ(cb.size(), 1u);
    EXPECT_NE(cb[0].find("label=\"2,1\""), std::string::npos);
    EXPECT_NE(cb[0].find("color=\"" + rdbu_r_colour(0.3) + "\""), std::string::npos);
    // Contemporaneous links once, from the lower index, with their marks.
    const auto ac = edges(dot, "n0", "n2");
    ASSERT_EQ(ac.size(), 1u);
    EXPECT_EQ(ac[0].find("dir="), std::string::npos);
    EXPECT_EQ(ac[0].find("label="), std::string::npos);
    EXPECT_NE(ac[0].find("color=\"#053061\""), std::string::npos);
    const auto bc = edges(dot, "n1", "n2");
    ASSERT_EQ(bc.size(), 1u);
    EXPECT_NE(bc[0].find("dir=both, arrowtail=odot, arrowhead=odot"), std::string::npos);
    EXPECT_NE(bc[0].find("color=\"#67001f\""), std::string::npos);
    EXPECT_TRUE(edges(dot, "n2", "n0").empty());
    EXPECT_TRUE(edges(dot, "n1", "n0").empty());
    // Self-links are node colours, not edges.
    EXPECT_TRUE(edges(dot, "n0", "n0").empty());
    EXPECT_EQ(count(dot, " -> "), 5u);
    // Deterministic text.
    EXPECT_EQ(dot, process_graph_dot(small_result(), kNames));
}

TEST(PcmciDrawing, TimeSeriesGraphAsTigramitePlotTimeSeriesGraph) {
    const Result r = small_result();
    const std::string dot = time_series_graph_dot(r, kNames);
    SCOPED_TRACE(dot);
    EXPECT_EQ(dot.rfind("digraph pcmci_time_series {\n", 0), 0u);
    // The grid: column c (time t − (2 − c)) at x = 1.5c, row i at y = 1.2(2 − i).
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) {
            const auto [x, y] = position(dot, "n" + std::to_string(i) + "_" + std::to_string(c));
            EXPECT_NEAR(x, 1.5 * c, 1e-9) << i << "," << c;
            EXPECT_NEAR(y, 1.2 * (2 - i), 1e-9) << i << "," << c;
        }
    // Row names to the left, column times below.
    EXPECT_NE(dot.find("    r1 [shape=plaintext, style=\"\", fixedsize=false, label=\"b\", pos=\"-1.2000,1.2000!\"]"),
              std::string::npos);
    EXPECT_NE(dot.find("label=\"t-2\", pos=\"0.0000,-0.9000!\""), std::string::npos);
    EXPECT_NE(dot.find("label=\"t-1\", pos=\"1.5000,-0.9000!\""), std::string::npos);
    EXPECT_NE(dot.find("label=\"t\", pos=\"3.0000,-0.9000!\""), std::string::npos);
    // A link at lag τ is drawn into every column c >= τ: tau_max + 1 − τ edges.
    EXPECT_EQ(edges(dot, "n0_0", "n1_1").size(), 1u);  // a → b, lag 1
    EXPECT_EQ(edges(dot, "n0_1", "n1_2").size(), 1u);
    EXPECT_EQ(edges(dot, "n0_0", "n1_2").size(), 1u);  // a → b, lag 2
    EXPECT_NE(edges(dot, "n0_0", "n1_2")[0].find("color=\"" + rdbu_r_colour(-0.8) + "\""), std::string::npos);
    EXPECT_EQ(edges(dot, "n0_0", "n0_1").size(), 1u);  // a's auto-link, lag 1
    EXPECT_EQ(edges(dot, "n2_0", "n2_2").size(), 1u);  // c's, lag 2
    for (int c = 0; c < 3; ++c) {                      // lag 0: in every column, from the lower index only
        const std::string col = std::to_string(c);
        ASSERT_EQ(edges(dot, "n1_" + col, "n2_" + col).size(), 1u);
        EXPECT_NE(edges(dot, "n1_" + col, "n2_" + col)[0].find("arrowtail=odot, arrowhead=odot"), std::string::npos);
        EXPECT_TRUE(edges(dot, "n2_" + col, "n1_" + col).empty());
        EXPECT_EQ(edges(dot, "n0_" + col, "n2_" + col).size(), 1u);
    }
    // Every edge: Σ over links (lag 0 once) of tau_max + 1 − lag.
    std::size_t expected = 0;
    for (std::int32_t i = 0; i < 3; ++i)
        for (std::int32_t j = 0; j < 3; ++j)
            for (std::int32_t lag = 0; lag <= 2; ++lag)
                if (!r.graph[r.at(i, j, lag)].empty() && !(lag == 0 && i > j)) expected += 3 - lag;
    EXPECT_EQ(count(dot, " -> "), expected);
    EXPECT_EQ(expected, 2u + 1u + 2u + 1u + 3u + 3u + 3u + 2u + 1u);
}

TEST(PcmciDrawing, GraphvizRendersBoth) {
    if (!has_dot()) GTEST_SKIP() << "Graphviz 'dot' is not on PATH";
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("cudag_pcmci_drawing_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const Result r = small_result();
    for (const std::string& dot : {process_graph_dot(r, kNames), time_series_graph_dot(r, kNames)}) {
        const std::string png = (dir / "g.png").string(), svg = (dir / "g.svg").string();
        std::string message;
        ASSERT_TRUE(io::render_dot(dot, png, "png", message)) << message;
        ASSERT_TRUE(io::render_dot(dot, svg, "svg", message)) << message;
        std::ifstream p(png, std::ios::binary);
        const std::string head(std::istreambuf_iterator<char>(p), {});
        ASSERT_GT(head.size(), 8u);
        EXPECT_EQ(head.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
        std::ifstream s(svg);
        const std::string text(std::istreambuf_iterator<char>(s), {});
        EXPECT_NE(text.find("<svg"), std::string::npos);
        // Every node's label is drawn ("a", "b", "c" as SVG text).
        for (const std::string& name : kNames) EXPECT_NE(text.find(">" + name + "</text>"), std::string::npos);
    }
    std::filesystem::remove_all(dir);
}
