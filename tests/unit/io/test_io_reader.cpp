// SPDX-License-Identifier: Apache-2.0
// Reading data sets: text tables (delimiter sniffing, bad input) and HDF5, and
// write_dataset -> read_dataset round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <hdf5.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"
#include "io/dataset_io.hpp"
#include "io/table_reader.hpp"
#include "tests/support/paths.hpp"

namespace fs = std::filesystem;

namespace {

/// A fresh directory per test, removed afterwards.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = fs::temp_directory_path() / ("cudag_io_reader_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
};

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// f() throws `Error` (cudag::InputError or a subclass) whose one-line message contains
/// every part.
template <class Error = cudag::InputError>
testing::AssertionResult throws_input_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
    try {
        f();
    } catch (const Error& e) {
        const std::string msg = e.what();
        if (msg.find('\n') != std::string::npos)
            return testing::AssertionFailure() << "message has several lines: " << msg;
        for (const std::string& p : parts)
            if (msg.find(p) == std::string::npos)
                return testing::AssertionFailure() << "message '" << msg << "' lacks '" << p << "'";
        return testing::AssertionSuccess() << msg;
    } catch (const std::exception& e) {
        return testing::AssertionFailure() << "threw another exception: " << e.what();
    }
    return testing::AssertionFailure() << "nothing thrown";
}

testing::AssertionResult bit_equal(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
    for (std::size_t k = 0; k < a.size(); ++k)
        if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0)
            return testing::AssertionFailure() << "value " << k << ": " << a[k] << " vs " << b[k] << " (bits differ)";
    return testing::AssertionSuccess();
}

cudag::Dataset tricky_dataset() {
    cudag::Dataset d;
    d.n_samples = 3;
    d.n_vars = 4;
    d.names = {"alpha", "b,c", "with space", "q\"uote"};
    d.values = {0.1,
                1.0 / 3.0,
                -0.0,  // alpha
                1e-300,
                5e-324,
                1.7976931348623157e308,  // b,c
                -2.5,
                123456789012345678.0,
                2.2250738585072014e-308,  // with space
                42.0,
                -1e22,
                0.30000000000000004};  // q"uote
    return d;
}

/// HDF5 helpers for building input files the way h5py would.
void h5_write_matrix(hid_t loc, const char* name, hid_t mem_type, hid_t file_type, const void* data, hsize_t rows,
                     hsize_t cols) {
    const hsize_t dims[2] = {rows, cols};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t ds = H5Dcreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(ds, 0);
    ASSERT_GE(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
    H5Dclose(ds);
    H5Sclose(space);
}

void h5_fixed_names_attr(hid_t file, const char* dataset, const char* attr_name, const std::vector<std::string>& names,
                         std::size_t width) {
    const hid_t ds = H5Dopen2(file, dataset, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, width);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    const hsize_t n = names.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    std::vector<char> buf(width * names.size(), '\0');
    for (std::size_t k = 0; k < names.size(); ++k)
        std::memcpy(buf.data() + k * width, names[k].data(), std::min(width, names[k].size()));
    const hid_t attr = H5Acreate2(ds, attr_name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, buf.data());
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(ds);
}

}  // namespace

// ---- delimiter sniffing ---------------------------------------------------------------

TEST(IoSniffDelimiter, PicksTheCharacterThatSplitsHeaderAndDataAlike) {
    using cudag::io::sniff_delimiter;
    EXPECT_EQ(sniff_delimiter("a,b,c", "1,2,3"), ',');
    EXPECT_EQ(sniff_delimiter("a\tb\tc", "1\t2\t3"), '\t');
    EXPECT_EQ(sniff_delimiter("a;b", "1,5;2,5"), ';');        // decimal commas in the data
    EXPECT_EQ(sniff_delimiter("a  b   c", " 1 2 3"), ' ');    // runs of blanks
    EXPECT_EQ(sniff_delimiter("x", "1.5"), ' ');              // one column
    EXPECT_EQ(sniff_delimiter("\"a,b\";\"c\"", "1;2"), ';');  // comma inside quotes ignored
    EXPECT_EQ(sniff_delimiter("a,b,c", ""), ',');             // header only
    EXPECT_EQ(sniff_delimiter("a,b,", "1,2"), ',');           // trailing delimiter
    EXPECT_EQ(sniff_delimiter("a\tb c", "1\t2"), '\t');       // spaces inside tab names
    EXPECT_EQ(sniff_delimiter("a,b\tc", "1,2\t3"), '\t');     // tie: tab first
}

// ---- text tables ---------------------------------------------------------------------

