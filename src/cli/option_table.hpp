// SPDX-License-Identifier: Apache-2.0
// The commands' options as data: each option's name, type, default and one-line meaning,
// read from the CLI11 declarations of src/cli/*.cpp (the one place they are written). The
// command line's --help prints them; the Python module exports them (cudag.options(),
// the docstrings and signatures of cudag.pc, ...).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/citest.hpp"
#include "cli/compare.hpp"
#include "cli/fci.hpp"
#include "cli/mcmc.hpp"
#include "cli/pc.hpp"
#include "cli/pcmci.hpp"
#include "cli/score.hpp"
#include "cli/simulate.hpp"

namespace cudag::cli {

/// Every command's arguments and subcommand: what add_commands binds (pinned in place:
/// the app holds references into it).
struct Commands {
    PcArgs pc;
    FciArgs fci;
    SimulateArgs simulate;
    CompareArgs compare;
    CitestArgs citest;
    ScoreArgs score;
    McmcArgs mcmc;
    PcmciArgs pcmci;
    CLI::App *pc_cmd = nullptr, *fci_cmd = nullptr, *simulate_cmd = nullptr, *compare_cmd = nullptr,
             *citest_cmd = nullptr, *score_cmd = nullptr, *mcmc_cmd = nullptr, *pcmci_cmd = nullptr,
             *info_cmd = nullptr;
    Commands() = default;
    Commands(const Commands&) = delete;
    Commands& operator=(const Commands&) = delete;
};

/// Registers every subcommand of `cudag` on `app`, binding `c`.
void add_commands(CLI::App& app, Commands& c);

/// One option of a command as its --help shows it.
struct OptionInfo {
    std::string option;         ///< "--max-level" (the first long name; "-q,--quiet": "--quiet")
    std::string type;           ///< "flag", "int", "float", "text" or "list" (a repeatable option)
    std::string default_value;  ///< the default as --help prints it ("" when the declaration shows none)
    std::string meaning;        ///< the --help line
    bool hidden = false;        ///< not listed by --help (testing and tuning options)
};

/// The options of `command` ("pc", "fci", "mcmc", "pcmci", "citest", "score", "compare",
/// "simulate gaussian", "simulate nonlinear", "simulate discrete", "simulate bif"), in
/// --help's order, without --help itself. An unknown command is an InputError.
std::vector<OptionInfo> option_table(const std::string& command);

/// The commands option_table takes.
std::vector<std::string> table_commands();

}  // namespace cudag::cli
