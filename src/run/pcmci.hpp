// SPDX-License-Identifier: Apache-2.0
// A PCMCI job (`cudag pcmci`, cudag.pcmci): the series read, checked and laid out as the
// lagged table (pcmci/lagged.hpp), the tests made for the CPU's threads or a GPU, PCMCI
// (pcmci/pcmci.hpp) or PCMCI+ (pcmci/pcmciplus.hpp) run and the result written
// (pcmci/output.hpp).
#pragma once

#include <string>
#include <vector>

#include "mpi/communicator.hpp"
#include "pcmci/pcmci.hpp"
#include "run/cmi_knn.hpp"
#include "run/common.hpp"

namespace cudag::run {

/// Every setting of a pcmci job, named as `cudag pcmci`'s options.
struct PcmciJob {
    std::string data, dataset;
    std::string method = "pcmci";  ///< pcmci (run_pcmci) or pcmciplus (run_pcmciplus)
    std::string test = "parcorr";  ///< parcorr or cmiknn
    CmiKnnJob cmi;
    pcmci::Settings settings;  ///< tau_min, tau_max, pc_alpha, ... (tigramite's defaults)
    /// Whether settings.pc_alpha was given: if not, each method takes tigramite's default
    /// (run_pcmci 0.2, which Settings holds; run_pcmciplus 0.01).
    bool pc_alpha_given = false;
    std::string fdr = "none";  ///< none or fdr_bh
    std::string links;         ///< link assumptions file (empty: tigramite's default)
    /// --missing-flag: "" none, a number (tigramite's missing_flag), "nan" (empty/NA/NaN cells).
    std::string missing_flag;
    std::string series_column;  ///< --series-column: the column naming each row's series
    std::string time_column;    ///< --time-column: the rows' times (checked in order, not a variable)
    std::string backend = "auto";
    int threads = 0;
    std::string out;      ///< result HDF5 file ("" or "-": the links table on stdout)
    std::string formats;  ///< extra outputs beside --out: links, json
    bool quiet = false, verbose = false;
    bool print_links = true;  ///< without --out, the links table on stdout (Python: no)
};

struct PcmciRun {
    pcmci::Result result;
    std::vector<std::string> names;  ///< the series' names
    std::string where;               ///< where the tests ran
    double seconds = 0.0;
};

/// Reads a link assumptions file: lines "cause<TAB>effect<TAB>lag<TAB>type" (names or
/// 0-based indices; lag >= 0; tigramite's types), '#' comments; every variable not named as
/// an effect has no links (tigramite: absent links are assumed absent).
pcmci::LinkAssumptions read_link_assumptions(const std::string& path, const std::vector<std::string>& names);

/// Runs the job and writes its outputs (none when it fails). `read`: the data (empty: the
/// job's file). With `comm` of several ranks, every rank calls it: each reads the series,
/// answers its slice of every batch of tests (pcmci::RankSplitBatch) on its CPU threads or
/// on GPU `local_rank` modulo the visible ones, and rank 0 writes; the result is one
/// process's, bit for bit.
PcmciRun run_pcmci(const PcmciJob& job, const std::string& command_line, const DataReader& read = {},
                   mpi::Communicator* comm = nullptr, int local_rank = 0);

}  // namespace cudag::run