TEST(IoTableReader, ReadsCommaSeparatedVariableMajor) {
    TempDir dir;
    const std::string path = dir.file("d.csv");
    write_file(path, "a,b,c\n1,2,3\n4.5,-6e-3,+7\n");
    const cudag::Dataset d = cudag::io::read_table(path);
    EXPECT_EQ(d.n_samples, 2);
    EXPECT_EQ(d.n_vars, 3);
    EXPECT_EQ(d.names, (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(d.values, (std::vector<double>{1, 4.5, 2, -6e-3, 3, 7}));
    EXPECT_EQ(d.source, path);
}

TEST(IoTableReader, AcceptsCrlfQuotesTrailingDelimiterBomAndBlankLines) {
    TempDir dir;
    const std::string path = dir.file("d.csv");
    write_file(path, "\xEF\xBB\xBF\"a\",\"b \"\"x\"\"\",c,\r\n1,2,3,\r\n\r\n4,\"5\",6,\r\n\r\n  \n");
    const cudag::Dataset d = cudag::io::read_table(path);
    EXPECT_EQ(d.names, (std::vector<std::string>{"a", "b \"x\"", "c"}));
    EXPECT_EQ(d.n_samples, 2);
    EXPECT_EQ(d.values, (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(IoTableReader, ReadsTabSemicolonAndWhitespaceTables) {
    TempDir dir;
    const std::string tab = dir.file("t.txt");
    const std::string semi = dir.file("s.csv");
    const std::string ws = dir.file("w.txt");
    write_file(tab, "x\ty\n1\t2\n3\t4\n");
    write_file(semi, "x;y\n1;2\n3;4\n");
    write_file(ws, "  x    y\n1   2  \n\t3 \t 4\n");
    for (const std::string& p : {tab, semi, ws}) {
        const cudag::Dataset d = cudag::io::read_table(p);
        EXPECT_EQ(d.names, (std::vector<std::string>{"x", "y"})) << p;
        EXPECT_EQ(d.values, (std::vector<double>{1, 3, 2, 4})) << p;
    }
}

TEST(IoTableReader, EmptyFileHasNoHeaderRow) {
    TempDir dir;
    const std::string path = dir.file("empty.csv");
    write_file(path, "");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {path, "no header row"}));
    write_file(path, "\n  \r\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {path, "no header row"}));
}

TEST(IoTableReader, HeaderWithoutDataRowsIsAnError) {
    TempDir dir;
    const std::string path = dir.file("h.csv");
    write_file(path, "a,b,c\n\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {path + ":2:", "no data rows"}));
}

TEST(IoTableReader, RaggedRowNamesRowAndCounts) {
    TempDir dir;
    const std::string path = dir.file("r.csv");
    write_file(path, "a,b,c,d,e\n1,2,3,4,5\n1,2,3,4,5\n1,2,3,4,5\n1,2,3,4,5\n1,2,3,4,5\n1,2,3,4\n");
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_table(path); }, {path + ":7:", "row 7 has 4 fields, header has 5"}));
    write_file(path, "a,b\n1,2\n1,2,3,4\n");
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_table(path); }, {path + ":3:", "row 3 has 4 fields, header has 2"}));
}

TEST(IoTableReader, MissingValuesNameRowColumnAndName) {
    TempDir dir;
    const std::string path = dir.file("m.csv");
    struct Case {
        std::string cell;
        std::string expect;
    };
    const std::vector<Case> cases = {{"", "missing value (empty field)"}, {"NA", "missing value 'NA'"},
                                     {"NaN", "missing value 'NaN'"},      {"nan", "missing value 'nan'"},
                                     {"inf", "non-finite value 'inf'"},   {"Inf", "non-finite value 'Inf'"},
                                     {"-inf", "non-finite value '-inf'"}, {"1e999", "non-finite value '1e999'"}};
    for (const Case& c : cases) {
        write_file(path, "X1,X2,X3\n1,2,3\n4," + c.cell + ",6\n");
        EXPECT_TRUE(
            throws_input_error([&] { cudag::io::read_table(path); }, {path + ":3:2: ", c.expect, "column 'X2'"}))
            << "cell '" << c.cell << "'";
    }
}

TEST(IoTableReader, MissingValueInTabFileIsAnEmptyField) {
    TempDir dir;
    const std::string path = dir.file("m.tsv");
    write_file(path, "p\tq\tr\n1\t2\t3\n4\t\t6\n");
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_table(path); }, {path + ":3:2: ", "missing value", "column 'q'"}));
}

