// SPDX-License-Identifier: Apache-2.0
// Issue 55: mixed columns and missing cells in the readers, --discrete-columns /
// --continuous-columns, listwise deletion and the complete rows of a test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/missing.hpp"
#include "io/table_reader.hpp"

namespace {

using cudag::Dataset;
using cudag::io::ReadOptions;
using cudag::io::TableMode;

ReadOptions keep(TableMode mode) {
    ReadOptions o;
    o.mode = mode;
    o.keep_missing = true;
    return o;
}

std::vector<double> col(const Dataset& d, std::int64_t v) { return {d.column(v), d.column(v) + d.n_samples}; }

std::string message(const std::function<void()>& f) {
    try {
        f();
    } catch (const cudag::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(MissingCells, KeptAsNaNInEveryModeAndCounted) {
    // Empty cells, NA tokens in a numeric column and a trailing empty last cell.
    const std::string text = "a,b,c\n1.5,,x\nNA,2,\n3,4.5,y\n2,1,x\n";
    const Dataset d = cudag::io::parse_table(text, "t.csv", keep(TableMode::Auto));
    ASSERT_TRUE(d.mixed());
    EXPECT_EQ(d.missing, 3);
    EXPECT_TRUE(std::isnan(d.column(0)[1]));
    EXPECT_TRUE(std::isnan(d.column(1)[0]));
    EXPECT_TRUE(std::isnan(d.column(2)[1]));
    EXPECT_EQ(d.column(2)[0], 0.0);
    EXPECT_EQ(d.column(2)[2], 1.0);
    EXPECT_EQ(d.levels[2], (std::vector<std::string>{"x", "y"}));
    // Numeric mode: an empty cell and a NaN token.
    const Dataset n = cudag::io::parse_table("a,b\n1,\nnan,2\n3,4\n", "t.csv", keep(TableMode::Numeric));
    EXPECT_EQ(n.missing, 2);
    EXPECT_FALSE(n.discrete());
    // Labels mode: only empty cells and --na-values tokens are missing (NA is a level).
    ReadOptions l = keep(TableMode::Labels);
    l.na_values = {"?"};
    const Dataset s = cudag::io::parse_table("a,b\nNA,?\nx,1\n,2\n", "t.csv", l);
    EXPECT_EQ(s.missing, 2);
    EXPECT_EQ(s.levels[0], (std::vector<std::string>{"NA", "x"}));
    EXPECT_EQ(s.levels[1], (std::vector<std::string>{"1", "2"}));
    // Without keep_missing the first missing cell is still an error naming it.
    EXPECT_EQ(message([&] { cudag::io::parse_table(text, "t.csv", TableMode::Auto); }),
              "t.csv:2:2: missing value (empty field) in column 'b'");
}

TEST(MissingCells, ALastEmptyCellDoesNotHideTheDelimiter) {
    const Dataset d = cudag::io::parse_table("a,b,c,d\n1,2,3,\n4,5,6,7\n", "t.csv", keep(TableMode::Numeric));
    EXPECT_EQ(d.n_vars, 4);
    EXPECT_EQ(d.missing, 1);
    EXPECT_TRUE(std::isnan(d.column(3)[0]));
}

TEST(ColumnTypes, NamedColumnsChangeTypeAndBadNamesAreRefused) {
    Dataset d = cudag::io::parse_table("g,x,s\n1,0.5,a\n2,1.5,b\n1,2.5,a\n", "t.csv", TableMode::Auto);
    cudag::io::apply_column_types(d, {{"g"}, {}});
    EXPECT_TRUE(d.is_discrete(0));
    EXPECT_EQ(d.levels[0], (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(col(d, 0), (std::vector<double>{0, 1, 0}));
    EXPECT_FALSE(d.is_discrete(1));
    // A discrete column named continuous: the numbers its labels spell.
    Dataset l = cudag::io::parse_table("a,b\n3,x\n10,y\n", "t.csv", TableMode::Labels);
    cudag::io::apply_column_types(l, {{}, {"a"}});
    EXPECT_TRUE(l.mixed());
    EXPECT_EQ(col(l, 0), (std::vector<double>{3, 10}));
    EXPECT_EQ(message([&] {
                  cudag::io::apply_column_types(l, {{}, {"b"}});
              }),
              "t.csv: column 'b' holds the label 'x' (data row 1): --continuous-columns reads numbers only");
    EXPECT_EQ(message([&] {
                  cudag::io::apply_column_types(l, {{"zz"}, {}});
              }),
              "--discrete-columns: no column 'zz' in t.csv");
    EXPECT_EQ(message([&] {
                  cudag::io::apply_column_types(l, {{"a"}, {"a"}});
              }),
              "column 'a' is named by both --discrete-columns and --continuous-columns");
    // Every column continuous again: no levels at all.
    Dataset c = cudag::io::parse_table("a,b\n1,2\n3,4\n", "t.csv", TableMode::Numeric);
    cudag::io::apply_column_types(c, {{"a"}, {}});
    cudag::io::apply_column_types(c, {{}, {"a"}});
    EXPECT_TRUE(c.levels.empty());
    // A forced discrete column keeps its missing cells missing; too many levels are refused.
    Dataset m = cudag::io::parse_table("a,b\n2,1\n,2\n1,3\n", "t.csv", keep(TableMode::Numeric));
    cudag::io::apply_column_types(m, {{"a"}, {}});
    EXPECT_EQ(m.levels[0], (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(m.column(0)[0], 1.0);
    EXPECT_TRUE(std::isnan(m.column(0)[1]));
    std::string many = "a\n";
    for (int k = 0; k < 300; ++k) many += std::to_string(k) + ".5\n";
    Dataset big = cudag::io::parse_table(many, "t.csv", TableMode::Numeric);
    EXPECT_NE(message([&] {
                  cudag::io::apply_column_types(big, {{"a"}, {}});
              }).find("300 distinct values"),
              std::string::npos);
}

TEST(Listwise, DropsIncompleteRowsAndLevelsTheyAloneHeld) {
    Dataset d = cudag::io::parse_table("a,b\n1.5,x\n,y\n2.5,z\n3.5,\n", "t.csv", keep(TableMode::Auto));
    ASSERT_EQ(d.missing, 2);
    EXPECT_EQ(cudag::drop_incomplete_rows(d), 2);
    EXPECT_EQ(d.n_samples, 2);
    EXPECT_EQ(d.missing, 0);
    EXPECT_EQ(col(d, 0), (std::vector<double>{1.5, 2.5}));
    EXPECT_EQ(d.levels[1], (std::vector<std::string>{"x", "z"}));  // y only in a dropped row
    EXPECT_EQ(col(d, 1), (std::vector<double>{0, 1}));
    Dataset none = cudag::io::parse_table("a,b\n1,\n,2\n", "t.csv", keep(TableMode::Numeric));
    EXPECT_NE(message([&] { cudag::drop_incomplete_rows(none); }).find("every row has a missing cell"),
              std::string::npos);
}

TEST(Testwise, CompleteRowsAndSubsetsOfATestsVariables) {
    const Dataset d =
        cudag::io::parse_table("a,b,c,s\n1.5,,3,x\n2.5,5,,y\n,6,7,z\n4.5,8,9,x\n", "t.csv", keep(TableMode::Auto));
    const std::vector<std::int32_t> ab{0, 1};
    EXPECT_EQ(cudag::complete_rows(d, ab), (std::vector<std::int64_t>{1, 3}));
    const std::vector<std::int32_t> sa{3, 0};
    const std::vector<std::int64_t> rows = cudag::complete_rows(d, sa);
    EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 1, 3}));
    const Dataset s = cudag::subset(d, sa, rows);
    EXPECT_EQ(s.names, (std::vector<std::string>{"s", "a"}));
    ASSERT_TRUE(s.mixed());
    EXPECT_EQ(s.levels[0], (std::vector<std::string>{"x", "y"}));  // z only in row 2
    EXPECT_EQ(col(s, 0), (std::vector<double>{0, 1, 0}));
    EXPECT_EQ(col(s, 1), (std::vector<double>{1.5, 2.5, 4.5}));
    EXPECT_EQ(s.missing, 0);
    // A column missing in every row is refused by name.
    const Dataset e = cudag::io::parse_table("a,b\n1,\n2,\n", "t.csv", keep(TableMode::Numeric));
    EXPECT_EQ(message([&] { cudag::check_missing_columns(e); }), "t.csv: column 'b' is missing in every row; drop it");
    EXPECT_EQ(cudag::parse_missing("testwise"), cudag::MissingPolicy::Testwise);
    EXPECT_EQ(message([] { cudag::parse_missing("pairwise"); }),
              "--missing must be error, testwise or listwise, got 'pairwise'");
}

}  // namespace
