// SPDX-License-Identifier: Apache-2.0
#include "run/pcmci_series.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/error.hpp"
#include "core/format.hpp"
#include "io/dataset_io.hpp"

namespace cudag::run {
namespace {

/// The column of `d` named `name` (option `option`), or an InputError.
std::int64_t column_named(const Dataset& d, const std::string& name, const char* option) {
    for (std::int64_t v = 0; v < d.n_vars; ++v)
        if (d.names[static_cast<std::size_t>(v)] == name) return v;
    std::string msg = option;
    msg += " '";
    msg += name;
    msg += "': ";
    msg += d.source;
    msg += " has no column of that name";
    throw InputError(msg);
}

/// The one-line error about row `row` (0-based data row) of `d`.
[[noreturn]] void row_error(const Dataset& d, std::int64_t row, const std::string& what) {
    std::string msg = d.source;
    msg += ": row ";
    msg += std::to_string(row + 1);
    msg += " (data rows counted from 1): ";
    msg += what;
    throw InputError(msg);
}

}  // namespace

std::int64_t PcmciSeries::longest() const {
    std::int64_t most = 0;
    for (std::size_t k = 0; k < starts.size(); ++k)
        most = std::max(most, (k + 1 < starts.size() ? starts[k + 1] : data.n_samples) - starts[k]);
    return most;
}

bool parse_missing_flag(const std::string& text, std::optional<double>& number) {
    number.reset();
    if (text.empty()) return false;
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "nan") return true;
    double v = 0.0;
    const char* end = text.data() + text.size();
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
        std::string msg = "--missing-flag '";
        msg += text;
        msg +=
            "': give a number (cells equal to it are missing values, tigramite's missing_flag) or nan (empty, "
            "NA and NaN cells are)";
        throw InputError(msg);
    }
    number = v;
    return false;
}