TEST(IoTableReader, NonNumericValueNamesTheColumn) {
    TempDir dir;
    const std::string path = dir.file("n.csv");
    write_file(path, "X1,X2,X3\n1,2,3\n4,5,abc\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); },
                                   {path + ":3:3: ", "non-numeric value 'abc' in column 'X3'"}));
    write_file(path, "X1;X2\n1,5;2\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {path + ":2:1: ", "'1,5'", "decimal comma"}));
    write_file(path, "X1,X2\n0x10,2\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {"non-numeric value '0x10' in column 'X1'"}));
}

TEST(IoTableReader, DuplicateAndEmptyColumnNamesAreErrors) {
    TempDir dir;
    const std::string path = dir.file("dup.csv");
    write_file(path, "a,b,a\n1,2,3\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); },
                                   {path + ":1:3: ", "duplicate column name 'a'", "column 1"}));
    write_file(path, ",a,b\n0,1,2\n");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {path + ":1:1: ", "empty name"}));
}

TEST(IoTableReader, MissingFileSaysNoSuchFile) {
    TempDir dir;
    const std::string path = dir.file("absent.csv");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_dataset(path); },
                                   {"cannot open '" + path + "': No such file or directory"}));
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_table(path); }, {"cannot open '" + path + "'"}));
}

TEST(IoTableReader, ParallelParseReportsTheFirstErrorInFileOrder) {
    // > 4 MiB so that several threads parse it; two bad cells far apart.
    const int rows = 3000, cols = 200;
    std::string text;
    for (int c = 0; c < cols; ++c) text += (c ? ",v" : "v") + std::to_string(c);
    text += '\n';
    std::vector<double> expect(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const double x = (r * 7919 + c * 104729) % 1000003 / 997.0 - 500.0;
            expect[static_cast<std::size_t>(c) * rows + r] = x;
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s%.17g", c ? "," : "", x);
            text += buf;
        }
        text += '\n';
    }
    ASSERT_GT(text.size(), std::size_t{4} << 20);
    const cudag::Dataset d = cudag::io::parse_table(text, "big.csv");
    EXPECT_EQ(d.n_samples, rows);
    EXPECT_EQ(d.n_vars, cols);
    EXPECT_TRUE(bit_equal(d.values, expect));

    // Corrupt data row 2500 (line 2501) and data row 100 (line 101).
    auto corrupt = [&text](int line, const std::string& cell) {
        std::size_t pos = 0;
        for (int k = 1; k < line; ++k) pos = text.find('\n', pos) + 1;
        const std::size_t end = text.find(',', pos);
        text.replace(pos, end - pos, cell);
    };
    corrupt(2501, "late");
    corrupt(101, "early");
    EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table(text, "big.csv"); },
                                   {"big.csv:101:1: ", "'early'", "column 'v0'"}));
}

// ---- causal-learn reference data -----------------------------------------------------

TEST(IoTableReader, LoadsCausalLearnLinearData) {
    const std::string dir = cudag::test::shared_data_dir();
    if (dir.empty()) GTEST_SKIP() << "shared data (causal-learn/) not found: skipped";
    const std::string path = dir + "/causal-learn/data_linear_10.txt";
    std::ifstream in(path);
    std::int64_t lines = 0;
    for (std::string l; std::getline(in, l);) ++lines;
    const cudag::Dataset d = cudag::io::read_dataset(path);
    EXPECT_EQ(d.n_vars, 20);
    EXPECT_EQ(d.n_samples, lines - 1);
    EXPECT_EQ(d.names.front(), "X1");
    EXPECT_EQ(d.names.back(), "X20");
    EXPECT_EQ(d.values[0], 0.4267);                     // X1, first sample
    EXPECT_EQ(d.column(1)[0], -3.8347);                 // X2, first sample
    EXPECT_EQ(d.column(19)[d.n_samples - 1], -3.5641);  // X20, last sample
}

TEST(IoTableReader, LoadsOtherCausalLearnFiles) {
    const std::string dir = cudag::test::shared_data_dir();
    if (dir.empty()) GTEST_SKIP() << "shared data (causal-learn/) not found: skipped";
    const cudag::Dataset disc = cudag::io::read_dataset(dir + "/causal-learn/data_discrete_10.txt");
    EXPECT_EQ(disc.n_vars, 20);
    EXPECT_EQ(disc.n_samples, 10000);
    EXPECT_EQ(disc.values[0], 1.0);
    const cudag::Dataset sim =
        cudag::io::read_dataset(dir + "/causal-learn/test_pc_simulated_linear_gaussian_data.txt");
    EXPECT_EQ(sim.n_vars, 5);
    EXPECT_EQ(sim.n_samples, 10000);
    EXPECT_EQ(sim.names, (std::vector<std::string>{"X1", "X2", "X3", "X4", "X5"}));
    EXPECT_EQ(sim.values[0], -1.349722473793392094e-02);
}

// ---- round trips -----------------------------------------------------------------------

