// SPDX-License-Identifier: Apache-2.0
// Reading the FCI reference outputs (tests/data/fci) and cudag's pcalg-coded amat files, for
// the regression tests against pcalg and causal-learn.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cudag::test {

/// A tab-separated file's rows.
inline std::vector<std::vector<std::string>> tsv(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
        rows.push_back(f);
    }
    return rows;
}

/// A reference amat: names, then rows of pcalg amat.pag codes.
inline std::vector<std::vector<int>> read_ref_amat(const std::filesystem::path& p, std::vector<std::string>& names) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    std::stringstream hs(line);
    for (std::string n; hs >> n;) names.push_back(n);
    std::vector<std::vector<int>> m;
    while (std::getline(in, line)) {
        std::stringstream ls(line);
        std::vector<int> row;
        for (int v; ls >> v;) row.push_back(v);
        if (!row.empty()) m.push_back(row);
    }
    return m;
}

/// cudag's <stem>.pag.amat.csv: a quoted header, then a quoted name and codes per row.
inline std::vector<std::vector<int>> read_our_amat(const std::filesystem::path& p, std::vector<std::string>& names) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    std::stringstream hs(line);
    std::string cell;
    std::getline(hs, cell, ',');
    while (std::getline(hs, cell, ',')) names.push_back(cell.substr(1, cell.size() - 2));
    std::vector<std::vector<int>> m;
    while (std::getline(in, line)) {
        std::stringstream ls(line);
        std::getline(ls, cell, ',');
        std::vector<int> row;
        while (std::getline(ls, cell, ',')) row.push_back(std::stoi(cell));
        m.push_back(row);
    }
    return m;
}

}  // namespace cudag::test