PcmciSeries read_pcmci_series(const SeriesOptions& o, const DataReader& read) {
    PcmciSeries out;
    io::ReadOptions ro;
    ro.mode = io::TableMode::Numeric;
    ro.keep_missing = parse_missing_flag(o.missing_flag, out.flag);

    // The tables: the file's, or one per dataset of the HDF5 group --dataset names.
    const std::vector<std::string> members =
        read ? std::vector<std::string>{} : io::hdf5_group_datasets(o.data, o.dataset);
    std::vector<Dataset> tables;
    if (members.empty()) {
        tables.push_back(read_data(read, o.data, o.dataset, ro));
    } else {
        if (!o.series_column.empty())
            throw InputError("--dataset '" + o.dataset + "' is a group (one series a dataset) and --series-column '" +
                             o.series_column + "' names a column of series too: give one");
        for (const std::string& m : members) {
            tables.push_back(io::read_dataset(o.data, m, ro));
            if (tables.back().names != tables.front().names)
                throw InputError(tables.back().source + ": its columns are not those of " + tables.front().source +
                                 " (every series of the group needs the same variables, in the same order)");
        }
    }

    const Dataset& first = tables.front();
    const std::int64_t time_col = o.time_column.empty() ? -1 : column_named(first, o.time_column, "--time-column");
    const std::int64_t series_col =
        o.series_column.empty() ? -1 : column_named(first, o.series_column, "--series-column");
    if (time_col >= 0 && time_col == series_col)
        throw InputError("--time-column and --series-column name the same column '" + o.time_column + "'");
    std::vector<std::int64_t> vars;
    for (std::int64_t v = 0; v < first.n_vars; ++v)
        if (v != time_col && v != series_col) vars.push_back(v);
    if (vars.empty()) throw InputError(first.source + ": no column is left for a variable");

    // Each series: a table and its rows, in time order.
    struct Part {
        const Dataset* table;
        std::vector<std::int64_t> rows;
        std::string label;
    };
    std::vector<Part> parts;
    for (std::size_t t = 0; t < tables.size(); ++t) {
        const Dataset& d = tables[t];
        for (const std::int64_t c : {time_col, series_col}) {
            if (c < 0) continue;
            const double* x = d.column(c);
            for (std::int64_t r = 0; r < d.n_samples; ++r)
                if (std::isnan(x[r]))
                    row_error(d, r,
                              "the " + std::string(c == time_col ? "time" : "series") + " column '" +
                                  d.names[static_cast<std::size_t>(c)] + "' has a missing cell");
        }
        if (series_col < 0) {
            Part p{&d, {}, members.empty() ? std::string("the series") : members[t]};
            p.rows.resize(static_cast<std::size_t>(d.n_samples));
            for (std::int64_t r = 0; r < d.n_samples; ++r) p.rows[static_cast<std::size_t>(r)] = r;
            parts.push_back(std::move(p));
            continue;
        }
        std::unordered_map<double, std::size_t> index;  // series id → part, in order of first appearance
        const double* id = d.column(series_col);
        for (std::int64_t r = 0; r < d.n_samples; ++r) {
            const double key = id[r] == 0.0 ? 0.0 : id[r];  // -0 and 0 are one series
            auto [it, fresh] = index.emplace(key, parts.size());
            if (fresh) {
                std::string label = "series ";
                label += exact_number(key);
                parts.push_back({&d, {}, label});
            }
            parts[it->second].rows.push_back(r);
        }
    }
    if (time_col >= 0)
        for (const Part& p : parts) {
            const double* time = p.table->column(time_col);
            for (std::size_t k = 1; k < p.rows.size(); ++k) {
                const std::int64_t r = p.rows[k], before = p.rows[k - 1];
                if (time[r] > time[before]) continue;
                std::string what = "time ";
                what += exact_number(time[r]);
                what += " in column '";
                what += o.time_column;
                what += "' is not after the ";
                what += exact_number(time[before]);
                what += " of row ";
                what += std::to_string(before + 1);
                if (parts.size() > 1) {
                    what += " (";
                    what += p.label;
                    what += ')';
                }
                what += ": the rows are out of order (each series' rows must be in time order)";
                row_error(*p.table, r, what);
            }
        }

    // The variables, the series one after the other.
    Dataset& d = out.data;
    d.n_vars = static_cast<std::int64_t>(vars.size());
    for (const std::int64_t v : vars) d.names.push_back(first.names[static_cast<std::size_t>(v)]);
    d.source = members.empty() ? first.source : o.data + ":" + o.dataset;
    for (const Part& p : parts) {
        out.starts.push_back(d.n_samples);
        out.labels.push_back(p.label);
        d.n_samples += static_cast<std::int64_t>(p.rows.size());
    }
    d.values.resize(static_cast<std::size_t>(d.n_samples * d.n_vars));
    for (std::size_t k = 0; k < vars.size(); ++k) {
        double* dst = d.column(static_cast<std::int64_t>(k));
        for (const Part& p : parts) {
            const double* src = p.table->column(vars[k]);
            for (const std::int64_t r : p.rows) {
                double x = src[r];
                if (out.flag && x == *out.flag) x = std::nan("");
                if (std::isnan(x)) ++d.missing;
                *dst++ = x;
            }
        }
    }

    // A variable missing throughout, or constant where it is not missing, has no dependence to
    // measure.
    for (std::int64_t v = 0; v < d.n_vars; ++v) {
        const double* c = d.column(v);
        const double* end = c + d.n_samples;
        const double* seen = std::find_if(c, end, [](double x) { return !std::isnan(x); });
        const std::string& name = d.names[static_cast<std::size_t>(v)];
        if (seen == end) throw InputError(d.source + ": series '" + name + "' is missing in every row");
        if (std::all_of(seen, end, [&](double x) { return std::isnan(x) || x == *seen; }))
            throw InputError(d.source + ": series '" + name + "' is constant (no dependence can be measured on it)");
    }
    return out;
}

}  // namespace cudag::run