TEST(IoDataset, TextRoundTripsAreBitExact) {
    TempDir dir;
    const cudag::Dataset d = tricky_dataset();
    for (const char* name : {"r.csv", "r.tsv", "r.txt", "R.CSV"}) {
        const std::string path = dir.file(name);
        cudag::io::write_dataset(d, path);
        const cudag::Dataset back = cudag::io::read_dataset(path);
        EXPECT_EQ(back.names, d.names) << name;
        EXPECT_EQ(back.n_samples, d.n_samples) << name;
        EXPECT_TRUE(bit_equal(back.values, d.values)) << name;
    }
    // The CSV is plain comma-separated text with a header.
    std::ifstream in(dir.file("r.csv"));
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, "alpha,\"b,c\",with space,\"q\"\"uote\"");
}

TEST(IoDataset, Hdf5RoundTripIsBitExactAndNamed) {
    TempDir dir;
    const cudag::Dataset d = tricky_dataset();
    const std::string path = dir.file("r.h5");
    cudag::io::write_dataset(d, path);
    const cudag::Dataset back = cudag::io::read_dataset(path);
    EXPECT_EQ(back.names, d.names);
    EXPECT_EQ(back.n_samples, 3);
    EXPECT_EQ(back.n_vars, 4);
    EXPECT_TRUE(bit_equal(back.values, d.values));
    EXPECT_EQ(back.source, path + ":/data");
    // No temporary is left beside it.
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
        left.push_back(e.path().filename().string());
    EXPECT_EQ(left, (std::vector<std::string>{"r.h5"}));

    // Stored samples × variables, row-major: element (1, 0) is sample 1 of "alpha".
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t ds = H5Dopen2(f, "/data", H5P_DEFAULT);
    std::vector<double> raw(12);
    ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), 0);
    EXPECT_EQ(raw[4], 1.0 / 3.0);
    EXPECT_EQ(raw[1], 1e-300);
    H5Dclose(ds);
    H5Fclose(f);
}

TEST(IoDataset, Hdf5WithManyVariablesStoresAllNames) {
    // 20,000 variable-length names exceed the 64 KiB compact-attribute limit.
    TempDir dir;
    cudag::Dataset d;
    d.n_samples = 2;
    d.n_vars = 20000;
    for (std::int64_t v = 0; v < d.n_vars; ++v) d.names.push_back("gene_" + std::to_string(v));
    d.values.resize(static_cast<std::size_t>(d.n_samples * d.n_vars));
    for (std::size_t k = 0; k < d.values.size(); ++k) d.values[k] = static_cast<double>(k) * 0.5;
    const std::string path = dir.file("wide.hdf5");
    cudag::io::write_dataset(d, path);
    const cudag::Dataset back = cudag::io::read_dataset(path);
    EXPECT_EQ(back.names, d.names);
    EXPECT_TRUE(bit_equal(back.values, d.values));
}

TEST(IoDataset, DispatchIsByContentNotExtension) {
    TempDir dir;
    const cudag::Dataset d = tricky_dataset();
    cudag::io::write_dataset(d, dir.file("a.h5"));
    fs::rename(dir.file("a.h5"), dir.file("a.txt"));
    EXPECT_EQ(cudag::io::read_dataset(dir.file("a.txt")).names, d.names);
    write_file(dir.file("b.h5"), "u v\n1 2\n");
    EXPECT_EQ(cudag::io::read_dataset(dir.file("b.h5")).names, (std::vector<std::string>{"u", "v"}));
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_dataset(dir.file("b.h5"), "/data"); }, {"text table", "/data"}));
}

TEST(IoDataset, UnknownOutputExtensionWritesNothing) {
    TempDir dir;
    EXPECT_TRUE(throws_input_error([&] { cudag::io::write_dataset(tricky_dataset(), dir.file("x.parquet")); },
                                   {"x.parquet", ".csv"}));
    EXPECT_TRUE(fs::is_empty(fs::path(dir.file("x.parquet")).parent_path()));
}

// ---- HDF5 input as other tools write it -------------------------------------------------

