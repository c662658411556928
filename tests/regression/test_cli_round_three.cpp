// SPDX-License-Identifier: Apache-2.0
// Issue 53 ("never lose work, round three"), the items that are not checkpoints: one rule
// for extreme magnitudes in every command (4), files a command creates never replaced by
// accident (9), valid JSON whatever the names (10), and the small messages (11).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/format.hpp"
#include "support/cli_fixture.hpp"

namespace {

using cudag::test::Cli;
using cudag::test::CliRun;
namespace fs = std::filesystem;

class RoundThree : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        const CliRun r = run("simulate gaussian -q --vars 4 --samples 300 --density 0.6 --seed 2 --out " + p("g.csv"));
        ASSERT_EQ(r.code, 0) << r.err;
    }
    std::string p(const std::string& name) const { return (dir_ / name).string(); }
    /// g.csv with every value multiplied by `factor`, as `name`.
    void scaled(double factor, const std::string& name) {
        std::ifstream in(dir_ / "g.csv");
        std::ofstream out(dir_ / name);
        std::string line;
        std::getline(in, line);
        out << line << '\n';
        while (std::getline(in, line)) {
            std::stringstream ss(line);
            std::string cell;
            for (int c = 0; std::getline(ss, cell, ','); ++c)
                out << (c ? "," : "") << cudag::exact_number(std::strtod(cell.c_str(), nullptr) * factor);
            out << '\n';
        }
    }
    /// The value of `key` in citest's TSV output.
    static double field(const std::string& out, const std::string& key) {
        const std::size_t at = out.find("\n" + key + "\t");
        EXPECT_NE(at, std::string::npos) << out;
        return at == std::string::npos ? std::nan("") : std::strtod(out.c_str() + at + key.size() + 2, nullptr);
    }
};

