// SPDX-License-Identifier: Apache-2.0
// The cudag binary on bad or ambiguous input (issue 18): a stray cell in a column, data
// that look discrete, and --data - (standard input).
#include <gtest/gtest.h>

#include <cmath>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using cudag::test::CliRun;

class CliInput : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("cudag_cli_input_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                "_" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// Run cudag with `args`; `input` (if not empty) becomes its standard input.
    CliRun run(const std::string& args, const fs::path& input = {}) {
        return cudag::test::run_cudag(args, dir_, input);
    }
    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        std::ofstream(p) << text;
        return p;
    }
    /// A failing run: exit code 1 and exactly one line on stderr containing `what`.
    void expect_error(const std::string& args, const std::string& what, const fs::path& input = {}) {
        const CliRun r = run(args, input);
        EXPECT_EQ(r.code, 1) << args;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
        EXPECT_NE(r.err.find(what), std::string::npos) << "stderr: " << r.err << " (wanted '" << what << "')";
    }
    fs::path dir_;
};

/// Header a,b,c,d and 300 rows of distinct numbers (a chain a -> b -> c, d apart); the
/// cell of data row `row` (file row row + 1) in column `col` (from 1) replaced by `cell`.
std::string continuous_csv(int row = 0, int col = 0, const std::string& cell = "") {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise;
    std::ostringstream os;
    os << std::setprecision(17) << "a,b,c,d\n";
    for (int s = 1; s <= 300; ++s) {
        double v[4];
        v[0] = noise(rng);
        v[1] = 0.8 * v[0] + 0.5 * noise(rng);
        v[2] = 0.8 * v[1] + 0.5 * noise(rng);
        v[3] = noise(rng);
        for (int k = 1; k <= 4; ++k) {
            if (s == row && k == col)
                os << cell;
            else
                os << v[k - 1];
            os << (k == 4 ? '\n' : ',');
        }
    }
    return os.str();
}

/// continuous_csv's values times 2^exponent (exact: printed to 17 digits).
std::string scaled_csv(int exponent) {
    std::istringstream in(continuous_csv());
    std::ostringstream os;
    os << std::setprecision(17);
    std::string line;
    std::getline(in, line);
    os << line << '\n';
    while (std::getline(in, line)) {
        std::istringstream cells(line);
        std::string cell;
        for (int k = 0; std::getline(cells, cell, ','); ++k)
            os << (k ? "," : "") << std::ldexp(std::stod(cell), exponent);
        os << '\n';
    }
    return os.str();
}

}  // namespace

// Issue 33 item 6: values near 1e+-154 and beyond overflowed (or underflowed) the sums of
// squares: an empty graph, exit 0. Fisher-z and CMIknn on ranks are scale-invariant: the
// same graph at any magnitude.
TEST_F(CliInput, HugeAndTinyMagnitudesGiveTheGraphOfOrdinaryOnes) {
    write("d.csv", continuous_csv());
    for (const std::string test : {"fisher-z", "cmiknn --permutations 99 --knn 10"}) {
        const CliRun want = run("pc -q --alpha 0.05 --test " + test + " --data " + (dir_ / "d.csv").string());
        ASSERT_EQ(want.code, 0) << want.err;
        ASSERT_NE(want.out.find("a\tb"), std::string::npos) << "the chain's edges: " << want.out;
        for (const int exponent : {600, 520, -600, -1000}) {
            write("s.csv", scaled_csv(exponent));
            const CliRun got = run("pc -q --alpha 0.05 --test " + test + " --data " + (dir_ / "s.csv").string());
            ASSERT_EQ(got.code, 0) << got.err;
            EXPECT_EQ(got.out, want.out) << test << ", values times 2^" << exponent;
        }
    }
}

// Item 6: a typo cell in continuous data is reported as that cell, not as a discrete
// column with too many levels.
TEST_F(CliInput, TypoCellInContinuousDataNamesTheCell) {
    for (const std::string cell : {"abc", "0x10", "\"1,5\""}) {
        const std::string shown = cell[0] == '"' ? cell.substr(1, cell.size() - 2) : cell;
        const auto p = write("typo.csv", continuous_csv(11, 4, cell));
        const std::string want = "typo.csv:12:4: non-numeric value '" + shown + "' in column 'd'";
        expect_error("pc --data " + p.string(), want);
        expect_error("pc --data " + p.string(), "--discrete");
        // --test fisher-z says the same.
        expect_error("pc --data " + p.string() + " --test fisher-z", want);
    }
}

