// SPDX-License-Identifier: Apache-2.0
// Parts of a pcmci job (run/pcmci.hpp): the files of its --format list and the settings its
// --checkpoint is written for.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/dataset.hpp"
#include "io/checkpoint_file.hpp"
#include "io/output_set.hpp"
#include "run/pcmci.hpp"
#include "skeleton/test_spec.hpp"

namespace cudag::run {

/// The --format names of cudag pcmci: links, json, dot, png, svg.
const std::vector<std::string>& pcmci_format_names();

/// The files --format `format` writes beside `out` (its name without .h5/.hdf5): links →
/// .links.tsv, json → .json; dot, png and svg → the process graph (.dot, .png, .svg) and the
/// time-series graph (.ts.dot, .ts.png, .ts.svg). Throws InputError for an unknown format.
std::vector<std::string> pcmci_format_paths(const std::string& out, const std::string& format);

/// Writes the files of `formats` to their temporaries in `outputs`. png/svg are rendered by
/// Graphviz; without it (or when it fails) they are skipped with one warning line each on
/// `warnings` and discarded from `outputs`.
void write_pcmci_formats(const pcmci::Result& r, const std::vector<std::string>& names,
                         const std::vector<std::pair<std::string, std::string>>& config, const std::string& out,
                         const std::vector<std::string>& formats, io::OutputSet& outputs, std::ostream& warnings);

/// What a pcmci checkpoint is written for, one setting per option that changes the tests
/// asked or their answers: --method, the test and its options, the lags, the significance
/// levels, the caps, --fdr, the link assumptions and PCMCI+'s settings, then the lagged
/// table's names and values (not --backend, --threads or the rank count: the answers are the
/// same on any of them).
io::CheckpointSettings pcmci_checkpoint_settings(const PcmciJob& a, const pcmci::Settings& s, const Dataset& lagged,
                                                 const skeleton::TestSpec& spec);

/// The configuration hash of `settings`.
std::string pcmci_checkpoint_hash(const io::CheckpointSettings& settings);

}  // namespace cudag::run
