// SPDX-License-Identifier: Apache-2.0
// Text tables with a header row: comma, tab, semicolon or whitespace separated.
#pragma once

#include <string>
#include <string_view>

#include "core/dataset.hpp"

namespace cudag::io {

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
Dataset read_table(const std::string& path);

/// read_table on text already in memory; `path` is only used in messages and as
/// Dataset::source.
Dataset parse_table(std::string_view text, const std::string& path);

/// Pick the delimiter of a table from its header line and first data line (either may
/// be empty). Returns ',', '\t' or ';' when that character splits both lines into the
/// same number of fields (outside quotes; the most fields wins), else ' ' meaning "runs
/// of spaces and tabs" when that splits them consistently, else the candidate occurring
/// most often in the header, else ' '.
char sniff_delimiter(std::string_view header, std::string_view first_data);

}  // namespace cudag::io