TEST_F(CliInput, StrayNumberInLabelColumnNamesTheCell) {
    std::string text = "x,y\n";
    for (int k = 0; k < 50; ++k)
        text += std::string(k == 20 ? "7" : (k % 2 ? "hi" : "lo")) + "," + (k % 3 ? "u" : "v") + "\n";
    const auto p = write("lab.csv", text);
    expect_error("pc --data " + p.string(), "lab.csv:22:1: numeric value '7' in column 'x'");
    // --discrete reads every cell as a label, "7" included.
    const CliRun r = run("pc --data " + p.string() + " --discrete -q");
    EXPECT_EQ(r.code, 0) << r.err;
}

// Item 12: integer codes run fisher-z, with a note saying how to choose.
TEST_F(CliInput, IntegerCodedDataGetANoteAndStillRunFisherZ) {
    const std::string data = (dir_ / "d.csv").string();
    ASSERT_EQ(run("simulate discrete --vars 8 --samples 400 --density 0.2 --states 3 --seed 2 "
                  "--out " +
                  data)
                  .code,
              0);
    const CliRun r = run("pc --data " + data);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("look discrete"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--discrete"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--test fisher-z"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("fisher-z:"), std::string::npos) << "still Fisher-z: " << r.err;
    EXPECT_EQ(r.err.find("discrete variables"), std::string::npos) << r.err;
    // Silenced by -q, by --test fisher-z, and absent with --discrete.
    for (const char* extra : {" -q", " --test fisher-z", " --discrete"}) {
        const CliRun s = run("pc --data " + data + extra);
        EXPECT_EQ(s.code, 0) << extra << ": " << s.err;
        EXPECT_EQ(s.err.find("look discrete"), std::string::npos) << extra << ": " << s.err;
    }
    // Continuous data get no note.
    const auto c = write("c.csv", continuous_csv());
    const CliRun s = run("pc --data " + c.string());
    EXPECT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(s.err.find("look discrete"), std::string::npos) << s.err;
}

// Item 13: --data - reads a text table from standard input.
TEST_F(CliInput, DashReadsStandardInput) {
    const auto p = write("ok.csv", continuous_csv());
    const CliRun from_file = run("pc --data " + p.string() + " -q");
    const CliRun from_stdin = run("pc --data - -q", p);
    ASSERT_EQ(from_stdin.code, 0) << from_stdin.err;
    EXPECT_EQ(from_stdin.out, from_file.out);
    EXPECT_NE(from_stdin.out.find("a\tb\t---"), std::string::npos) << from_stdin.out;

    const auto t = write("typo.csv", continuous_csv(11, 4, "abc"));
    expect_error("pc --data -", "<stdin>:12:4: non-numeric value 'abc' in column 'd'", t);
    expect_error("pc --data -", "<stdin>:1: no header row", "/dev/null");

    const std::string h5 = (dir_ / "g.h5").string();
    ASSERT_EQ(run("simulate gaussian --vars 4 --samples 50 --density 0.3 --seed 1 --out " + h5).code, 0);
    expect_error("pc --data -", "<stdin>: HDF5 input cannot be read from standard input", h5);
}

