// SPDX-License-Identifier: Apache-2.0
// A PCMCI job (`cudag pcmci`, cudag.pcmci): the series read, checked and laid out as the
// lagged table (pcmci/lagged.hpp), the tests made for the CPU's threads or a GPU, PCMCI
// (pcmci/pcmci.hpp) or PCMCI+ (pcmci/pcmciplus.hpp) run and the result written
// (pcmci/output.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "mpi/communicator.hpp"
#include "pcmci/pcmci.hpp"
#include "run/cmi_knn.hpp"
#include "run/common.hpp"

namespace cudag::run {

/// --method: tigramite's run_pcmci or run_pcmciplus.
enum class PcmciMethod { Pcmci, PcmciPlus };
/// --test: tigramite's ParCorr (analytic) or CMIknn.
enum class PcmciTest { ParCorr, CmiKnn };
/// --fdr: tigramite's fdr_method, none or fdr_bh (Benjamini-Hochberg q-values).
enum class FdrMethod { None, FdrBh };

/// "pcmci" or "pcmciplus"; anything else is an InputError naming --method and the choices.
PcmciMethod parse_pcmci_method(const std::string& name);
std::string to_string(PcmciMethod m);
/// "parcorr" or "cmiknn"; anything else is an InputError naming --test and the choices.
PcmciTest parse_pcmci_test(const std::string& name);
std::string to_string(PcmciTest t);
/// "none" or "fdr_bh"; anything else is an InputError naming --fdr and the choices.
FdrMethod parse_fdr(const std::string& name);
std::string to_string(FdrMethod f);

/// Every setting of a pcmci job, named as `cudag pcmci`'s options; the choices are parsed
/// by the front end (parse_pcmci_method, parse_pcmci_test, parse_fdr, parse_backend,
/// pcmci::parse_collider_rule).
struct PcmciJob {
    std::string data, dataset;
    PcmciMethod method = PcmciMethod::Pcmci;
    PcmciTest test = PcmciTest::ParCorr;
    CmiKnnJob cmi;
    pcmci::Settings settings;  ///< tau_min, tau_max, pc_alpha, ... (tigramite's defaults)
    /// Whether settings.pc_alpha was given: if not, each method takes tigramite's default
    /// (run_pcmci 0.2, which Settings holds; run_pcmciplus 0.01).
    bool pc_alpha_given = false;
    /// --pc-alpha auto: tigramite's pc_alpha=None, the selection among the method's default
    /// list (pcmci::default_pc_alpha_list). A list of values is settings.pc_alpha_list.
    bool pc_alpha_auto = false;
    FdrMethod fdr = FdrMethod::None;
    std::string links;         ///< link assumptions file (empty: tigramite's default)
    /// --missing-flag: "" none, a number (tigramite's missing_flag), "nan" (empty/NA/NaN cells).
    std::string missing_flag;
    std::string series_column;  ///< --series-column: the column naming each row's series
    std::string time_column;    ///< --time-column: the rows' times (checked in order, not a variable)
    BackendKind backend = BackendKind::Auto;
    int threads = 0;
    std::string out;      ///< result HDF5 file ("" or "-": the links table on stdout)
    std::string formats;  ///< extra outputs beside --out: links, json, dot, png, svg
    bool force = false;   ///< draw png/svg past 500 nodes
    /// --checkpoint FILE: the answered tests (pcmci/checkpoint.hpp), rewritten at most every
    /// checkpoint_every seconds; --resume continues it, --overwrite-checkpoint replaces it;
    /// removed after a successful run unless keep_checkpoint.
    std::string checkpoint;
    double checkpoint_every = 30.0;
    bool resume = false, overwrite_checkpoint = false, keep_checkpoint = false;
    std::optional<std::int64_t> stop_after_tests;  ///< testing: a simulated kill (pcmci::StoppedAfterTests)
    bool quiet = false, verbose = false;
    bool print_links = true;  ///< without --out, the links table on stdout (Python: no)
};

struct PcmciRun {
    pcmci::Result result;
    std::vector<std::string> names;  ///< the series' names
    std::string where;               ///< where the tests ran
    std::int64_t resumed_tests = 0;  ///< tests answered from --checkpoint (--resume)
    double seconds = 0.0;
};

/// --pc-alpha `text` into `job`: "auto" (pc_alpha_auto), one number (settings.pc_alpha) or
/// numbers separated by commas (settings.pc_alpha_list: tigramite's selection). Throws
/// InputError naming `what` for anything else; the values' range is checked by the run.
void set_pc_alpha(PcmciJob& job, const std::string& text, const std::string& what = "--pc-alpha");

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
