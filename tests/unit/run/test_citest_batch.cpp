// SPDX-License-Identifier: Apache-2.0
// `cudag citest --queries` (run::CitestSession::test_batch, run::read_citest_queries): a
// batch answers every query as the single test does (statistic and p-value, bit for bit),
// for every test kind; the queries file's format and its errors (file and line named).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "run/citest.hpp"
#include "sim/discrete.hpp"
#include "sim/gaussian.hpp"
#include "sim/nonlinear.hpp"
#include "support/result_files.hpp"

namespace cudag {
namespace {

namespace fs = std::filesystem;

class CitestBatch : public ::testing::Test {
protected:
    void SetUp() override { dir_ = test::fresh_test_dir("cudag_citest_batch"); }
    void TearDown() override { fs::remove_all(dir_); }
    std::string path(const std::string& file) const { return (dir_ / file).string(); }

    /// `data` as a CSV file (codes as integers for discrete data).
    std::string write_csv(const Dataset& data, const std::string& file) const {
        std::ostringstream os;
        os.precision(17);
        for (std::int64_t v = 0; v < data.n_vars; ++v) os << (v ? "," : "") << "V" << v;
        os << '\n';
        for (std::int64_t s = 0; s < data.n_samples; ++s) {
            for (std::int64_t v = 0; v < data.n_vars; ++v) os << (v ? "," : "") << data.column(v)[s];
            os << '\n';
        }
        std::ofstream(path(file)) << os.str();
        return path(file);
    }
    std::string write(const std::string& file, const std::string& text) const {
        std::ofstream(path(file)) << text;
        return path(file);
    }

private:
    fs::path dir_;
};

/// "V<i>" (built by append: GCC 12 warns on "V" + std::to_string(i)).
std::string var(int i) {
    std::string s = "V";
    s += std::to_string(i);
    return s;
}

std::vector<run::CitestQuery> some_queries(int n) {
    std::vector<run::CitestQuery> q;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            run::CitestQuery t{var(i), var(j), {}};
            for (int k = 0; k < n && static_cast<int>(t.given.size()) < (i + 2 * j) % 4; ++k)
                if (k != i && k != j) t.given.push_back(var(k));
            q.push_back(t);
        }
    return q;
}

void expect_batch_is_singles(const std::string& file, const std::string& test, int n) {
    run::CitestJob job;
    job.data = file;
    job.test = skeleton::parse_test(test);
    job.backend = BackendKind::Cpu;
    job.quiet = true;
    if (test == "cmiknn") {
        job.cmi.spec.permutations = 39;
        job.cmi.spec.knn = 0.1;
    }
    const std::vector<run::CitestQuery> q = some_queries(n);
    run::CitestSession batch_session(job);
    const run::CitestBatchOutput b = batch_session.test_batch(q);
    ASSERT_EQ(b.p.size(), q.size());
    run::CitestSession single(job);
    for (std::size_t k = 0; k < q.size(); ++k) {
        const run::CitestOutput o = single.test(q[k].x, q[k].y, q[k].given);
        EXPECT_EQ(b.statistic[k], o.statistic) << test << " query " << k;
        EXPECT_EQ(b.p[k], o.p) << test << " query " << k;
        EXPECT_EQ(b.n_samples, o.n_samples);
    }
    EXPECT_NE(b.where.find("CPU"), std::string::npos) << b.where;
}

TEST_F(CitestBatch, EveryTestsBatchIsItsSingleTests) {
    const std::string g = write_csv(sim::simulate_gaussian({7, 300, 0.4, 3}).data, "g.csv");
    expect_batch_is_singles(g, "fisher-z", 7);
    const std::string d = write_csv(sim::forward_sample(sim::random_network({6, 500, 0.3, 3, 4}), 500, 6, 1), "d.csv");
    expect_batch_is_singles(d, "chi-square", 6);
    expect_batch_is_singles(d, "g-square", 6);
    const std::string nl = write_csv(sim::simulate_nonlinear({5, 100, 0.4, 5}, 1).data, "nl.csv");
    expect_batch_is_singles(nl, "cmiknn", 5);
}

// test_columns (the Python face's path, by column index) answers as test() by name, bit for
// bit, on either side of the session's move to the correlation matrix (one session each,
// so that each moves on its own); bad indices are refused in one line.
TEST_F(CitestBatch, ColumnIndicesAnswerAsNames) {
    const std::string g = write_csv(sim::simulate_gaussian({7, 300, 0.4, 3}).data, "g.csv");
    run::CitestJob job;
    job.data = g;
    job.test = skeleton::TestKind::FisherZ;
    job.compat = skeleton::Compat::CausalLearn;
    job.quiet = true;
    run::CitestSession by_name(job), by_index(job);
    const std::vector<run::CitestQuery> q = some_queries(7);
    for (int round = 0; round < 2; ++round)  // the second round from the sessions' caches
        for (const run::CitestQuery& t : q) {
            std::vector<std::int32_t> given;
            for (const std::string& v : t.given) given.push_back(std::stoi(v.substr(1)));
            const run::CitestOutput a = by_name.test(t.x, t.y, t.given);
            const run::CitestOutput b =
                by_index.test_columns(std::stoi(t.x.substr(1)), std::stoi(t.y.substr(1)), given);
            EXPECT_EQ(a.statistic, b.statistic) << t.x << " " << t.y;
            EXPECT_EQ(a.p, b.p) << t.x << " " << t.y;
        }
    const std::vector<std::int32_t> none, twice{2};
    EXPECT_THROW(by_index.test_columns(0, 7, none), InputError);
    EXPECT_THROW(by_index.test_columns(-1, 2, none), InputError);
    try {
        by_index.test_columns(0, 2, twice);
        FAIL() << "column 2 twice was tested";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("column 2 ('V2') is given twice (as y and as a conditioning variable)"),
                  std::string::npos)
            << e.what();
    }
}