TEST(IoHdf5Reader, FindsTheOnly2dDatasetAndReadsIntegersAndFixedNames) {
    TempDir dir;
    const std::string path = dir.file("in.h5");
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t g = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const std::int32_t ints[6] = {1, 2, 3, 4, 5, 6};  // 3 samples × 2 variables
    h5_write_matrix(g, "counts", H5T_NATIVE_INT32, H5T_STD_I32LE, ints, 3, 2);
    const double vec[3] = {1, 2, 3};
    const hsize_t n3 = 3;
    const hid_t s1 = H5Screate_simple(1, &n3, nullptr);
    const hid_t d1 = H5Dcreate2(f, "labels", H5T_IEEE_F64LE, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d1, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, vec);
    H5Dclose(d1);
    H5Sclose(s1);
    H5Gclose(g);
    h5_fixed_names_attr(f, "/grp/counts", "columns", {"left", "right"}, 8);
    H5Fclose(f);

    const cudag::Dataset d = cudag::io::read_dataset(path);
    EXPECT_EQ(d.source, path + ":/grp/counts");
    EXPECT_EQ(d.names, (std::vector<std::string>{"left", "right"}));
    EXPECT_EQ(d.values, (std::vector<double>{1, 3, 5, 2, 4, 6}));
    // Explicit path, with or without the leading slash.
    EXPECT_EQ(cudag::io::read_hdf5(path, "grp/counts").values, d.values);
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_hdf5(path, "/labels"); }, {path + ":/labels", "1 dimensions"}));
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_hdf5(path, "/nope/x"); }, {path, "no dataset '/nope/x'"}));
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_hdf5(path, "/grp"); }, {"/grp", "not a dataset"}));
}

TEST(IoHdf5Reader, GeneratesNamesAndListsCandidatesWhenAmbiguous) {
    TempDir dir;
    const std::string path = dir.file("two.h5");
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const float a[4] = {1.5f, 2.5f, 3.5f, 4.5f};
    h5_write_matrix(f, "a", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, a, 2, 2);
    h5_write_matrix(f, "b", H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, a, 1, 4);
    H5Fclose(f);
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_dataset(path); }, {path, "several 2-D", "/a", "/b"}));
    const cudag::Dataset d = cudag::io::read_dataset(path, "/b");
    EXPECT_EQ(d.names, (std::vector<std::string>{"X1", "X2", "X3", "X4"}));
    EXPECT_EQ(d.values, (std::vector<double>{1.5, 2.5, 3.5, 4.5}));
    EXPECT_EQ(d.n_samples, 1);
}

TEST(IoHdf5Reader, NoMatrixIsAnError) {
    TempDir dir;
    const std::string path = dir.file("none.h5");
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(f);
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_dataset(path); }, {path, "no 2-D numeric"}));
}

TEST(IoHdf5Reader, NonFiniteValuesNameRowAndColumn) {
    TempDir dir;
    const std::string path = dir.file("nan.h5");
    cudag::Dataset d;
    d.n_samples = 3;
    d.n_vars = 2;
    d.names = {"p", "q"};
    d.values = {1, 2, 3, 4, std::numeric_limits<double>::quiet_NaN(), 6};
    // write_dataset does not check values, so it can build the bad file.
    cudag::io::write_dataset(d, path);
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_dataset(path); },
                                   {path + ":/data", "missing value (NaN)", "row 2", "column 2 'q'"}));
    d.values[4] = 5;
    d.values[0] = -std::numeric_limits<double>::infinity();
    cudag::io::write_dataset(d, path);
    EXPECT_TRUE(
        throws_input_error([&] { cudag::io::read_dataset(path); }, {"non-finite value -inf", "row 1", "column 1 'p'"}));
}

TEST(IoHdf5Reader, NameCountMustMatchColumns) {
    TempDir dir;
    const std::string path = dir.file("names.h5");
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const double v[4] = {1, 2, 3, 4};
    h5_write_matrix(f, "m", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, v, 2, 2);
    h5_fixed_names_attr(f, "/m", "names", {"only"}, 4);
    H5Fclose(f);
    EXPECT_TRUE(throws_input_error([&] { cudag::io::read_dataset(path); }, {path + ":/m", "1 names", "2 columns"}));
}

// ---- TableMode::Auto: each column numbers throughout or labels throughout --------------

namespace {

/// Header a,b,c,d and `rows` rows of distinct numbers; cell (row, col) (1-based file
/// coordinates, header = row 1) replaced by `cell` when row > 1.
std::string numeric_table(int rows, int row = 0, int col = 0, const std::string& cell = "") {
    std::string text = "a,b,c,d\n";
    for (int r = 2; r < rows + 2; ++r)
        for (int c = 1; c <= 4; ++c) {
            text += (r == row && c == col) ? cell : std::to_string(r * 0.25 + c * 1000.5);
            text += c == 4 ? "\n" : ",";
        }
    return text;
}

}  // namespace

TEST(IoTableAuto, StrayLabelInNumericColumnNamesTheCellNotTheLevelCount) {
    using cudag::io::TableMode;
    // 300 distinct values per column: read as labels, they would exceed kMaxLevels.
    for (const std::string cell : {"abc", "0x10", "\"1,5\""}) {
        const std::string text = numeric_table(300, 12, 4, cell);
        const std::string shown = cell[0] == '"' ? cell.substr(1, cell.size() - 2) : cell;
        EXPECT_TRUE(throws_input_error<cudag::io::MixedColumn>(
            [&] { cudag::io::parse_table(text, "typo.csv", TableMode::Auto); },
            {"typo.csv:12:4: non-numeric value '" + shown + "' in column 'd'", "299 of its 300 cells are numbers"}));
        // TableMode::Numeric reports the same cell, without the counts.
        EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table(text, "typo.csv"); },
                                       {"typo.csv:12:4: non-numeric value '" + shown + "'"}));
    }
}

