// SPDX-License-Identifier: Apache-2.0
// cudag's HDF5 result as a graph file: a PC result's CPDAG, an MCMC result's best DAG, an
// FCI result's PAG.
#include "io/graph_parse.hpp"

#include <string>
#include <vector>

#include "io/hdf5_file.hpp"
#include "io/result_formats.hpp"

namespace cudag::io::graph_detail {

namespace {

/// /pag/edges of a cudag fci result: rows (a, b, mark at a, mark at b) in pcalg's amat.pag
/// codes (1 circle, 2 arrowhead, 3 tail).
Pdag read_pag(hid_t root, const std::vector<std::int32_t>& id, GraphBuilder& b, const std::string& where) {
    if (!b.circles())
        b.fail(0, "is a cudag fci result, a PAG (circle marks), which only cudag compare reads; give a DAG or CPDAG");
    b.declare_pag();
    const std::vector<hsize_t> shape = h5::dataset_shape(root, "pag/edges", where);
    if (shape.size() != 2 || shape[1] != 4) b.fail(0, "/pag/edges is not an E x 4 array");
    const auto rows = h5::read_array<std::int32_t>(root, "pag/edges", where);
    constexpr Mark kMark[4] = {Mark::None, Mark::Circle, Mark::Arrow, Mark::Tail};
    const auto n = static_cast<std::int32_t>(id.size());
    for (std::size_t k = 0; k + 3 < rows.size(); k += 4) {
        const std::int32_t x = rows[k], y = rows[k + 1], mx = rows[k + 2], my = rows[k + 3];
        if (x < 0 || x >= n || y < 0 || y >= n || mx < 1 || mx > 3 || my < 1 || my > 3) {
            std::string msg = "/pag/edges row ";
            msg += std::to_string(k / 4);
            msg += " is not (a, b, mark at a, mark at b) with a, b < ";
            msg += std::to_string(n);
            msg += " and marks 1, 2 or 3";
            b.fail(0, msg);
        }
        b.add_edge(id[x], id[y], kMark[mx], kMark[my], 0);
    }
    return b.finish();
}

}  // namespace

Pdag read_result_h5(const std::string& path, GraphBuilder& b, std::string& graph) {
    const std::string where = path;
    h5::Handle file = h5::open_file(path);
    const hid_t root = file.get();
    const std::vector<std::string> format =
        h5::has_attr(root, "format") ? h5::read_string_attr(root, "format", where) : std::vector<std::string>{};
    const bool mcmc = format == std::vector<std::string>{mcmc_result_format};
    if (format != std::vector<std::string>{pc_result_format} && !mcmc)
        b.fail(0, "is an HDF5 file but not a cudag PC or MCMC result (root attribute format = " +
                      (format.empty() ? std::string("none") : "'" + format[0] + "'") + ", expected '" +
                      pc_result_format + "' or '" + mcmc_result_format + "')");
    std::vector<std::int32_t> id;
    for (const std::string& name : h5::read_strings(root, "variables/names", where)) id.push_back(b.list_node(name, 0));
    const auto n = static_cast<std::int32_t>(id.size());
    const std::vector<std::string> graph_kind =
        h5::has_attr(root, "kind") ? h5::read_string_attr(root, "kind", where) : std::vector<std::string>{};
    if (!mcmc && graph_kind == std::vector<std::string>{"pag"}) {
        graph = "/pag, the FCI run's PAG";
        return read_pag(root, id, b, where);
    }
    // /best_dag/edges: (source, target) rows; /cpdag/edges: (a, b, kind) rows.
    const std::string name = mcmc ? "best_dag/edges" : "cpdag/edges";
    const hsize_t width = mcmc ? 2 : 3;
    graph = mcmc                                            ? "/best_dag, the MCMC run's best DAG"
            : H5Lexists(root, "bootstrap", H5P_DEFAULT) > 0 ? "/cpdag, the bootstrap's consensus graph"
                                                            : "/cpdag, the PC run's CPDAG";
    const std::vector<hsize_t> shape = h5::dataset_shape(root, name, where);
    if (shape.size() != 2 || shape[1] != width)
        b.fail(0, "/" + name + " is not an E x " + std::to_string(width) + " array");
    const auto rows = h5::read_array<std::int32_t>(root, name, where);
    for (std::size_t k = 0; k + width - 1 < rows.size(); k += width) {
        const std::int32_t x = rows[k];
        const std::int32_t y = rows[k + 1];
        const std::int32_t kind = mcmc ? 1 : rows[k + 2];
        if (x < 0 || x >= n || y < 0 || y >= n || kind < 0 || kind > 2)
            b.fail(0, "/" + name + " row " + std::to_string(k / width) + " (" + std::to_string(x) + ", " +
                          std::to_string(y) + (mcmc ? "" : ", " + std::to_string(kind)) + ") is not (a, b" +
                          (mcmc ? "" : ", kind") + ") with a, b < " + std::to_string(n) +
                          (mcmc ? "" : " and kind 0, 1 or 2"));
        const Mark at_x = kind == 2 ? Mark::Arrow : Mark::Tail;
        const Mark at_y = kind == 0 ? Mark::Tail : Mark::Arrow;
        b.add_edge(id[x], id[y], at_x, at_y, 0);
    }
    return b.finish();
}

}  // namespace cudag::io::graph_detail
