// SPDX-License-Identifier: Apache-2.0
// What the PCMCI reference files (scripts/dev/pcmci_reference.py, pcmciplus_reference.py) say
// that the tests of tests/unit/pcmci/ read alike.
#pragma once

#include <sstream>
#include <string>

#include "pcmci/pcmci.hpp"

namespace cudag::test {

/// A settings line's pc_alpha into `s`: "None" (tigramite's default list, run_pcmci's or with
/// `pcmciplus` run_pcmciplus's), "0.05,0.1" (a list: the selection) or one value.
inline void set_reference_pc_alpha(pcmci::Settings& s, const std::string& text, bool pcmciplus) {
    if (text == "None") {
        s.pc_alpha_list = pcmci::default_pc_alpha_list(pcmciplus);
    } else if (text.find(',') != std::string::npos) {
        std::stringstream in(text);
        for (std::string a; std::getline(in, a, ',');) s.pc_alpha_list.push_back(std::stod(a));
    } else {
        s.pc_alpha = std::stod(text);
    }
}

}  // namespace cudag::test
