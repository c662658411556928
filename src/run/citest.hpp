// SPDX-License-Identifier: Apache-2.0
// One conditional-independence test X ⟂ Y | Z as a job (`cudag citest`, cudag.citest), as
// causal-learn's CIT and tigramite's run_test give it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "ci/ci_test.hpp"
#include "core/backend.hpp"
#include "core/dataset.hpp"
#include "core/missing.hpp"
#include "run/cmi_knn.hpp"
#include "run/common.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::run {

/// Every setting of a citest job, named as `cudag citest`'s options.
/// The choices (--test, --dof, --compat, --backend, --missing) are parsed by the front end
/// (skeleton::parse_test, skeleton::parse_dof, skeleton::parse_compat, parse_backend,
/// parse_missing).
struct CitestJob {
    std::string data, dataset, x, y;
    skeleton::TestKind test = skeleton::TestKind::FisherZ;
    std::optional<ci::DofRule> dof;  ///< unset: the compat's rule
    skeleton::Compat compat = skeleton::Compat::Pcalg;
    /// Where batches run (test_batch, `--queries`): auto, cpu or cuda; single tests run on
    /// the CPU.
    BackendKind backend = BackendKind::Auto;
    std::vector<std::string> given;      ///< the conditioning set Z, by name
    std::vector<std::string> na_values;  ///< --na-values
    MissingPolicy missing = MissingPolicy::Error;
    std::vector<std::string> discrete_columns, continuous_columns;  ///< --discrete-columns, --continuous-columns
    /// bnlearn's ci.test (the R face): missing cells under its rule (skeleton::TestSpec::
    /// bnlearn_missing; `missing` then testwise), Fisher-z by the exact t test (its cor).
    bool bnlearn_missing = false, student_t = false;
    CmiKnnJob cmi;
    int threads = 0;
    bool verbose = false, quiet = false;
};

/// The test's outcome: the statistic, the p-value and the test's other numbers (name, JSON
/// value: "k", "dof", "z", ...) in print order.
struct CitestOutput {
    double statistic = 0.0, p = 1.0;
    std::int64_t n_samples = 0;
    std::vector<std::pair<std::string, std::string>> extra;
};

/// One query of a batch: x ⟂ y | given, by name.
struct CitestQuery {
    std::string x, y;
    std::vector<std::string> given;
};

/// A batch's outcome: statistic[q] and p[q] of query q.
struct CitestBatchOutput {
    std::vector<double> statistic, p;
    std::int64_t n_samples = 0;
    /// Where the batch ran ("the CPU (8 threads)", "the cuda fisher-z engine").
    std::string where;
};

/// Single tests on data read once (an in-process caller's tester, as causal-learn's CIT
/// object): the job's settings checked and the data read at construction; each test()
/// names its variables (the job's x, y and given are not used) and checks what depends
/// on them, in the order run_citest checks them. The test is made at the first call and
/// again only when a larger conditioning set comes (CMIknn validates its parameters for it).
class CitestSession {
public:
    CitestSession(const CitestJob& job, const DataReader& read = {});
    ~CitestSession();
    CitestOutput test(const std::string& x, const std::string& y, const std::vector<std::string>& given);
    /// test() of the columns x and y given the columns `given` (indices, checked: in range
    /// and distinct), without their names: the same outcome, from the same cache.
    CitestOutput test_columns(std::int32_t x, std::int32_t y, std::span<const std::int32_t> given);
    /// Every query at once (ci::BatchTest: on a GPU where the job's backend picks one, else
    /// on the CPU's threads), each answer the statistic and p-value test() gives for it.
    /// The queries are checked first, all of them, before any test runs.
    CitestBatchOutput test_batch(const std::vector<CitestQuery>& queries);
    const Dataset& data() const { return data_; }

private:
    /// The checks and set-up of a test with conditioning sets of up to `l` variables.
    void prepare(int l);
    /// The test of vars = (x, y, given...), resolved and distinct.
    CitestOutput run_columns(const std::vector<std::int32_t>& vars);
    CitestJob job_;
    skeleton::TestOptions options_;
    int threads_ = 1;
    Dataset data_;
    std::unordered_map<std::string, std::int32_t> index_;  ///< the data's names -> columns
    std::optional<skeleton::TestSpec> spec_;
    std::unique_ptr<ci::CiTest> test_;
    int max_cond_ = -1;
    int prepared_ = -1;  ///< the largest set size prepare() has checked
    /// Outcomes of the tests asked so far, by (x, y, S) as given (at most kCacheEntries).
    std::unordered_map<std::string, CitestOutput> cache_;
    static constexpr std::size_t kCacheEntries = 1 << 20;
    /// Fisher-z: the columns' work of the tests so far ((|S| + 2)² each, in units of m);
    /// matrix_: test_ reads the whole correlation matrix instead.
    double column_work_ = 0.0;
    /// What a unit of a test's own column work costs in units of the matrix's (copying the
    /// columns, an allocation per test, untiled products): ~8, measured at 5,000 x 500 with
    /// |S| = 3 (0.2 ms a test against 0.12 s for the matrix). The switch comes when the
    /// tests' work would have paid for the matrix (the rent-or-buy rule).
    static constexpr double kColumnCost = 8.0;
    bool matrix_ = false;
    std::unique_ptr<ci::BatchTest> batch_;  ///< test_batch's tests, made at its first call
    int batch_cond_ = -1;                   ///< the largest set batch_ was made for
    std::int64_t rescaled_ = 0;  ///< columns of extreme magnitude rescaled (core/magnitude.hpp)
};

/// Reads the data (through `read` when given, else the job's file) and runs the test.
CitestOutput run_citest(const CitestJob& job, const DataReader& read = {});

/// The queries of a `--queries` file: a header row naming the columns x, y and given (tab-
/// or comma-separated, in any order; given optional), then one query a row, given's names
/// separated by commas within a tab-separated file or by ';' within a comma-separated one
/// (empty: no conditioning set). Errors name the file and line.
std::vector<CitestQuery> read_citest_queries(const std::string& path);

}  // namespace cudag::run
