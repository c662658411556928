// SPDX-License-Identifier: Apache-2.0
// `cudag pcmci` from the command line (issue 56): the links table equal to tigramite's
// run_pcmci and run_pcmciplus on reference cases, the result files, link assumptions from a file, and bad
// input (one line naming what, exit 1, nothing written).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"
#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;

const std::string kData = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmci/";

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream s(line);
    std::string f;
    while (std::getline(s, f, '\t')) out.push_back(f);
    if (!line.empty() && line.back() == '\t') out.push_back("");
    return out;
}

class CliPcmci : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("cudag_cli_pcmci_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    CliRun run(const std::string& args) { return cudag::test::run_cudag(args, dir_, {}); }
    std::string write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }
    /// The JSON result of `cudag args --out r.h5 --format json -q` (empty when it fails).
    std::string json_of(const std::string& args) {
        const CliRun r = run(args + " --out " + (dir_ / "r.h5").string() + " --format json -q");
        EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
        std::ifstream j(dir_ / "r.json");
        return r.code == 0 ? std::string(std::istreambuf_iterator<char>(j), std::istreambuf_iterator<char>()) : "";
    }
    void expect_error(const std::string& args, const std::string& what) {
        const fs::path out = dir_ / "r.h5";
        const CliRun r = run(args + " --out " + out.string() + " --format links,json");
        EXPECT_EQ(r.code, 1) << args << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(what), std::string::npos) << r.err << " (wanted '" << what << "')";
        EXPECT_FALSE(fs::exists(out)) << args;
        EXPECT_FALSE(fs::exists(dir_ / "r.links.tsv")) << args;
        EXPECT_FALSE(fs::exists(dir_ / "r.json")) << args;
    }
    fs::path dir_;
};

/// The links table of `out` against a reference file (scripts/dev/pcmci*_reference.py) of
/// `n` series v0.. with lags 0..tau_max: values and p-values to 1e-9 relative, the graph exactly.
void expect_links_table(const std::string& out_text, const std::string& reference, int n, int tau_max, int min_links) {
    std::map<std::string, std::vector<std::string>> expected;  // "i j lag" -> val, p, graph
    std::ifstream ref(reference);
    for (std::string line; std::getline(ref, line);) {
        const auto f = fields(line);
        if (f.size() == 6) expected[f[0] + " " + f[1] + " " + f[2]] = {f[3], f[4], f[5] == "." ? "" : f[5]};
    }
    std::istringstream out(out_text);
    std::string line;
    std::getline(out, line);
    EXPECT_EQ(line, "cause\teffect\tlag\tstatistic\tp_value\tgraph");
    int rows = 0, links = 0;
    while (std::getline(out, line)) {
        const auto f = fields(line);
        ASSERT_EQ(f.size(), 6u) << line;
        // Names v0..v3 are the indices.
        const std::string key = f[0].substr(1) + " " + f[1].substr(1) + " " + f[2];
        ASSERT_TRUE(expected.count(key)) << key;
        const auto& e = expected[key];
        const double v = std::stod(f[3]), ev = std::stod(e[0]), p = std::stod(f[4]), ep = std::stod(e[1]);
        EXPECT_LE(std::fabs(v - ev), 1e-9 * std::max(1e-300, std::fabs(ev))) << key;
        EXPECT_LE(std::fabs(p - ep), 1e-9 * std::max(1e-300, std::fabs(ep))) << key;
        EXPECT_EQ(f[5], e[2]) << key;
        ++rows;
        links += !f[5].empty();
    }
    EXPECT_EQ(rows, n * n * (tau_max + 1) - n);  // (cause, effect, lag), cause != effect at lag 0
    EXPECT_GT(links, min_links);
}

