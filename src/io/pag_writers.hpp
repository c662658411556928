// SPDX-License-Identifier: Apache-2.0
// A PAG's text formats (cudag fci): the same format names as a CPDAG's, with the edge marks
// of a PAG (core/pag.hpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/pag.hpp"

namespace cudag::io {

class OutputSet;

struct PagView {
    const std::vector<std::string>& names;
    const Pag& pag;
};

/// The format name under which `format` is claimed and written for a PAG: "amat" becomes
/// "pag-amat" (file `<stem>.pag.amat.csv`: pcalg's amat.pag, never PC's CPDAG convention);
/// every other name is itself.
std::string pag_format(const std::string& format);

/// Edge list TSV: "source\ttarget\tmark", one line per edge a < b read from a to b with the
/// mark string of edge_string ("o->", "<->", "-->", ...).
void write_pag_edges(const PagView& r, const std::string& path);
/// pcalg's amat.pag as R's write.csv writes it: amat[a, b] = the mark at b (0 none, 1 circle,
/// 2 arrowhead, 3 tail); read.csv(path, row.names = 1) gives it back.
void write_pag_amat(const PagView& r, const std::string& path);
/// causal-learn's GeneralGraph matrix (np.savetxt, "%d"): G[i, j] = the mark at i of the edge
/// i–j (-1 tail, 1 arrowhead, 2 circle, 0 no edge).
void write_pag_cl(const PagView& r, const std::string& path);
/// Graphviz digraph with both ends drawn: arrowhead "normal", circle "odot", tail "none".
void write_pag_dot(const PagView& r, const std::string& path);
/// networkx node-link JSON: links {"source", "target", "mark"} per edge a < b (mark read from
/// source to target).
void write_pag_json(const PagView& r, const std::string& path);

/// write_formats for a PAG: edges, dot, json, amat (as pag-amat), pag-amat, cl, png, svg.
void write_pag_formats(const PagView& r, const std::string& out_h5, const std::vector<std::string>& formats,
                       OutputSet& outputs, std::ostream& warnings);

}  // namespace cudag::io
