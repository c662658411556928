// SPDX-License-Identifier: Apache-2.0
// The input of a PCMCI job (`cudag pcmci`, cudag.pcmci) as tigramite's DataFrame takes it:
// one or several independent series (analysis_mode 'multiple': an HDF5 group of datasets, or
// a column naming each row's series), missing values (missing_flag), and a time column that
// checks the rows' order and is not a variable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dataset.hpp"
#include "run/common.hpp"

namespace cudag::run {

/// What the job's options say about its input (`cudag pcmci`'s names).
struct SeriesOptions {
    std::string data, dataset;  ///< --data, --dataset (an HDF5 dataset, or a group of them)
    /// --missing-flag: "" (none: a missing cell is refused), a number (cells equal to it are
    /// missing, tigramite's missing_flag), or "nan" (empty, NA and NaN cells are missing).
    std::string missing_flag;
    std::string series_column;  ///< --series-column: the column naming each row's series
    std::string time_column;    ///< --time-column: the column of each row's time
};

/// The series a PCMCI job tests on.
struct PcmciSeries {
    /// The variables (the time and series columns left out), the series one after the other,
    /// each in time order; missing cells NaN (Dataset::missing counts them).
    Dataset data;
    std::vector<std::int64_t> starts;  ///< the first row of each series in `data` (starts[0] = 0)
    std::vector<std::string> labels;   ///< each series' name in messages ("series 3", "/g/run1")
    /// The number --missing-flag gives (none for "" and "nan").
    std::optional<double> flag;
    std::int64_t longest() const;  ///< the most time steps of one series
};

/// "", a number, "nan" (any case): --missing-flag's value; an InputError otherwise.
/// Returns whether missing cells (NaN) are kept by the reader, and the flag in `number`.
bool parse_missing_flag(const std::string& text, std::optional<double>& number);

/// Reads and checks the series: the table (or each dataset of the HDF5 group --dataset names,
/// in the order of their names; their columns must agree), the series column's rows grouped by
/// value in the order each value first appears, each series' times strictly increasing (else
/// an InputError naming the row), the cells equal to the missing flag made missing. A missing
/// cell without --missing-flag, a missing or non-numeric time or series id, a variable that is
/// constant or missing throughout, are InputErrors in one line.
PcmciSeries read_pcmci_series(const SeriesOptions& o, const DataReader& read);

}  // namespace cudag::run
