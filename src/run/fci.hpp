// SPDX-License-Identifier: Apache-2.0
// An FCI / RFCI job (`cudag fci`, cudag.fci): PC's skeleton search with every engine, backend,
// rank count, checkpoint and progress report of a `cudag pc` job, then the FCI stages on
// rank 0 (fci/fci.hpp), and the PAG written as the result.
#pragma once

#include <memory>
#include <string>

#include "fci/fci.hpp"
#include "mpi/communicator.hpp"
#include "mpi/environment.hpp"
#include "run/pc.hpp"

namespace cudag::run {

struct FciJob {
    /// The skeleton search's settings, as `cudag pc`'s (data, test, alpha, max level,
    /// knowledge, backend, checkpoints, outputs, ...).
    PcJob pc;
    /// variant (--variant), type (--type; both parsed by the front end: fci::parse_variant,
    /// fci::parse_fci_type), pdsep, pdsep_max, conservative, majority, rules
    fci::FciOptions fci;
    bool no_selection_bias = false;
};

/// Runs the job on every rank of `comm`; on rank 0 the result holds the PAG (PcResult::pag).
PcRun run_fci(const FciJob& job, const std::string& command_line, const mpi::Environment& env,
              std::unique_ptr<mpi::Communicator>& comm, PcHooks hooks = {});

/// The job's FCI / RFCI on one process where the caller builds the skeleton search's
/// settings itself (`cfg` in place of job.pc's: a given correlation matrix, pcalg's suffStat
/// list(C, n) as pc::PcConfig::correlation, in the R package): pc::run_pc on `data` without
/// orientation, then the FCI stages of job's variant, type and options (m.max: cfg's max
/// level), quiet unless job.pc says otherwise. The result holds the PAG (PcResult::pag).
pc::PcResult run_fci(const Dataset& data, const pc::PcConfig& cfg, const FciJob& job);

}  // namespace cudag::run