TEST(IoTableAuto, StrayNumberInLabelColumnNamesThatCell) {
    std::string text = "x,y\n";
    for (int k = 0; k < 50; ++k)
        text += std::string(k == 20 ? "7" : (k % 2 ? "hi" : "lo")) + "," + (k % 3 ? "u" : "v") + "\n";
    EXPECT_TRUE(throws_input_error<cudag::io::MixedColumn>(
        [&] { cudag::io::parse_table(text, "lab.csv", cudag::io::TableMode::Auto); },
        {"lab.csv:22:1: numeric value '7' in column 'x'", "49 of its 50 cells are labels"}));
}

TEST(IoTableAuto, TieReportsTheLabelAndSeveralMixedColumnsTheFirstCellInTheFile) {
    using cudag::io::TableMode;
    EXPECT_TRUE(throws_input_error<cudag::io::MixedColumn>(
        [] { cudag::io::parse_table("a\n1\nx\n2\ny\n", "t.csv", TableMode::Auto); },
        {"t.csv:3:1: non-numeric value 'x'"}));
    // Column b's stray label (row 4) comes before column a's (row 5).
    EXPECT_TRUE(throws_input_error<cudag::io::MixedColumn>(
        [] { cudag::io::parse_table("a,b\n1,1\n2,2\n3,oops\nbad,4\n5,5\n", "t.csv", TableMode::Auto); },
        {"t.csv:4:2: non-numeric value 'oops' in column 'b'"}));
}

TEST(IoTableAuto, NumbersGiveContinuousDataAndLabelColumnsDiscreteData) {
    using cudag::io::TableMode;
    const std::string numbers = "a,b\n1,2.5\n3,4\n";
    const cudag::Dataset n = cudag::io::parse_table(numbers, "t.csv", TableMode::Auto);
    EXPECT_FALSE(n.discrete());
    EXPECT_EQ(n.values, cudag::io::parse_table(numbers, "t.csv").values);
    // A label column makes the whole table discrete; numeric columns get numeric codes.
    const std::string labels = "a,b\nyes,10\nno,2\nyes,2\n";
    const cudag::Dataset d = cudag::io::parse_table(labels, "t.csv", TableMode::Auto);
    const cudag::Dataset l = cudag::io::parse_table(labels, "t.csv", TableMode::Labels);
    ASSERT_TRUE(d.discrete());
    EXPECT_EQ(d.values, l.values);
    EXPECT_EQ(d.levels, l.levels);
    EXPECT_EQ(d.levels[1], (std::vector<std::string>{"2", "10"}));
}

// Issue 55: a label column beside continuous numbers is mixed data (it was refused, issue
// 53, while no test took mixed data): label columns and integer codes beside them discrete
// (a variable whose levels are numbers), other numeric columns continuous.
TEST(IoTableAuto, LabelColumnBesideNumbersIsMixedData) {
    using cudag::io::TableMode;
    const cudag::Dataset d = cudag::io::parse_table("a,b,c\n1,2,x\n2,3.25,y\n3,1,x\n", "t.csv", TableMode::Auto);
    ASSERT_TRUE(d.mixed());
    EXPECT_TRUE(d.is_discrete(0));
    EXPECT_FALSE(d.is_discrete(1));
    EXPECT_TRUE(d.is_discrete(2));
    EXPECT_EQ(d.levels[0], (std::vector<std::string>{"1", "2", "3"}));
    EXPECT_EQ(d.levels[2], (std::vector<std::string>{"x", "y"}));
    EXPECT_EQ(std::vector<double>(d.column(1), d.column(1) + 3), (std::vector<double>{2, 3.25, 1}));
    EXPECT_EQ(std::vector<double>(d.column(2), d.column(2) + 3), (std::vector<double>{0, 1, 0}));
    // Integers, written with a decimal point or not, beside labels: discrete data; named
    // continuous, mixed data.
    cudag::Dataset e = cudag::io::parse_table("a,b\nyes,1.0\nno,2\nyes,-3\n", "t.csv", TableMode::Auto);
    ASSERT_TRUE(e.discrete());
    EXPECT_EQ(e.levels[1], (std::vector<std::string>{"-3", "1", "2"}));
    cudag::io::apply_column_types(e, {{}, {"b"}});
    ASSERT_TRUE(e.mixed());
    EXPECT_EQ(std::vector<double>(e.column(1), e.column(1) + 3), (std::vector<double>{1, 2, -3}));
    // More distinct integers than codes have (kFewLevels): continuous.
    std::string ages = "sex,age\n";
    for (int k = 0; k < 40; ++k) ages += std::string(k % 2 ? "F" : "M") + "," + std::to_string(20 + k) + "\n";
    EXPECT_TRUE(cudag::io::parse_table(ages, "t.csv", TableMode::Auto).mixed());
    // --discrete (TableMode::Labels) still reads every cell as a label.
    EXPECT_TRUE(cudag::io::parse_table("a,b,c\n1,2,x\n2,3.25,y\n", "t.csv", TableMode::Labels).discrete());
}

