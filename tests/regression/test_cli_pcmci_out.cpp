// SPDX-License-Identifier: Apache-2.0
// `cudag pcmci`'s drawings and checkpoints from the command line (issue 56): --format
// dot/png/svg writes the process and time-series graphs (an edge per linked pair of the links
// table; Graphviz's PNG/SVG where `dot` is installed, one warning line each without it);
// --checkpoint: a run stopped after k tests resumes with --resume to byte-identical outputs,
// and an existing checkpoint without --resume, one of other options and a corrupt one are
// refused in one line, the checkpoint untouched.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;
using cudag::test::slurp;

const std::string kData = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";

bool has_dot() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string d; std::getline(dirs, d, ':');)
        if (::access((d + "/dot").c_str(), X_OK) == 0) return true;
    return false;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

/// `json` without its "command_line" setting (the one entry a resumed run's command changes).
std::string without_command_line(std::string json) {
    const std::size_t at = json.find("\"command_line\":\"");
    if (at == std::string::npos) return json;
    const std::size_t end = json.find("\",", at + 16);
    return json.erase(at, end + 2 - at);
}

class CliPcmciOut : public cudag::test::Cli {
protected:
    std::string path(const std::string& name) const { return (dir_ / name).string(); }
    /// One line naming `what`, exit 1, no result written.
    void expect_error(const std::string& args, const std::string& what) {
        const bool formats = args.find("--format") != std::string::npos;
        const std::string full = args + " --out " + path("e.h5") + (formats ? "" : " --format links");
        const CliRun r = run(full);
        EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(what), std::string::npos) << r.err << " (wanted '" << what << "')";
        EXPECT_FALSE(fs::exists(path("e.h5"))) << args;
        EXPECT_FALSE(fs::exists(path("e.links.tsv"))) << args;
    }
};

}  // namespace

TEST_F(CliPcmciOut, DrawsTheProcessAndTimeSeriesGraphs) {
    const CliRun r =
        run("pcmci --data " + kData + "c00.csv --tau-max 2 -q --out " + path("r.h5") + " --format links,dot,png,svg");
    ASSERT_EQ(r.code, 0) << r.err;
    // The edges the links table asks for: a lagged edge per ordered pair with a lagged link, a
    // lag-0 edge per unordered pair with a contemporaneous one; the time-series graph an edge
    // per link and column.
    std::ifstream links(path("r.links.tsv"));
    std::string line;
    std::getline(links, line);
    std::set<std::pair<std::string, std::string>> lagged_pairs, contemp_pairs;
    std::size_t ts_edges = 0;
    std::set<std::string> names;
    while (std::getline(links, line)) {
        std::stringstream s(line);
        std::string cause, effect, lag, statistic, p, graph;
        std::getline(s, cause, '\t');
        std::getline(s, effect, '\t');
        std::getline(s, lag, '\t');
        std::getline(s, statistic, '\t');
        std::getline(s, p, '\t');
        std::getline(s, graph, '\t');
        names.insert(cause);
        if (graph.empty()) continue;
        if (lag == "0") {
            if (cause < effect) {
                contemp_pairs.insert({cause, effect});
                ts_edges += 3;
            }
        } else {
            if (cause != effect) lagged_pairs.insert({cause, effect});
            ts_edges += static_cast<std::size_t>(3 - std::stoi(lag));
        }
    }
    ASSERT_GT(lagged_pairs.size() + contemp_pairs.size(), 3u);
    const std::string dot = slurp(path("r.dot")), ts = slurp(path("r.ts.dot"));
    EXPECT_EQ(dot.rfind("digraph pcmci {\n", 0), 0u);
    EXPECT_EQ(count(dot, " -> "), lagged_pairs.size() + contemp_pairs.size());
    EXPECT_EQ(count(dot, "label=\""), names.size() + lagged_pairs.size() + 1);  // + the legend
    EXPECT_EQ(ts.rfind("digraph pcmci_time_series {\n", 0), 0u);
    EXPECT_EQ(count(ts, " -> "), ts_edges);
    if (!has_dot()) {
        std::printf("Graphviz 'dot' not on PATH: the PNG/SVG files are not checked\n");
        return;
    }
    for (const std::string stem : {"r", "r.ts"}) {
        EXPECT_EQ(slurp(path(stem + ".png")).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << stem;
        const std::string svg = slurp(path(stem + ".svg"));
        EXPECT_NE(svg.find("<svg"), std::string::npos) << stem;
        EXPECT_NE(svg.find("</svg>"), std::string::npos) << stem;
    }
}

TEST_F(CliPcmciOut, WithoutGraphvizTheDrawingsAreSkippedWithAWarning) {
    const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", path("no-such-folder").c_str(), 1);
    const CliRun r =
        run("pcmci --data " + kData + "c00.csv --tau-max 1 -q --out " + path("r.h5") + " --format png,links");
    ::setenv("PATH", saved.c_str(), 1);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "warning: graphviz 'dot' not found on PATH: skipped " + path("r.png") +
                         "\nwarning: graphviz 'dot' not found on PATH: skipped " + path("r.ts.png") + "\n");
    EXPECT_FALSE(fs::exists(path("r.png")));
    EXPECT_FALSE(fs::exists(path("r.ts.png")));
    EXPECT_TRUE(fs::exists(path("r.links.tsv")));
    EXPECT_TRUE(fs::exists(path("r.h5")));
}