// Issue 33 item 11: --na-values TOKEN[,TOKEN...] (pandas' na_values) on every command that
// reads a data table: a cell equal to a token is a missing value, refused in one line
// naming its row and column; without the option the same cell is a number or a level.
TEST_F(CliInput, NaValuesAreMissingValuesInEveryCommand) {
    // Integer codes 0..2 (discrete for bdeu, numbers for fisher-z); data row 4 of column
    // 'b' (file row 5, column 2) holds -999.
    std::string text = "a,b,c\n";
    for (int k = 0; k < 60; ++k)
        text += std::to_string(k % 3) + "," + (k == 3 ? std::string("-999") : std::to_string((k / 3) % 3)) + "," +
                std::to_string((k * 7) % 3) + "\n";
    const std::string d = write("d.csv", text).string();
    const std::string want = d + ":5:2: missing value '-999' in column 'b'";
    const std::vector<std::string> commands = {
        "pc -q --data " + d,
        "pc -q --discrete --data " + d,
        "mcmc -q --score bdeu --iterations 20 --data " + d,
        "score --score bdeu --dag " + write("dag.tsv", "source\ttarget\tmark\na\tb\t-->\n").string() + " --data " + d,
        "citest --test fisher-z --x a --y b --data " + d,
        "citest --test g-square --x a --y b --data " + d,
    };
    for (const std::string& cmd : commands) {
        const CliRun plain = run(cmd);
        EXPECT_EQ(plain.code, 0) << cmd << ": " << plain.err;
        expect_error(cmd + " --na-values=NA,-999", want);
        expect_error(cmd + " --na-values=-999", want);
    }
    // Standard input too; an HDF5 file has no text cells: refused.
    expect_error("pc -q --data - --na-values=-999", "<stdin>:5:2: missing value '-999' in column 'b'", d);
    const CliRun sim = run("simulate gaussian --vars 3 --samples 20 --out " + (dir_ / "g.h5").string());
    ASSERT_EQ(sim.code, 0) << sim.err;
    expect_error("pc -q --data " + (dir_ / "g.h5").string() + " --na-values=-999",
                 "--na-values applies to text tables");
}

// ---- issue 53 item 5: column types ----------------------------------------------------

namespace {

/// Header `header`, then `rows` rows of two strongly dependent numbers a, b (4 decimals,
/// the first row 1.2881, 2.7376) and, when `labels`, a column c of labels x/y; numbers are
/// written with `decimal` as the decimal mark and cells separated by `delim`.
std::string dependent_table(int rows, bool labels, char delim = ',', char decimal = '.') {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> noise;
    std::ostringstream os;
    os << "a" << delim << "b" << (labels ? std::string(1, delim) + "c" : "") << '\n';
    for (int s = 0; s < rows; ++s) {
        const double a = s == 0 ? 1.2881 : noise(rng);
        const double b = s == 0 ? 2.7376 : 0.9 * a + 0.3 * noise(rng);
        std::ostringstream row;
        row << std::fixed << std::setprecision(4) << a << delim << b;
        if (labels) row << delim << (s % 2 ? "x" : "y");
        std::string text = row.str();
        if (decimal != '.') std::replace(text.begin(), text.end(), '.', decimal);
        os << text << '\n';
    }
    return os.str();
}

}  // namespace

// A text column beside continuous columns turned every number into a label: "3 discrete
// variables ... chi-square: 0 edges", exit 0, the reason only under -v. Mixed data are
// refused in one line naming a label column and a continuous one.
// Issue 55: a label column beside continuous numbers is mixed data (refused while no test
// took it, issue 53): pc runs cg-lrt and says so; the other readings as before.
TEST_F(CliInput, LabelColumnBesideContinuousColumnsIsMixedData) {
    const std::string m = write("m.csv", dependent_table(200, true)).string();
    for (const bool stdin_input : {false, true}) {  // standard input: the same rule
        const CliRun r = stdin_input ? run("pc -v --data -", m) : run("pc -v --data " + m);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("holds mixed data: 1 discrete and 2 continuous columns (--test cg-lrt)"),
                  std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("column types: a continuous, b continuous, c discrete (2 levels)"), std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("3 mixed variables, 200 samples, cg-lrt"), std::string::npos) << r.err;
    }
    // --discrete reads every cell as a label; a's numbers with fractions are then refused by
    // the discrete test, not tested as 200 levels.
    expect_error("pc --data " + m + " --discrete",
                 "column 'a' holds the non-integer value 1.2881 (data row 1) among numbers only: chi-square needs "
                 "discrete data");
    // --test fisher-z names the label cell, as before.
    expect_error("pc --data " + m + " --test fisher-z", m + ":2:3: non-numeric value 'y' in column 'c'");
    // Without the label column the two numbers are one edge.
    const CliRun r = run("pc -q --data " + write("n.csv", dependent_table(200, false)).string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("a\tb\t---"), std::string::npos) << r.out;
    // Integer codes beside a label column stay discrete data.
    std::string codes = "a,b,c\n";
    for (int k = 0; k < 200; ++k)
        codes += std::to_string(k % 3) + "," + std::to_string((k / 2) % 3) + "," + (k % 2 ? "x" : "y") + "\n";
    const CliRun d = run("pc --data " + write("codes.csv", codes).string());
    EXPECT_EQ(d.code, 0) << d.err;
    EXPECT_NE(d.err.find("3 discrete variables"), std::string::npos) << d.err;
    // ... unless named continuous: mixed data again.
    const CliRun c = run("pc --data " + write("codes2.csv", codes).string() + " --continuous-columns a,b");
    EXPECT_EQ(c.code, 0) << c.err;
    EXPECT_NE(c.err.find("cg-lrt"), std::string::npos) << c.err;
}