// Issue 53 item 5: numbers written with a decimal comma ("1,2881" with ';' between cells,
// as R's write.csv2 writes them) were labels in TableMode::Auto and Labels (every number a
// level) and a bare non-numeric cell in TableMode::Numeric: refused by name in every mode.
TEST(IoTableReader, DecimalCommaIsRefusedByNameInEveryMode) {
    using cudag::io::TableMode;
    const std::string hint = "looks like a number with a decimal comma; cudag reads decimal points";
    for (const TableMode mode : {TableMode::Numeric, TableMode::Labels, TableMode::Auto}) {
        // The first decimal comma in the file: row 2, column 2.
        EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table("a;b\n1;2,5\n3,25;4\n5;6\n", "t.csv", mode); },
                                       {"t.csv:2:2: '2,5' in column 'b' " + hint}));
        // One column (blank-separated as sniffed) and tabs.
        EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table("x\n0,5\n1,5\n", "t.txt", mode); },
                                       {"t.txt:2:1: '0,5' in column 'x' " + hint}));
        EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table("x\ty\n1\t2\n-1,5e2\t3\n", "t.tsv", mode); },
                                       {"t.tsv:3:1: '-1,5e2' in column 'x' " + hint}));
        // One such cell among decimal points is that cell, not a label among numbers.
        EXPECT_TRUE(throws_input_error([&] { cudag::io::parse_table("a;b\n1.5;2\n2,5;3\n3.5;4\n", "t.csv", mode); },
                                       {"t.csv:3:1: '2,5' in column 'a' " + hint}));
    }
    // Labels that merely hold a comma stay labels; in a comma-separated table a quoted "1,5"
    // is a cell of its own (a label, or a non-numeric value as before).
    for (const TableMode mode : {TableMode::Labels, TableMode::Auto}) {
        const cudag::Dataset d = cudag::io::parse_table("a;b\nx,y;1\nz;2\n", "t.csv", mode);
        ASSERT_TRUE(d.discrete());
        EXPECT_EQ(d.levels[0], (std::vector<std::string>{"x,y", "z"}));
    }
    EXPECT_TRUE(cudag::io::parse_table("a,b\n\"1,5\",1\n\"2,5\",2\n", "t.csv", TableMode::Labels).discrete());
}

TEST(IoTableAuto, MissingAndNonFiniteCellsStayErrors) {
    using cudag::io::TableMode;
    EXPECT_TRUE(throws_input_error([] { cudag::io::parse_table("a,b\nx,1\ny,NA\n", "t.csv", TableMode::Auto); },
                                   {"t.csv:3:2: missing value 'NA'"}));
    EXPECT_TRUE(throws_input_error([] { cudag::io::parse_table("a,b\nx,1\ny,inf\n", "t.csv", TableMode::Auto); },
                                   {"t.csv:3:2: non-finite value 'inf'"}));
}

TEST(IoTableAuto, MissingValueTokensAreLevelsInLabelColumns) {
    // Issue 33 item 11: bnlearn's CHILD (DuctFlow) and INSURANCE (ThisCarDam) have a state
    // "None"; tokens that read as missing in numbers are levels among labels.
    using cudag::io::TableMode;
    const std::string text = "DuctFlow,b\nLt_Rt,1\nNone,2\nEqual,1\nNA,2\n?,1\n";
    for (const TableMode mode : {TableMode::Labels, TableMode::Auto}) {
        const cudag::Dataset d = cudag::io::parse_table(text, "t.csv", mode);
        ASSERT_TRUE(d.discrete());
        std::vector<std::string> levels = d.levels[0];
        std::sort(levels.begin(), levels.end());
        EXPECT_EQ(levels, (std::vector<std::string>{"?", "Equal", "Lt_Rt", "NA", "None"}));
        EXPECT_EQ(d.n_samples, 5);
    }
    // An empty cell stays missing among labels.
    EXPECT_TRUE(throws_input_error([] { cudag::io::parse_table("a,b\nx,1\n,2\n", "t.csv", TableMode::Labels); },
                                   {"t.csv:3:1: missing value (empty field)"}));
    // A numeric column whose non-numbers are all tokens: its first token is a missing value,
    // however many there are.
    EXPECT_TRUE(throws_input_error([] { cudag::io::parse_table("a,b\nx,NA\ny,None\nz,3\n", "t.csv", TableMode::Auto); },
                                   {"t.csv:2:2: missing value 'NA'"}));
}

