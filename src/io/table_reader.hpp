// SPDX-License-Identifier: Apache-2.0
// Text tables with a header row: comma, tab, semicolon or whitespace separated.
#pragma once

#include <string>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/dataset.hpp"
#include "core/error.hpp"

namespace cudag::io {

/// How a text table's cells are read.
enum class TableMode {
    Numeric,  ///< every cell a number (continuous data)
    Labels,   ///< every cell a level label: integer codes or strings (discrete data)
    Auto,     ///< each column numbers throughout or labels throughout (see read_table)
};

/// The InputError read_table throws in TableMode::Numeric for a cell that is not a number
/// (nor a missing-value token).
class NonNumericCell : public InputError {
public:
    using InputError::InputError;
};

/// The InputError read_table throws in TableMode::Auto for a column holding both numbers
/// and labels; the message points at the first cell of the rarer kind.
class MixedColumn : public InputError {
public:
    using InputError::InputError;
};

/// The InputError read_table throws, in every mode, for a cell that reads as a number once
/// its one ',' is taken for a decimal point ("1,2881" in a table that ';', tabs or blanks
/// separate, as R's write.csv2 and European spreadsheets write it): cudag reads decimal
/// points only, and such a cell would otherwise be a label or a non-numeric cell.
class DecimalComma : public InputError {
public:
    using InputError::InputError;
};

/// How a table's cells become a data set.
struct ReadOptions {
    TableMode mode = TableMode::Numeric;
    /// --na-values: cells equal to one of these tokens are missing.
    std::vector<std::string> na_values;
    /// Missing cells (empty, NaN/NA/... in a numeric column, a --na-values token) are kept as
    /// NaN and counted in Dataset::missing instead of refused (--missing testwise/listwise).
    bool keep_missing = false;
};

/// Most levels a discrete variable may have (codes fit one byte).
inline constexpr std::int64_t kMaxLevels = 256;

/// Read a text table: a header row of variable names, then one row per sample.
///
/// The delimiter is sniffed (see sniff_delimiter). CRLF line ends, a UTF-8 byte-order
/// mark, quoted fields ("a","b"), one trailing delimiter per row and blank lines are
/// accepted. Numbers are parsed with std::from_chars; a leading '+' is allowed.
/// Throws InputError with a one-line message "path:row:col: ..." (rows counted from 1
/// with the header as row 1, columns from 1, the column also named) for: an empty file,
/// no data rows, a ragged row, a missing cell (empty, NA, NaN, ...), a non-finite cell
/// (inf), a non-numeric cell, an empty or duplicate column name. Large files are parsed
/// by several threads; the error reported is always the first one in file order.
/// Dataset::source is `path`.
///
/// TableMode::Labels reads discrete data: every cell is a label (missing tokens are still
/// errors). A column whose labels all parse as numbers gets codes in increasing numeric
/// order ("2", "10" → 0, 1; "1" and "1.0" are one level, labelled "1"); any other column
/// gets codes in byte order of its labels. Dataset::levels holds the labels; a column with
/// more than kMaxLevels levels is an InputError naming it.
///
/// TableMode::Auto tells the two apart by column: a column is labels when none of its
/// cells is a number, numbers when all are. No label column: the table is read as in
/// TableMode::Numeric. One or more: label columns are discrete (coded as in
/// TableMode::Labels), and so are numeric columns of integer codes beside them (integers
/// only, at most kFewLevels distinct values: a variable whose levels are numbers); other
/// numeric columns are continuous: mixed data (Dataset::mixed()), else discrete data. A column with both is a
/// MixedColumn error at the first cell of the kind it has fewer of (labels on a tie): "path:12:4: non-numeric value
/// 'abc' in column 'd' (299 of its 300 cells are numbers)" for a typo in continuous data, "numeric value '7' in column
/// 'x' (49 of its 50 cells are labels)" for a stray number among labels; several such columns report the cell that
/// comes first in the file. Missing, non-finite (inf) cells and ragged rows are errors as in TableMode::Numeric, and
/// are reported first.
///
/// Decimal commas, in every mode: when the delimiter is not ',', a column whose cells are
/// numbers, at least one written with a decimal comma ("1,2881"), is a DecimalComma error
/// at the first such cell in the file ("path:2:1: '1,2881' in column 'a' looks like a
/// number with a decimal comma; cudag reads decimal points: ..."); in TableMode::Numeric
/// any such cell is. A column of labels that merely contain commas ("x,y") stays labels.
///
/// `na_values` (--na-values, as pandas' na_values): cells equal to one of these tokens are
/// missing values in every mode (an error as above, naming the row and column), labels
/// or not.
Dataset read_table(const std::string& path, TableMode mode = TableMode::Numeric,
                   const std::vector<std::string>& na_values = {});
/// read_table with every reading option (ReadOptions::keep_missing: missing cells are kept
/// as NaN, not refused; in TableMode::Labels only empty cells and --na-values tokens are
/// missing, since NA, None, ... are levels there).
Dataset read_table(const std::string& path, const ReadOptions& options);

/// read_table on text already in memory; `path` is only used in messages and as
/// Dataset::source.
Dataset parse_table(std::string_view text, const std::string& path, TableMode mode = TableMode::Numeric,
                    const std::vector<std::string>& na_values = {});
Dataset parse_table(std::string_view text, const std::string& path, const ReadOptions& options);

/// Turn continuous-typed data (e.g. read from HDF5) into discrete data in place: each
/// column's distinct values, in increasing order, become codes 0..r-1 and their shortest
/// round-trip text becomes the level label. `where` names the source in errors (more than
/// kMaxLevels levels). A no-op when `d` is already discrete.
void discretize(Dataset& d, const std::string& where);

/// Refuse discrete data that are continuous numbers: an InputError when a column of `d`
/// holds numbers only and one of them has a fraction: for discrete data, a variable whose
/// level labels all read as numbers, one not an integer ("0.5"); for continuous data (not
/// yet discretised: HDF5 or array input, TableMode::Auto), any value that is not an
/// integer. The message names d.source, the column, the value and its data row (samples
/// counted from 1; the header is not a data row), then `needs`: what asked for discrete
/// data, e.g. "chi-square needs discrete data (...)". Used by every discrete CI test and
/// by the BDeu/K2 scores, so that they refuse the same columns in the same words.
void check_integer_levels(const Dataset& d, const std::string& needs);

/// Most distinct values per column for integer_coded_levels.
inline constexpr std::int64_t kFewLevels = 32;

/// Do continuous data look like integer-coded discrete data? They do when every column holds
/// only integers, with at most kFewLevels distinct values and at most one distinct value per
/// 10 samples (so never below 20 samples). Returns the most distinct values of a column
/// then, else 0 (also for discrete data).
std::int64_t integer_coded_levels(const Dataset& d);

/// Columns whose type the user names (--discrete-columns, --continuous-columns; Python's
/// categorical columns), by name.
struct ColumnTypes {
    std::vector<std::string> discrete, continuous;
};

/// Give the named columns of `d` their type: a continuous column named discrete gets codes
/// of its distinct values in increasing order (as discretize; missing cells stay missing);
/// a discrete column named continuous gets the numbers its labels spell (a label that is
/// not a number is an InputError naming it and its first data row). A name that is not a
/// column, or is in both lists, is an InputError. `d` may become mixed data, or lose its
/// levels when every column is then continuous.
void apply_column_types(Dataset& d, const ColumnTypes& types);

/// Does the text of a table cell parse as a finite number (the Numeric mode's rule)?
bool is_numeric_cell(std::string_view text);

/// Pick the delimiter of a table from its header line and first data line (either may
/// be empty). Returns ',', '\t' or ';' when that character splits both lines into the
/// same number of fields (outside quotes; the most fields wins), else ' ' meaning "runs
/// of spaces and tabs" when that splits them consistently, else the candidate occurring
/// most often in the header, else ' '.
char sniff_delimiter(std::string_view header, std::string_view first_data);

}  // namespace cudag::io
