// SPDX-License-Identifier: Apache-2.0
// PCMCI's result drawn (issue 56) as tigramite's plotting draws it, in Graphviz DOT text that
// `dot` renders (io::render_dot: png, svg): the process graph (plot_graph) and the time-series
// graph (plot_time_series_graph). The text is cudag's and deterministic: every node is pinned
// (layout=neato, pos="x,y!"), so Graphviz only routes the edges.
//
// Colours as tigramite's defaults: an edge by its MCI value and a node of the process graph by
// its auto-MCI value, on matplotlib's RdBu_r from −1 (blue) through 0 (near white) to +1 (red)
// (ColorBrewer's 11 RdBu colours, linearly interpolated).
#pragma once

#include <string>
#include <vector>

#include "pcmci/pcmci.hpp"

namespace cudag::pcmci {

/// "#rrggbb" of `value` on RdBu_r over [−1, 1] (values outside clamped; NaN: grey "#bdbdbd").
std::string rdbu_r_colour(double value);

/// The process graph (tigramite's plot_graph): node "n<i>" per series, labelled with its name,
/// on a circle (networkx's circular_layout: series i at angle 2πi/N, counter-clockwise from
/// the right), filled with the auto-MCI colour (the value of its strongest lagged
/// self-link, 0 without one). Per ordered pair (i, j), i ≠ j, at most two edges "n<i>" ->
/// "n<j>": one for the lagged links i → j, labelled with their lags by |value|, largest
/// first (ties: larger lag first), coloured and marked as the strongest of them; and for
/// i < j one for the lag-0 link, marked with its mark (`-->` an arrow, `<--` dir=back, `o-o`
/// circles, `x-x` tees and the label "x-x"). Self-links are the node colours, as in tigramite.
std::string process_graph_dot(const Result& r, const std::vector<std::string>& names);

/// The time-series graph (tigramite's plot_time_series_graph): node "n<i>_<c>" for series i
/// at column c = 0..tau_max (time t − (tau_max − c)), at x = 1.5·c, y = 1.2·(N − 1 − i)
/// inches; the series' names left of the rows ("r<i>") and "t-k"/"t" under the columns
/// ("c<c>"). Every link (i, −τ) → j (at lag 0 only i < j) is an edge "n<i>_<c−τ>" ->
/// "n<j>_<c>" for every column c >= τ, coloured by its value and marked as in the
/// process graph.
std::string time_series_graph_dot(const Result& r, const std::vector<std::string>& names);

}  // namespace cudag::pcmci