/// Whether `text` is well-formed UTF-8 throughout.
bool utf8(const std::string& text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = cudag::utf8_sequence(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

}  // namespace

// Item 4: citest's tests rescale extreme columns as pc does (the same p-values on data times
// 2^1000 ~ 1e301 and 2^-1000 ~ 1e-301 as on the data, exactly; about the same at 1e300); the
// BGe score, which depends on the scale, refuses them in
// score and mcmc; a non-finite statistic is never a result.
TEST_F(RoundThree, ExtremeMagnitudesFollowOneRuleInEveryCommand) {
    scaled(1e300, "big.csv");
    scaled(1e-300, "small.csv");
    scaled(std::ldexp(1.0, 1000), "big2.csv");
    scaled(std::ldexp(1.0, -1000), "small2.csv");
    for (const std::string test : {"fisher-z", "cmiknn --transform standardize --permutations 100 --seed 1",
                                   "cmiknn --transform none --permutations 100 --seed 1"}) {
        const std::string args = " --x X1 --y X2 --given X3 --test " + test;
        const CliRun plain = run("citest --data " + p("g.csv") + args);
        ASSERT_EQ(plain.code, 0) << plain.err;
        const double p0 = field(plain.out, "p_value");
        ASSERT_GT(p0, 0.0);
        for (const char* f : {"big2.csv", "small2.csv"}) {
            const CliRun r = run("citest --data " + p(f) + args);
            ASSERT_EQ(r.code, 0) << r.err;
            EXPECT_EQ(field(r.out, "p_value"), p0) << test << " on " << f;
            EXPECT_EQ(field(r.out, "statistic"), field(plain.out, "statistic")) << test << " on " << f;
        }
        // A factor that is not a power of two changes the last digits only: Fisher-z's p by
        // rounding (CMIknn's count of exceedances may move by one, its values being ties).
        if (test != "fisher-z") continue;
        for (const char* f : {"big.csv", "small.csv"}) {
            const CliRun r = run("citest --data " + p(f) + args);
            ASSERT_EQ(r.code, 0) << r.err;
            EXPECT_NEAR(field(r.out, "p_value"), p0, 1e-9 * p0) << f;
        }
    }
    const std::string dag = write("dag.tsv", "source\ttarget\tmark\nX1\tX2\t-->\n").string();
    for (const auto& [f, how] : {std::pair{"big.csv", "overflow"}, std::pair{"small.csv", "underflow"}}) {
        expect_error("score --score bge --dag " + dag + " --data " + p(f), p(f) + ": column 'X1' reaches magnitude ");
        expect_error("score --score bge --dag " + dag + " --data " + p(f),
                     std::string("where its squares ") + how + "; --score bge depends on the data's scale");
        expect_error("mcmc -q --score bge --iterations 50 --data " + p(f), "--score bge depends on the data's scale");
    }
    // A column without variance in the test: an error naming the test, not p = 1.
    write("flat.csv", "a,b,c\n1,2,5\n1,3,6\n1,1,4\n1,5,1\n1,2,2\n1,7,3\n");
    const CliRun r = run("citest --data " + p("flat.csv") + " --x a --y b --test fisher-z");
    EXPECT_NE(r.code, 0) << r.out;
}

// Item 9: what simulate and --write-resample create never replaces a file without
// --overwrite; --force has its one meaning.
TEST_F(RoundThree, CreatedFilesNeedOverwriteToReplaceAFile) {
    const std::string data = cudag::test::slurp(dir_ / "g.csv");
    const std::string sim = "simulate gaussian -q --vars 3 --samples 20 --seed 9 ";
    expect_error(sim + "--out " + p("g.csv"), "--out '" + p("g.csv") + "' exists: add --overwrite to replace it");
    expect_error(sim + "--out " + p("n.csv") + " --truth " + p("g.csv"), "--truth '" + p("g.csv") + "' exists");
    expect_error("simulate discrete -q --vars 3 --samples 20 --out " + p("g.csv"), "exists: add --overwrite");
    EXPECT_EQ(cudag::test::slurp(dir_ / "g.csv"), data);
    EXPECT_FALSE(fs::exists(dir_ / "n.csv"));
    CliRun r = run(sim + "--out " + p("g.csv") + " --overwrite");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(cudag::test::slurp(dir_ / "g.csv"), data);
    // --write-resample.
    write("keep.csv", "precious");
    const std::string d = "pc --data " + std::string(CUDAG_SOURCE_DIR) + "/data/gaussian_20.csv ";
    expect_error(d + "--write-resample " + p("keep.csv"), "--write-resample '" + p("keep.csv") + "' exists");
    EXPECT_EQ(cudag::test::slurp(dir_ / "keep.csv"), "precious");
    r = run(d + "--write-resample " + p("keep.csv") + " --overwrite");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(cudag::test::slurp(dir_ / "keep.csv"), "precious");
    expect_error(d + "--overwrite", "--overwrite applies to --write-resample FILE");
    // --force without a drawing.
    expect_error(d + "--force", "--force applies to --format png/svg only");
    expect_error(d + "--force --out " + p("r.h5") + " --format edges", "--force applies to --format png/svg only");
    expect_error("mcmc -q --score bge --data " + p("g.csv") + " --force", "--force applies to --format png/svg only");
    EXPECT_FALSE(fs::exists(dir_ / "r.h5"));
}

// Item 10: names that are not UTF-8 (a Latin-1 file) give valid JSON.
TEST_F(RoundThree, JsonIsValidWhateverTheNames) {
    std::string text = cudag::test::slurp(dir_ / "g.csv");
    text.replace(0, text.find('\n'), "g\xe8ne,b\xff,\"c\"\"q\",X4");
    write("latin1.csv", text);
    CliRun r = run("pc -q --data " + p("latin1.csv") + " --out " + p("r.h5") + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string json = cudag::test::slurp(dir_ / "r.json");
    EXPECT_TRUE(utf8(json));
    EXPECT_NE(json.find("\"g\\u00e8ne\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"b\\u00ff\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"c\\\"q\""), std::string::npos) << json;
    r = run("citest --json --data " + p("latin1.csv") + " --x g\xe8ne --y b\xff --test fisher-z");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(utf8(r.out));
    EXPECT_NE(r.out.find("\"x\": \"g\\u00e8ne\""), std::string::npos) << r.out;
    // Well-formed UTF-8 stays as it is.
    text.replace(0, text.find('\n'), "g\xc3\xa8ne,b,c,X4");
    write("utf8.csv", text);
    r = run("pc -q --data " + p("utf8.csv") + " --out " + p("u.h5") + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(cudag::test::slurp(dir_ / "u.json").find("\"g\xc3\xa8ne\""), std::string::npos);
}

// Item 11: the small messages.
TEST_F(RoundThree, SmallMessagesSayWhatHappened) {
    // A compressed or binary input.
    ASSERT_EQ(std::system(("gzip -k " + p("g.csv")).c_str()), 0);
    expect_error("pc --data " + p("g.csv.gz"), p("g.csv.gz") + " is gzip-compressed: decompress it first");
    write("bin.csv", std::string("a,b\n1,\0\n", 8));
    expect_error("pc --data " + p("bin.csv"), "holds binary data (a NUL byte at byte 7)");
    // A quoted line break in the header, and in a row.
    write("ql.csv", "\"a\nb\",c\n1,2\n3,4\n");
    expect_error("pc --data " + p("ql.csv"), p("ql.csv") + ":1: a quoted field runs past the end of the line");
    write("qr.csv", "a,b,c\n4,5,6\n1,\"2\n\",3\n7,8,9\n");
    expect_error("pc --data " + p("qr.csv"), p("qr.csv") + ":3: a quoted field runs past the end of the line");
    // A negative count is not a key.
    expect_error("simulate discrete --vars 3 --samples 9 --max-parents -1 --out " + p("x.csv"),
                 "--max-parents: must be 0 or more, got -1");
    // mcmc's chain formats with --bootstrap.
    expect_error("mcmc --score bge --data " + p("g.csv") + " --bootstrap 2 --out " + p("b.h5") + " --format traces",
                 "--format traces describes one run's chains; with --bootstrap give freq and the graph formats");
    // A bad BIF's raw bytes are not echoed.
    write("bad.bif", "netw\xff\x1b[2Jork x {\n}\n");
    const CliRun r = run("simulate bif --bif " + p("bad.bif") + " --samples 5 --out " + p("s.csv"));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("'netw\\xff\\x1b'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
    // compare names an mcmc bootstrap's graph as the bootstrap's consensus.
    CliRun b = run("mcmc -q --score bge --iterations 200 --data " + p("g.csv") + " --bootstrap 2 --out " + p("mb.h5"));
    ASSERT_EQ(b.code, 0) << b.err;
    b = run("compare --truth " + p("mb.h5") + " --estimate " + p("mb.h5"));
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ((b.out + b.err).find("PC bootstrap"), std::string::npos) << b.out << b.err;
}
