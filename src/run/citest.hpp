// SPDX-License-Identifier: Apache-2.0
// One conditional-independence test X ⟂ Y | Z as a job (`cudag citest`, cudag.citest), as
// causal-learn's CIT and tigramite's run_test give it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "run/cmi_knn.hpp"
#include "run/common.hpp"

namespace cudag::run {

/// Every setting of a citest job, named as `cudag citest`'s options.
struct CitestJob {
    std::string data, dataset, test, x, y, dof, compat = "pcalg";
    std::vector<std::string> given;      ///< the conditioning set Z, by name
    std::vector<std::string> na_values;  ///< --na-values
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

/// Reads the data (through `read` when given, else the job's file) and runs the test.
CitestOutput run_citest(const CitestJob& job, const DataReader& read = {});

}  // namespace cudag::run