TEST(IoTableAuto, ParallelParseFindsTheStrayCellInAnyBlock) {
    // Over 4 MiB: several parser threads, each its own block of rows.
    const int rows = 120000;
    const std::string text = numeric_table(rows, rows - 5, 2, "typo");
    ASSERT_GT(text.size(), std::size_t{4} << 20);
    EXPECT_TRUE(throws_input_error<cudag::io::MixedColumn>(
        [&] { cudag::io::parse_table(text, "big.csv", cudag::io::TableMode::Auto); },
        {"big.csv:" + std::to_string(rows - 5) + ":2: non-numeric value 'typo' in column 'b'"}));
    const cudag::Dataset d = cudag::io::parse_table(numeric_table(rows), "big.csv", cudag::io::TableMode::Auto);
    EXPECT_FALSE(d.discrete());
    EXPECT_EQ(d.n_samples, rows);
}

TEST(IoIntegerCodes, FewIntegerLevelsPerColumnLookDiscrete) {
    cudag::Dataset d;
    d.n_samples = 100;
    d.n_vars = 2;
    d.names = {"a", "b"};
    for (int k = 0; k < 100; ++k) d.values.push_back(k % 3);
    for (int k = 0; k < 100; ++k) d.values.push_back(k % 5 - 2);
    EXPECT_EQ(cudag::io::integer_coded_levels(d), 5);
    d.values[150] = 0.5;  // one non-integer
    EXPECT_EQ(cudag::io::integer_coded_levels(d), 0);
    d.values[150] = 1e6;  // large integers count as levels too
    EXPECT_EQ(cudag::io::integer_coded_levels(d), 6);
    for (int k = 0; k < 100; ++k) d.values[100 + k] = k % 11;  // more than one level per 10 samples
    EXPECT_EQ(cudag::io::integer_coded_levels(d), 0);
    cudag::Dataset many;
    many.n_samples = 10000;
    many.n_vars = 1;
    many.names = {"age"};
    for (int k = 0; k < 10000; ++k) many.values.push_back(k % 40);  // over kFewLevels
    EXPECT_EQ(cudag::io::integer_coded_levels(many), 0);
    cudag::Dataset labels = cudag::io::parse_table("a\n0\n1\n", "t.csv", cudag::io::TableMode::Labels);
    EXPECT_EQ(cudag::io::integer_coded_levels(labels), 0);  // already discrete
}

// ---- standard input -------------------------------------------------------------------

namespace {

/// Run f() with standard input reading `path`.
template <class F>
void with_stdin(const std::string& path, F f) {
    std::fflush(stdin);
    const int saved = ::dup(STDIN_FILENO);
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ::dup2(fd, STDIN_FILENO);
    ::close(fd);
    std::clearerr(stdin);
    struct Restore {
        int saved;
        ~Restore() {
            ::dup2(saved, STDIN_FILENO);
            ::close(saved);
            std::clearerr(stdin);
        }
    } restore{saved};
    f();
}

}  // namespace

TEST(IoDataset, DashReadsATextTableFromStandardInput) {
    TempDir dir;
    const std::string path = dir.file("in.csv");
    write_file(path, "a,b\n1,2\n3,4\n");
    with_stdin(path, [] {
        const cudag::Dataset d = cudag::io::read_dataset("-");
        EXPECT_EQ(d.source, "<stdin>");
        EXPECT_EQ(d.values, (std::vector<double>{1, 3, 2, 4}));
    });
    write_file(path, "a,b\n1,2\n3,x\n");
    with_stdin(path, [] {
        EXPECT_TRUE(throws_input_error([] { cudag::io::read_dataset("-"); }, {"<stdin>:3:2: non-numeric value 'x'"}));
    });
    with_stdin(path, [] {
        EXPECT_TRUE(
            throws_input_error([] { cudag::io::read_dataset("-", "/data"); }, {"<stdin>", "text table", "/data"}));
    });
    const std::string h5 = dir.file("in.h5");
    cudag::io::write_dataset(tricky_dataset(), h5);
    with_stdin(h5, [] {
        EXPECT_TRUE(throws_input_error([] { cudag::io::read_dataset("-"); },
                                       {"<stdin>: HDF5 input cannot be read from standard input"}));
    });
}
