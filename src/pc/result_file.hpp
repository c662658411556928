// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

#include "mpi/communicator.hpp"
#include "pc/result.hpp"

namespace cudag::pc {

/// Name of the layout written by write_result_hdf5 (root attribute "format").

/// Write a PC result to the HDF5 file `path` (created or truncated; callers pass a
/// temporary from an OutputSet). Layout, all indices 0-based:
///   /                 attrs cudag_version, format ("cudag-pc-result-1"), n_samples
///                     (int64), n_vars (int64), seconds_total (float64)
///   /variables/names  vlen UTF-8 strings, n
///   /variables/{cardinality int32 n, level_offsets int64 n+1, level_labels vlen UTF-8}
///                     discrete data only: variable v's code k is level_labels[level_offsets[v]+k]
///   /skeleton/edges   int32 E×2, rows (i, j) with i < j, sorted
///   /cpdag/edges      int32 E×3, rows (a, b, kind): kind 0 a---b (a < b), 1 a-->b,
///                     2 a<->b (a < b); sorted by (a, b)
///   /cpdag/amat       int8 n×n, pcalg amat.cpdag coding (amat[a,b] = 0, amat[b,a] = 1
///                     means a --> b; 1/1 a --- b; 2/2 a <-> b); only n <= dense_pmax_limit
///   /sepsets/pairs    int32 K×2 (i < j, sorted); /sepsets/offsets int64 K+1;
///   /sepsets/nodes    int32: the set of pair k is nodes[offsets[k] .. offsets[k+1])
///   /pmax/pairs       int32 P×2; /pmax/values float64 P (as in PcResult::pmax)
///   /pmax/matrix      float64 n×n symmetric, -1 on the diagonal, NaN for pairs not in
///                     pmax; only n <= dense_pmax_limit
///   /levels/{level (int32), tests, removed, edges_after (int64), seconds, imbalance,
///                     tests_imbalance (float64: the busiest rank's estimated work, and
///                     the tests it ran, over the mean per rank; 1 on one rank)}
///   /bootstrap        a bootstrap run only (then /cpdag and /skeleton hold its consensus
///                     graph, and /sepsets, /pmax, /levels are empty): attrs replicates
///                     (int64 B), resample (string), seed (uint64), consensus (float64),
///                     kinds (strings: none, i-->j, j-->i, i---j, i<->j); pairs int32 K×2
///                     (i < j, sorted: the pairs adjacent in at least one replicate);
///                     counts int32 K×5 (replicates of each kind, summing to B);
///                     frequency float64 K×5 (counts / B); adjacency float64 K (1 - none)
///   /config           one string attribute per PcResult::config entry; keys mapped to
///                     [A-Za-z0-9_] (others become '_'; a repeated key gets _2, _3, ...)
/// Zero-size datasets are written for empty parts. Throws InputError on HDF5 failures.
void write_result_hdf5(const pc::PcResult& r, const std::string& path);

/// The collective form, for a run that kept its records distributed (r.record_rows):
/// every rank of `comm` calls it with the same `path` and its PcResult. Rank 0 creates
/// the file with everything but the records (the separating sets, the pMax pairs and
/// matrix sized but unwritten); then every rank opens it through MPI-IO and writes its
/// rows' records collectively. The file holds what write_result_hdf5 writes for the
/// gathered result. Failures are agreed on (every rank throws). Needs parallel HDF5.
void write_result_hdf5(const pc::PcResult& r, const std::string& path, mpi::Communicator& comm);

}  // namespace cudag::pc
