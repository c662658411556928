// SPDX-License-Identifier: Apache-2.0
// --forbid, --require and --tiers, shared by `cudag pc` and `cudag mcmc` (issue 23).
#pragma once

#include <CLI/CLI.hpp>

#include <vector>

#include "core/knowledge.hpp"
#include "run/common.hpp"

namespace cudag::cli {

/// Registers the three knowledge files on a command.
inline void add_knowledge_options(CLI::App* cmd, KnowledgeFiles& k) {
    cmd->add_option("--forbid", k.forbid,
                    "background knowledge: forbidden edges, one per line: 'a -> b' (a is never a parent "
                    "of b) or 'a -- b' / 'a b' (never adjacent); '#' comments")
        ->group("Background knowledge");
    cmd->add_option("--require", k.require,
                    "background knowledge: required edges, one per line: 'a -> b' (directed) or "
                    "'a -- b' / 'a b' (adjacent, either way)")
        ->group("Background knowledge");
    cmd->add_option("--tiers", k.tiers,
                    "background knowledge: one tier per line, earliest first, variables separated by "
                    "blanks; no edge points from a later tier to an earlier one")
        ->group("Background knowledge");
}

using run::with_knowledge_inputs;

}  // namespace cudag::cli