TEST_F(CliPcmci, LinksTableEqualsTigramitesRunPcmci) {
    // c00: tau_max 2, tigramite's defaults otherwise (pc_alpha 0.2, alpha_level 0.05).
    const CliRun r = run("pcmci --data " + kData + "c00.csv --tau-max 2 -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    expect_links_table(r.out, kData + "c00.tsv", 4, 2, 4);
}

TEST_F(CliPcmci, LinksTableEqualsTigramitesRunPcmciplus) {
    const std::string plus = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";
    // c00: run_pcmciplus's defaults (pc_alpha 0.01, not run_pcmci's 0.2), tau_max 1.
    const CliRun d = run("pcmci --method pcmciplus --data " + plus + "c00.csv -q");
    ASSERT_EQ(d.code, 0) << d.err;
    expect_links_table(d.out, plus + "c00.tsv", 4, 1, 4);
    // c04: pc_alpha 0.2, conflict_resolution False, tau_max 2.
    const CliRun c = run("pcmci --method pcmciplus --data " + plus +
                         "c04.csv --tau-max 2 --pc-alpha 0.2 --no-conflict-resolution -q");
    ASSERT_EQ(c.code, 0) << c.err;
    expect_links_table(c.out, plus + "c04.tsv", 6, 2, 10);
    // c05: reset_lagged_links, pc_alpha 0.05; c02: the conservative rule, pc_alpha 0.1.
    const CliRun r = run("pcmci --method pcmciplus --data " + plus +
                         "c05.csv --tau-max 2 --pc-alpha 0.05 "
                         "--reset-lagged-links -q");
    ASSERT_EQ(r.code, 0) << r.err;
    expect_links_table(r.out, plus + "c05.tsv", 5, 2, 5);
    const CliRun k = run("pcmci --method pcmciplus --data " + plus +
                         "c02.csv --pc-alpha 0.1 --contemp-collider-rule conservative -q");
    ASSERT_EQ(k.code, 0) << k.err;
    expect_links_table(k.out, plus + "c02.tsv", 6, 1, 5);
}

TEST_F(CliPcmci, ResultFilesAndLinkAssumptions) {
    const std::string links = write("links.tsv",
                                    "# cause effect lag type\n"
                                    "v1\tv0\t1\t-->\n"
                                    "v0\tv0\t1\t-?>\n"
                                    "v2\tv0\t2\t-?>\n");
    const fs::path out = dir_ / "r.h5";
    const CliRun r = run("pcmci --data " + kData + "c00.csv --tau-max 2 --links " + links + " --out " + out.string() +
                         " --format links,json -q");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(out));
    ASSERT_TRUE(fs::exists(dir_ / "r.links.tsv"));
    ASSERT_TRUE(fs::exists(dir_ / "r.json"));
    std::ifstream t(dir_ / "r.links.tsv");
    std::string line;
    std::map<std::string, std::vector<std::string>> rows;
    while (std::getline(t, line)) {
        const auto f = fields(line);
        rows[f[0] + " " + f[1] + " " + f[2]] = f;
    }
    // The forced link is not tested: value 1, p 0, drawn.
    EXPECT_EQ(rows["v1 v0 1"][3], "1");
    EXPECT_EQ(rows["v1 v0 1"][4], "0");
    EXPECT_EQ(rows["v1 v0 1"][5], "-->");
    // Links absent from the file are absent from the analysis: v3 -> v0 untested (p 1), and
    // every link into v1..v3 too (the file names only effects v0).
    EXPECT_EQ(rows["v3 v0 1"][4], "1");
    EXPECT_EQ(rows["v0 v2 1"][4], "1");
    EXPECT_EQ(rows["v0 v2 1"][5], "");
    std::ifstream j(dir_ / "r.json");
    const std::string json((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
    EXPECT_NE(json.find("\"format\":\"cudag-pcmci-result-1\""), std::string::npos);
    EXPECT_NE(json.find("\"tau_max\":2"), std::string::npos);
    EXPECT_NE(json.find("\"samples\":296"), std::string::npos);  // T = 300 less 2·tau_max
}

/// The numbers of the JSON array after `key` (e.g. "\"optimal\":[").
std::vector<double> json_numbers(const std::string& json, const std::string& key) {
    std::vector<double> out;
    const std::size_t at = json.find(key);
    if (at == std::string::npos) return out;
    std::stringstream list(json.substr(at + key.size(), json.find(']', at) - at - key.size()));
    for (std::string v; std::getline(list, v, ',');) out.push_back(std::stod(v));
    return out;
}

/// A reference's chosen pc_alpha values: "optimal_pc_alpha<TAB>[j<TAB>]alpha" lines, in order.
std::vector<double> reference_optimal(const std::string& reference) {
    std::vector<double> out;
    std::ifstream ref(reference);
    for (std::string line; std::getline(ref, line);) {
        const auto f = fields(line);
        if (f[0] == "optimal_pc_alpha") out.push_back(std::stod(f.back()));
    }
    return out;
}

TEST_F(CliPcmci, PcAlphaSelectionEqualsTigramite) {
    // --pc-alpha auto: tigramite's run_pcmci(pc_alpha=None) (tests/data/pcmci/s01); a list:
    // run_pcmciplus(pc_alpha=[0.01, 0.05, 0.2]) (tests/data/pcmciplus/s01). The links table, and
    // the chosen values in the JSON result, as tigramite's.
    const std::string plus = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";
    struct Case {
        std::string args, reference;
        int n, tau_max;
        std::size_t chosen;
    };
    for (const Case& c : {Case{"--data " + kData + "s01.csv --tau-max 3 --pc-alpha auto", kData + "s01.tsv", 5, 3, 5},
                          Case{"--method pcmciplus --data " + plus + "s01.csv --tau-max 2 --pc-alpha 0.01,0.05,0.2",
                               plus + "s01.tsv", 6, 2, 1}}) {
        SCOPED_TRACE(c.args);
        const CliRun r = run("pcmci " + c.args + " -q");
        ASSERT_EQ(r.code, 0) << r.err;
        expect_links_table(r.out, c.reference, c.n, c.tau_max, 3);
        const fs::path out = dir_ / "r.h5";
        const CliRun f = run("pcmci " + c.args + " -q --out " + out.string() + " --format json");
        ASSERT_EQ(f.code, 0) << f.err;
        std::ifstream j(dir_ / "r.json");
        const std::string json((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
        const std::vector<double> optimal = json_numbers(json, "\"optimal\":[");
        EXPECT_EQ(optimal.size(), c.chosen) << json;
        EXPECT_EQ(optimal, reference_optimal(c.reference)) << json;
        EXPECT_EQ(json_numbers(json, "\"candidates\":[").size(), c.chosen == 1 ? 3u : 6u) << json;
    }
}

TEST_F(CliPcmci, PcmciplusRecordsTheSettingsItRanWith) {
    // Without --pc-alpha, PCMCI+ runs (and records) tigramite's 0.01, and its own settings.
    const std::string plus = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";
    const fs::path out = dir_ / "r.h5";
    const CliRun r = run("pcmci --method pcmciplus --data " + plus + "c00.csv --out " + out.string() +
                         " --format json --contemp-collider-rule conservative --max-conds-px-lagged 2 -q");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream j(dir_ / "r.json");
    const std::string json((std::istreambuf_iterator<char>(j)), std::istreambuf_iterator<char>());
    EXPECT_NE(json.find("\"method\":\"pcmciplus\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"pc_alpha\":\"0.01\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"contemp_collider_rule\":\"conservative\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"conflict_resolution\":\"true\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"max_conds_px_lagged\":\"2\""), std::string::npos) << json;
    // run_pcmci records none of PCMCI+'s settings, and its own default pc_alpha.
    const CliRun p = run("pcmci --data " + plus + "c00.csv --out " + out.string() + " --format json -q");
    ASSERT_EQ(p.code, 0) << p.err;
    std::ifstream k(dir_ / "r.json");
    const std::string plain((std::istreambuf_iterator<char>(k)), std::istreambuf_iterator<char>());
    EXPECT_NE(plain.find("\"pc_alpha\":\"0.2"), std::string::npos) << plain;  // printed to 17 digits
    EXPECT_EQ(plain.find("contemp_collider_rule"), std::string::npos) << plain;
}

TEST_F(CliPcmci, BadInputIsOneLineAndWritesNothing) {
    const std::string c = kData + "c08.csv";  // T = 120, 3 series
    expect_error("pcmci --data " + c + " --tau-max 60", "tau_max 60 leaves no samples");
    expect_error("pcmci --data " + c + " --tau-max 2 --tau-min 3", "0 <= tau_min <= tau_max");
    expect_error("pcmci --data " + c + " --method pcmci+", "unknown --method 'pcmci+'");
    expect_error("pcmci --data " + c + " --method pcmciplus --contemp-collider-rule minority",
                 "contemp_collider_rule 'minority'");
    expect_error("pcmci --data " + c + " --reset-lagged-links", "settings of PCMCI+ (pcmciplus) only");
    expect_error("pcmci --data " + c + " --test fisher-z", "unknown --test 'fisher-z'");
    expect_error("pcmci --data " + c + " --fdr holm", "unknown --fdr 'holm'");
    expect_error("pcmci --data " + c + " --pc-alpha 1.5", "pc_alpha must lie in [0, 1]");
    expect_error("pcmci --data " + c + " --pc-alpha 0.05,1.5", "pc_alpha must lie in [0, 1]");
    expect_error("pcmci --data " + c + " --pc-alpha 0.1,x", "--pc-alpha '0.1,x': expected a number");
    expect_error("pcmci --data " + c + " --pc-alpha 0.1,", "--pc-alpha '0.1,': expected a number");
    expect_error("pcmci --data " + c + " --test cmiknn --pc-alpha auto", "it needs --test parcorr");
    expect_error("pcmci --data " + c + " --alpha-level -0.1", "alpha_level must lie in [0, 1]");
    expect_error("pcmci --data " + c + " --max-combinations 0", "max_combinations must be > 0");
    for (const char* opt : {"--max-conds-dim", "--max-conds-py", "--max-conds-px"})
        expect_error("pcmci --data " + c + " " + opt + " -2", "maximum condition dimensions must be >= 0");
    expect_error("pcmci --data " + write("const.csv", "a,b\n1,2\n1,3\n1,5\n1,4\n1,8\n1,1\n1,0\n1,2\n1,6\n1,7\n") +
                     " --tau-max 1",
                 "series 'a' is constant");
    expect_error("pcmci --data " + write("hole.csv", "a,b\n1,2\n2,3\n,5\n4,4\n2,8\n") + " --tau-max 1", "hole.csv");
    // A NaN cell is refused with a numeric --missing-flag too (tigramite: "NaNs in the data").
    expect_error("pcmci --data " + dir_.string() + "/hole.csv --tau-max 1 --missing-flag 999", "hole.csv:4:1");
    expect_error("pcmci --data " + write("text.csv", "a,b\n1,2\n2,x\n3,5\n4,4\n2,8\n") + " --tau-max 1", "text.csv");
    expect_error("pcmci --data " + c + " --links " + write("l1.tsv", "v0\tv9\t1\t-->\n"), "no series named 'v9'");
    expect_error("pcmci --data " + c + " --links " + write("l2.tsv", "v0\tv1\t1\t->\n"), "type '->'");
    expect_error("pcmci --data " + c + " --links " + write("l3.tsv", "v0\tv1\t0\t-->\nv1\tv0\t0\t-->\n"),
                 "inconsistent link assumptions");
    const CliRun png = run("pcmci --data " + c + " --out " + (dir_ / "r.h5").string() + " --format gif");
    EXPECT_EQ(png.code, 1) << png.err;
    EXPECT_NE(png.err.find("unknown --format 'gif' (available: links, json, dot, png, svg)"), std::string::npos)
        << png.err;
    EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
}

/// The rows of a reference csv (header skipped), cells as numbers.
std::vector<std::vector<double>> csv_rows(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::vector<double>> rows;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        std::vector<double> row;
        std::stringstream cells(line);
        for (std::string c; std::getline(cells, c, ',');) row.push_back(std::stod(c));
        rows.push_back(row);
    }
    return rows;
}

TEST_F(CliPcmci, MissingFlagAndSeveralSeriesEqualTigramite) {
    // tigramite's DataFrame(missing_flag=999.): m00 (tau_max 2), m01 (tau_max 3, pc_alpha 0.05, fdr_bh).
    const CliRun m0 = run("pcmci --data " + kData + "m00.csv --tau-max 2 --missing-flag 999 -q");
    ASSERT_EQ(m0.code, 0) << m0.err;
    expect_links_table(m0.out, kData + "m00.tsv", 4, 2, 4);
    const CliRun m1 =
        run("pcmci --data " + kData + "m01.csv --tau-max 3 --pc-alpha 0.05 --fdr fdr_bh --missing-flag 999.0 -q");
    ASSERT_EQ(m1.code, 0) << m1.err;
    expect_links_table(m1.out, kData + "m01.tsv", 5, 3, 4);
    // The same missing cells as empty cells: --missing-flag nan.
    std::ifstream src(kData + "m00.csv");
    std::string text;
    for (std::string line; std::getline(src, line);) {
        std::stringstream cells(line);
        bool first = true;
        for (std::string c; std::getline(cells, c, ',');) {
            if (!first) text += ',';
            first = false;
            if (c != "999") text += c;  // a flagged cell becomes empty
        }
        text += '\n';
    }
    const CliRun e = run("pcmci --data " + write("empty.csv", text) + " --tau-max 2 --missing-flag nan -q");
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_EQ(e.out, m0.out);
    // Several series (analysis_mode 'multiple') by a series column, a time column dropped:
    // g01 has a series of 4 steps (no sample at tau_max 2) and missing cells.
    const CliRun s1 = run("pcmci --data " + kData +
                          "g01.csv --series-column series --time-column t --missing-flag 999 --tau-max 2 "
                          "--pc-alpha 0.1 -q");
    ASSERT_EQ(s1.code, 0) << s1.err;
    expect_links_table(s1.out, kData + "g01.tsv", 3, 2, 2);
    // The same series as the datasets of an HDF5 group (in the order of their names).
    const std::vector<std::vector<double>> rows = csv_rows(kData + "g00.csv");
    const fs::path h5 = dir_ / "runs.h5";
    {
        cudag::io::h5::Handle file = cudag::io::h5::create_file(h5.string());
        cudag::io::h5::Handle group = cudag::io::h5::create_group(file.get(), "runs", h5.string());
        for (int m = 0; m < 3; ++m) {
            std::vector<double> values;
            hsize_t n = 0;
            for (const auto& r : rows)
                if (r[0] == m) {
                    values.insert(values.end(), r.begin() + 2, r.end());
                    ++n;
                }
            const std::string name(1, static_cast<char>('a' + m));
            cudag::io::h5::write_array(group.get(), name, values, {n, 4}, h5.string());
            cudag::io::h5::Handle ds =
                cudag::io::h5::check_id(H5Dopen2(group.get(), name.c_str(), H5P_DEFAULT), "open");
            cudag::io::h5::write_string_array_attr(ds.get(), "names", {"v0", "v1", "v2", "v3"}, h5.string());
        }
    }
    const CliRun g = run("pcmci --data " + h5.string() + " --dataset runs --tau-max 2 -q");
    ASSERT_EQ(g.code, 0) << g.err;
    expect_links_table(g.out, kData + "g00.tsv", 4, 2, 4);
    const CliRun c = run("pcmci --data " + kData + "g00.csv --series-column series --time-column t --tau-max 2 -q");
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(c.out, g.out);
    // The settings are recorded.
    const std::string json = json_of("pcmci --data " + kData +
                                     "g01.csv --series-column series --time-column t --missing-flag 999 --tau-max 2");
    EXPECT_NE(json.find("\"missing_flag\":\"999\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"series_column\":\"series\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"time_column\":\"t\""), std::string::npos) << json;
}

TEST_F(CliPcmci, PcmciplusWithMissingFlagAndSeveralSeriesEqualsTigramite) {
    // run_pcmciplus on DataFrame(missing_flag=999.) and on DataFrame(dict, 'multiple') with
    // missing cells (one series of 5 steps: no sample at tau_max 2).
    const std::string plus = std::string(CUDAG_SOURCE_DIR) + "/tests/data/pcmciplus/";
    const CliRun m =
        run("pcmci --method pcmciplus --data " + plus + "m00.csv --missing-flag 999 --tau-max 2 --pc-alpha 0.05 -q");
    ASSERT_EQ(m.code, 0) << m.err;
    expect_links_table(m.out, plus + "m00.tsv", 5, 2, 4);
    const CliRun s = run("pcmci --method pcmciplus --data " + plus +
                         "g00.csv --series-column series --time-column t --missing-flag 999 --tau-max 2 "
                         "--pc-alpha 0.1 -q");
    ASSERT_EQ(s.code, 0) << s.err;
    expect_links_table(s.out, plus + "g00.tsv", 4, 2, 4);
}

TEST_F(CliPcmci, BadSeriesInputIsOneLineAndWritesNothing) {
    std::string rows = "t,a,b\n";
    for (int t = 0; t < 12; ++t)
        rows += std::to_string(t == 7 ? 5 : t) + "," + std::to_string((t * 7) % 5) + "," + std::to_string((t * 3) % 4) +
                "\n";
    const std::string order = write("order.csv", rows);
    // Row 8 (t = 5 after t = 6): rows out of order, named.
    expect_error("pcmci --data " + order + " --time-column t", "row 8 (data rows counted from 1): time 5");
    expect_error("pcmci --data " + order + " --time-column t", "not after the 6 of row 7");
    expect_error("pcmci --data " + order + " --time-column time", "--time-column 'time'");
    expect_error("pcmci --data " + order + " --series-column s", "--series-column 's'");
    expect_error("pcmci --data " + order + " --series-column t --time-column t", "name the same column");
    expect_error("pcmci --data " + order + " --missing-flag abc", "--missing-flag 'abc'");
    // Within each series: series 1's rows in order, series 2's times go back (row 5).
    const std::string two = write("two.csv", "s,t,a\n1,0,3\n2,0,1\n1,1,4\n2,2,2\n2,1,5\n1,2,1\n");
    expect_error("pcmci --data " + two + " --series-column s --time-column t", "row 5 (data rows counted from 1)");
    expect_error("pcmci --data " + two + " --series-column s --time-column t", "(series 2)");
    // A series constant on the steps the tests use (2*tau_max..T-1), though not before.
    expect_error("pcmci --data " + write("late.csv", "a,b\n5,2\n1,3\n2,5\n2,4\n2,8\n2,1\n2,0\n2,2\n") + " --tau-max 1",
                 "'a' is constant on the time steps the tests use");
    // A series missing in every row; tau_max leaving every series no sample.
    expect_error("pcmci --data " + write("gone.csv", "a,b\n1,9\n2,9\n3,9\n4,9\n5,9\n") + " --missing-flag 9",
                 "series 'b' is missing in every row");
    const std::string sh = write("short.csv", "s,a,b\n1,1,2\n1,2,1\n1,3,3\n2,1,2\n2,5,1\n2,3,3\n");
    expect_error("pcmci --data " + sh + " --series-column s --tau-max 2", "tau_max 2 leaves no samples");
    // Group datasets with different columns; a group and a series column at once.
    const fs::path h5 = dir_ / "g.h5";
    {
        cudag::io::h5::Handle file = cudag::io::h5::create_file(h5.string());
        cudag::io::h5::Handle group = cudag::io::h5::create_group(file.get(), "g", h5.string());
        cudag::io::h5::write_array(group.get(), "one", std::vector<double>{1, 2, 2, 1, 3, 5, 4, 4}, {4, 2},
                                   h5.string());
        cudag::io::h5::write_array(group.get(), "two", std::vector<double>{1, 2, 3, 2, 1, 3, 4, 4, 5, 6, 7, 7}, {4, 3},
                                   h5.string());
    }
    expect_error("pcmci --data " + h5.string() + " --dataset g", "g/two: its columns are not those of");
    expect_error("pcmci --data " + h5.string() + " --dataset g --series-column X1", "give one");
    expect_error("pcmci --data " + h5.string() + " --dataset nothere", "no dataset or group '/nothere'");
}

}  // namespace