// Numbers with a decimal comma (R's write.csv2: "1,2881;2,7376") were labels: "2 discrete
// variables ... 0 edges", exit 0. Refused by name in every command and mode.
TEST_F(CliInput, DecimalCommasAreRefusedByName) {
    const std::string p = write("eu.csv", dependent_table(60, false, ';', ',')).string();
    const std::string dag = write("dag.tsv", "source\ttarget\tmark\na\tb\t-->\n").string();
    const std::string want = p +
                             ":2:1: '1,2881' in column 'a' looks like a number with a decimal comma; cudag reads "
                             "decimal points: write the table with '.' as the decimal mark";
    for (const std::string& cmd : {
             "pc --data " + p,
             "pc --data " + p + " --discrete",
             "pc --data " + p + " --test fisher-z",
             "pc --data " + p + " --test cmiknn",
             "citest --test chi-square --x a --y b --data " + p,
             "citest --test fisher-z --x a --y b --data " + p,
             "score --score bdeu --dag " + dag + " --data " + p,
             "score --score bge --dag " + dag + " --data " + p,
             "mcmc -q --score k2 --iterations 20 --data " + p,
             "mcmc -q --score bge --iterations 20 --data " + p,
         }) {
        expect_error(cmd, want);
        // No hint for another kind of cell is added ("--discrete reads every cell as a label",
        // "bdeu, k2 take labels").
        const CliRun r = run(cmd);
        EXPECT_EQ(r.err.find("label"), std::string::npos) << cmd << ": " << r.err;
    }
    // A one-column table (no delimiter to sniff) too.
    expect_error("pc --data " + write("one.txt", "x\n0,5\n1,5\n2,5\n").string(),
                 "one.txt:2:1: '0,5' in column 'x' looks like a number with a decimal comma");
}

// A discrete test on numbers with fractions made every value a level: citest --test
// chi-square on 200 floats gave dof 39,601, p = 1. Refused naming the column, the value
// and its data row, as BDeu and K2 refuse it; HDF5 input too.
TEST_F(CliInput, DiscreteTestsRefuseNumbersWithAFraction) {
    const std::string p = write("f.csv", dependent_table(200, false)).string();
    const std::string at = p + ": column 'a' holds the non-integer value 1.2881 (data row 1) among numbers only: ";
    expect_error("citest --test chi-square --x a --y b --data " + p,
                 at + "chi-square needs discrete data, integer codes or labels (continuous data: --test fisher-z)");
    expect_error("citest --test g-square --x a --y b --data " + p, at + "g-square needs discrete data");
    expect_error("pc --test g-square --data " + p, at + "g-square needs discrete data");
    expect_error("pc --discrete --data " + p, at + "chi-square needs discrete data");
    expect_error(
        "score --score k2 --dag " + write("dag.tsv", "source\ttarget\tmark\na\tb\t-->\n").string() + " --data " + p,
        at + "BDeu and K2 score discrete data");
    // HDF5 floats are discretised by value, then refused the same way.
    const std::string h5 = (dir_ / "g.h5").string();
    ASSERT_EQ(run("simulate gaussian --vars 3 --samples 100 --density 0.5 --seed 1 --out " + h5).code, 0);
    expect_error("citest --test chi-square --x X1 --y X2 --data " + h5,
                 "g.h5:/data: column 'X1' holds the non-integer value ");
    expect_error("citest --test chi-square --x X1 --y X2 --data " + h5, "(data row 1) among numbers only");
    // Integer codes (some written 1.0) are discrete data.
    std::string codes = "a,b\n";
    for (int k = 0; k < 100; ++k)
        codes += (k == 0 ? std::string("1.0") : std::to_string(k % 3)) + "," + std::to_string((k / 3) % 2) + "\n";
    const CliRun r = run("citest --test chi-square --x a --y b --data " + write("codes.csv", codes).string());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("dof\t2"), std::string::npos) << r.out;
}