TEST_F(CitestBatch, QueriesFilesReadTabsAndCommas) {
    const auto tab = run::read_citest_queries(write("q.tsv", "x\ty\tgiven\na\tb\t\nc\td\te,f\n"));
    ASSERT_EQ(tab.size(), 2u);
    EXPECT_EQ(tab[0].x, "a");
    EXPECT_TRUE(tab[0].given.empty());
    EXPECT_EQ(tab[1].given, (std::vector<std::string>{"e", "f"}));
    const auto csv = run::read_citest_queries(write("q.csv", "given,y,x\r\ne;f,d,c\r\n\r\n,b,a\r\n"));
    ASSERT_EQ(csv.size(), 2u);
    EXPECT_EQ(csv[0].x, "c");
    EXPECT_EQ(csv[0].y, "d");
    EXPECT_EQ(csv[0].given, (std::vector<std::string>{"e", "f"}));
    EXPECT_TRUE(csv[1].given.empty());
    const auto no_given = run::read_citest_queries(write("q2.tsv", "x\ty\na\tb\n"));
    ASSERT_EQ(no_given.size(), 1u);
    // A row may end before an empty given (a dropped trailing tab).
    const auto short_row = run::read_citest_queries(write("q3.tsv", "x\ty\tgiven\na\tb\nc\td\te\n"));
    ASSERT_EQ(short_row.size(), 2u);
    EXPECT_TRUE(short_row[0].given.empty());
    EXPECT_EQ(short_row[1].given, (std::vector<std::string>{"e"}));
}

void expect_error(const std::string& file, const std::string& want) {
    try {
        run::read_citest_queries(file);
        FAIL() << file << " was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
}

TEST_F(CitestBatch, BadQueriesFilesAreOneLineErrorsNamingTheLine) {
    expect_error(path("missing.tsv"), "missing.tsv: cannot read the queries file");
    expect_error(write("e1.tsv", "x\tz\na\tb\n"), "e1.tsv:1: unknown column 'z'");
    expect_error(write("e2.tsv", "x\tgiven\na\tb\n"), "e2.tsv:1: the header row must name the columns x and y");
    expect_error(write("e3.tsv", "x\ty\tgiven\na\tb\nc\n"), "e3.tsv:3: 1 field, the header has 3");
    expect_error(write("e8.tsv", "given\tx\ty\na\tb\n"), "e8.tsv:2: 2 fields, the header has 3");
    expect_error(write("e4.tsv", "x\ty\tgiven\na\tb\tc,,d\n"), "e4.tsv:2: an empty name in given");
    expect_error(write("e5.tsv", "x\ty\tgiven\n"), "e5.tsv: no queries after the header row");
    expect_error(write("e6.tsv", "x\tx\ty\n"), "e6.tsv:1: column 'x' given twice");
    expect_error(write("e7.tsv", "x\ty\n\tb\n"), "e7.tsv:2: x and y need a name each");
}

TEST_F(CitestBatch, AnUnknownNameIsAnErrorNamingTheQuery) {
    const std::string g = write_csv(sim::simulate_gaussian({4, 100, 0.4, 3}).data, "g.csv");
    run::CitestJob job;
    job.data = g;
    job.test = skeleton::TestKind::FisherZ;
    job.quiet = true;
    run::CitestSession session(job);
    try {
        session.test_batch({{"V0", "V1", {}}, {"V2", "W", {"V0"}}});
        FAIL() << "an unknown variable was tested";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("query 2: "), std::string::npos) << what;
        EXPECT_NE(what.find("unknown variable 'W'"), std::string::npos) << what;
    }
    EXPECT_THROW(session.test_batch({{"V0", "V0", {}}}), InputError);
}

}  // namespace
}  // namespace cudag

namespace cudag {
namespace {

// A session's single tests: repeated ones come from its cache, and Fisher-z's move to the
// correlation matrix once their column work reaches a quarter of its cost; every outcome
// (statistic, p, z) is the one a fresh session gives for that test alone.
TEST_F(CitestBatch, ASessionsSingleTestsAreEachTestAlone) {
    const std::string g = write_csv(sim::simulate_gaussian({12, 200, 0.4, 3}).data, "g.csv");
    run::CitestJob job;
    job.data = g;
    job.test = skeleton::TestKind::FisherZ;
    job.quiet = true;
    run::CitestSession session(job);
    const std::vector<run::CitestQuery> q = some_queries(12);
    for (int round = 0; round < 2; ++round)
        for (const run::CitestQuery& t : q) {
            const run::CitestOutput got = session.test(t.x, t.y, t.given);
            run::CitestSession alone(job);
            const run::CitestOutput want = alone.test(t.x, t.y, t.given);
            EXPECT_EQ(got.statistic, want.statistic) << t.x << " " << t.y;
            EXPECT_EQ(got.p, want.p);
            EXPECT_EQ(got.extra, want.extra);
        }
}

}  // namespace
}  // namespace cudag
