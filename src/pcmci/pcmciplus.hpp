// SPDX-License-Identifier: Apache-2.0
// PCMCI+ (Runge 2020) as tigramite 5.2.10.1's PCMCI.run_pcmciplus computes it (issue 56),
// every test through a ci::BatchTest over the lagged table (pcmci/lagged.hpp), in tigramite's
// order of decisions:
//
// 1. Condition selection: run_pc_stable (pcmci.hpp) with tau_min raised to 1, its parents
//    ("lagged parents") and its matrices (largest p-value of each tested link, its value).
// 2. Skeleton with MCI tests (tigramite's _pcmciplus_mci_skeleton_phase, _pcalg_skeleton in
//    mode 'contemp_conds'). The initial graph holds the lagged parents (or, with
//    reset_lagged_links, every lagged link of the assumptions) and every contemporaneous link
//    of the assumptions. Level p = 0, 1, ... up to max_conds_dim (default N): the pairs
//    (i, j, τ), i outer, j, τ = tau_min..tau_max inner, whose link is present and whose
//    contemporaneous adjacencies adj(j) without (i, 0) number at least p; for each, the
//    subsets S of size p of those adjacencies (itertools order), until one gives p-value
//    > pc_alpha: (i, −τ) ⟂ (j, 0) | S, j's first max_conds_py parents without X, i's first
//    max_conds_px (max_conds_px_lagged when τ > 0) parents shifted by τ; a link whose middle
//    mark is '-' is not tested (value 1, p 0). Each test keeps the link's largest p-value
//    and its value (p >= the largest so far) and its minimum |value|; the first independent
//    test removes the link (both directions at lag 0, copying the p-value to the other
//    direction) and records S. adj(j) is fixed during a level; after it, adj(j) = the
//    remaining contemporaneous adjacencies sorted by minimum |value|, largest first (stable
//    on variable order, untested links counting as +inf).
//    Batching within a level: a pair's subsets are tested one per round (the first
//    independent one ends it); a lag-0 pair (i, j) whose reverse (j, i) comes earlier in
//    the level waits until the reverse ends (skipped when the reverse removed the link, as
//    tigramite's loop skips it); the other pairs are independent of each other. The
//    outcomes are then applied in tigramite's sequential order, so the result is that of
//    tigramite's loop whatever the batches.
//    The skeleton's matrices are symmetrised at lag 0 (symmetrize_p_and_val_matrix over the
//    skeleton's links) and replace PC1's at lag 0 and on the skeleton's links; PC1's stay on
//    the lagged links PC1 removed. fdr_bh corrects the lagged links of the assumptions.
// 3. Colliders (tigramite's _pcalg_colliders): the unshielded triples (i, −τ) o-o/--> (k, 0)
//    o-o (j, 0) with (i, −τ), (j, 0) not adjacent, in tigramite's order. 'none': a collider
//    when (k, 0) is not in the separating set of (i, −τ), j. 'majority'/'conservative': every
//    subset of adj(j) without (i, 0) (and, at τ = 0, of adj(i) without (j, 0)) is tested as
//    in the skeleton (one batch for all triples); the fraction of separating subsets holding
//    (k, 0) decides collider (< 0.5, or 0 for 'conservative'), non-collider or ambiguous (no
//    separating subset, 0.5, or strictly between 0 and 1 for 'conservative'). Colliders are
//    oriented in order; with conflict_resolution a link oriented both ways becomes 'x-x'.
// 4. Orientation rules R1–R3 on unambiguous triples, repeated until none applies
//    (tigramite's _pcalg_rules_timeseries), conflicts marked 'x-x' as in 3.
//
// With Settings::pc_alpha_list (tigramite's _optimize_pcmciplus_alpha): 1–4 for every value;
// each result's score is the mean over j of model_selection_criterion(j, j's parents in one
// DAG of its graph: tigramite's _get_dag_from_cpdag, the 'o-o' links oriented into simplicial
// nodes searched in the order of Σ_{i,lag} |val(i, −lag → j)|, largest first), and the
// lowest-scoring result is returned (the first of equal scores), with its values and scores.
#pragma once

#include "pcmci/pcmci.hpp"

namespace cudag::pcmci {

/// Throws InputError for settings run_pcmciplus refuses (besides check_settings):
/// max_conds_px_lagged below -1.
void check_pcmciplus_settings(const Settings& s, std::int32_t n_vars, std::int64_t length);

/// run_pcmciplus: the result's graph holds '-->' (lagged and oriented contemporaneous links),
/// '<--', 'o-o', 'x-x' or ""; val_matrix and p_matrix are tigramite's; parents are the
/// condition selection's lagged parents. pc1_tests counts the condition selection's tests,
/// mci_tests those of the skeleton and the collider phase. `tests` answers over `lagged`,
/// which must hold lags 0..2·tau_max. alpha_level is not used (pc_alpha decides every test).
Result run_pcmciplus(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests,
                     const ProgressFn& progress = {});

}  // namespace cudag::pcmci