TEST_F(CliPcmciOut, RefusesLargeDrawingsWithoutForce) {
    // 170 series at lags 0..2: a time-series graph of 510 nodes.
    std::ofstream csv(path("wide.csv"));
    for (int v = 0; v < 170; ++v) csv << (v ? "," : "") << "s" << v;
    csv << '\n';
    for (int t = 0; t < 12; ++t) {
        for (int v = 0; v < 170; ++v) csv << (v ? "," : "") << std::sin(0.7 * t * (v + 1) + v);
        csv << '\n';
    }
    csv.close();
    expect_error("pcmci --data " + path("wide.csv") + " --tau-max 2 --format png", "add --force");
    expect_error("pcmci --data " + kData + "c00.csv --force", "--force applies to --format png/svg only");
}

TEST_F(CliPcmciOut, AStoppedRunResumesToTheSameFiles) {
    const std::string base =
        "pcmci --data " + kData + "c03.csv --tau-max 2 --method pcmciplus -q --format links,json,dot";
    CliRun r = run(base + " --out " + path("ref.h5"));
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string ck = path("ck.h5");
    r = run(base + " --out " + path("r.h5") + " --checkpoint " + ck + " --stop-after-tests 40");
    EXPECT_EQ(r.code, 3) << r.err;
    ASSERT_TRUE(fs::exists(ck));
    EXPECT_FALSE(fs::exists(path("r.h5")));
    EXPECT_FALSE(fs::exists(ck + ".lock"));
    // Without --resume an existing checkpoint is refused.
    expect_error(base + " --checkpoint " + ck, "checkpoint '" + ck + "' exists: add --resume");
    r = run("pcmci --data " + kData + "c03.csv --tau-max 2 --method pcmciplus --format links,json,dot --out " +
            path("r.h5") + " --checkpoint " + ck + " --resume");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming from checkpoint '" + ck + "': "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" of them from the checkpoint"), std::string::npos) << r.err;
    for (const std::string file : {".links.tsv", ".dot", ".ts.dot"})
        EXPECT_EQ(slurp(path("r" + file)), slurp(path("ref" + file))) << file;
    EXPECT_EQ(without_command_line(slurp(path("r.json"))), without_command_line(slurp(path("ref.json"))));
    EXPECT_FALSE(fs::exists(ck));  // served: removed
    EXPECT_FALSE(fs::exists(ck + ".lock"));
    // --keep-checkpoint keeps the finished run's tests: resuming them asks none again.
    r = run(base + " --out " + path("k.h5") + " --checkpoint " + ck + " --keep-checkpoint");
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(ck));
    r = run(base + " --out " + path("k2.h5") + " --checkpoint " + ck + " --resume --keep-checkpoint");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(path("k2.links.tsv")), slurp(path("ref.links.tsv")));
    EXPECT_TRUE(fs::exists(ck));
}

TEST_F(CliPcmciOut, RefusesOtherOptionsAndCorruptCheckpoints) {
    const std::string data = "pcmci --data " + kData + "c03.csv --tau-max 2";
    const std::string ck = path("ck.h5");
    CliRun r = run(data + " -q --out " + path("r.h5") + " --checkpoint " + ck + " --stop-after-tests 10");
    ASSERT_EQ(r.code, 3) << r.err;
    const std::string kept = slurp(ck);
    ASSERT_FALSE(kept.empty());
    expect_error("pcmci --data " + kData + "c03.csv --tau-max 1 --checkpoint " + ck + " --resume",
                 "--tau-max was 2 in the checkpoint, 1 now");
    expect_error(data + " --pc-alpha 0.1 --checkpoint " + ck + " --resume", "--pc-alpha was 0.2 in the checkpoint");
    expect_error(data + " --method pcmciplus --checkpoint " + ck + " --resume", "--method was pcmci in the checkpoint");
    expect_error("pcmci --data " + kData + "c04.csv --tau-max 2 --checkpoint " + ck + " --resume",
                 "was written for other");
    EXPECT_EQ(slurp(ck), kept);
    // Not a checkpoint file at all, and one cut short.
    std::ofstream(ck, std::ios::binary) << "not a checkpoint";
    expect_error(data + " --checkpoint " + ck + " --resume", ck);
    EXPECT_EQ(slurp(ck), "not a checkpoint");
    std::ofstream(ck, std::ios::binary) << kept.substr(0, kept.size() / 2);
    expect_error(data + " --checkpoint " + ck + " --resume", ck);
    EXPECT_EQ(slurp(ck), kept.substr(0, kept.size() / 2));
    // The options that need --checkpoint.
    expect_error(data + " --resume", "--resume needs --checkpoint FILE");
    expect_error(data + " --keep-checkpoint", "--keep-checkpoint needs --checkpoint FILE");
    expect_error(data + " --checkpoint " + ck + " --resume --overwrite-checkpoint", "give one");
    expect_error(data + " --checkpoint " + path("n.h5") + " --checkpoint-every -1",
                 "--checkpoint-every must be >= 0 seconds, got -1");
    expect_error(data + " --checkpoint -", "--checkpoint needs a file name, not '-'");
    EXPECT_FALSE(fs::exists(path("n.h5")));
}
