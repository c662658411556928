// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the cudag commands (src/cli/*.cpp).
#pragma once

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/parallel.hpp"
#include "io/output_set.hpp"
#include "io/writers.hpp"
#include "mpi/communicator.hpp"

namespace cudag::cli {

/// Verbose: every rank's peak resident memory, printed by rank 0 as one line
/// ("<label>: peak memory per rank: 0 1.2 GiB, 1 ..."). Collective.
inline void report_peak_memory(mpi::Communicator& comm, const std::string& label) {
    const std::vector<std::int64_t> peaks = comm.allgather(peak_resident_bytes());
    if (comm.rank() != 0) return;
    std::string line = label + ": peak memory per rank:";
    for (std::size_t r = 0; r < peaks.size(); ++r)
        line += (r ? ", " : " ") + std::to_string(r) + " " + format_bytes(static_cast<double>(peaks[r]));
    std::cerr << line << '\n';
}

/// The non-empty items of a comma-separated list.
inline std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

/// Before any work, rank 0 takes temporaries for --out and the files of `formats` beside it
/// in `outputs`, and proves --checkpoint's folder writable (writable, not a FIFO or device);
/// agreed over the ranks. Returns the temporary of --out ("" when there is none).
inline std::string claim_outputs(mpi::Communicator& comm, io::OutputSet& outputs, const std::string& out,
                                 const std::vector<std::string>& formats, const std::string& checkpoint) {
    std::string tmp;
    mpi::run_agreed(comm, [&] {
        if (comm.rank() != 0) return;
        if (!out.empty()) {
            tmp = outputs.temp_for(out);
            for (const std::string& f : formats) outputs.temp_for(io::format_path(out, f));
        }
        if (!checkpoint.empty()) {
            io::OutputSet probe;  // the checkpoint writer has its own set
            probe.temp_for(checkpoint);
        }
    });
    return tmp;
}

/// Largest graph drawn as PNG/SVG without --force (Graphviz takes minutes beyond).
constexpr std::int64_t kMaxDrawnNodes = 500;

/// --threads as a command uses it: negative is an error, 0 means every hardware thread,
/// more than the hardware threads is clamped to them with a note (unless quiet).
inline int checked_threads(int requested, bool quiet) {
    if (requested < 0)
        throw InputError("--threads must be >= 0 (0: all " + std::to_string(resolve_threads(0)) +
                         " hardware threads), got " + std::to_string(requested));
    const int hw = resolve_threads(0);
    if (requested <= hw) return requested;
    if (!quiet)
        std::cerr << "cudag: note: --threads " << requested << " is more than the " << hw
                  << " hardware threads; using " << hw << '\n';
    return hw;
}

}  // namespace cudag::cli
