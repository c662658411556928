// SPDX-License-Identifier: Apache-2.0
// PCMCI (Runge et al. 2019) as tigramite 5.2.10.1's PCMCI.run_pcmci computes it (issue 56):
// condition selection by PC1 (run_pc_stable) for every variable, then the momentary
// conditional independence tests (run_mci), the optional FDR correction, the string graph and
// the symmetrised matrices. Every test goes through a ci::BatchTest over the lagged table
// (pcmci/lagged.hpp), so the CPU's workers, a GPU batch or MPI ranks answer it; the
// algorithm itself is tigramite's order of decisions, which no batching changes:
//
// PC1 for variable j (tigramite's _run_pc_stable_single). The candidate parents are the links
// of j's assumptions (default: every (i, −τ), τ = max(1, tau_min)..tau_max, i outer, τ inner;
// contemporaneous links dropped) whose type is not '<--' or '<?-'. For conds_dim = 0, 1, ...
// up to max_conds_dim (default N·(tau_max − max(1, tau_min) + 1)), while the parents number
// more than conds_dim: each parent P is tested against (j, 0) given the first max_combinations
// subsets of size conds_dim of the other parents (itertools.combinations of the current list);
// a '-->' link is not tested (value 1, p 0); the first test with p > pc_alpha marks P
// non-significant and ends P's subsets. Every test updates P's minimum |value| (val_min) and,
// where its p-value exceeds the largest so far, P's largest p-value and the value with it.
// After the level the non-significant parents go and the others are sorted by val_min,
// largest first (a stable sort: ties keep the order in which they were first tested). The
// tests of one level (all variables, all parents, one subset index at a time) are
// independent, so they go as one batch per subset index.
//
// MCI (tigramite's _run_mci_or_variants). The links (default: tau_min..tau_max, lag 0
// included when tau_min = 0, as 'o?o') whose type is not '<--'/'<?-': X = (i, −τ) ⟂ (j, 0)
// given Z = j's first max_conds_py parents without X, then i's first max_conds_px parents
// shifted by τ that are not among them (duplicates and X, Y themselves removed, as
// construct_array does); a '-->' or 'o-o' link is not tested (value 1, p 0). All in one batch.
// With fdr_bh, the p-values of the lagged links the assumptions allow are replaced by
// Benjamini–Hochberg's q-values (tigramite's get_corrected_pvalues: contemporaneous links
// excluded). The graph: '-->' where p <= alpha_level at lag > 0; at lag 0 'o-o' where both
// directions are significant, '-->'/'<--' where one is. Then the lag-0 entries are
// symmetrised as tigramite's symmetrize_p_and_val_matrix (in its loop order).
//
// pc_alpha selection (Settings::pc_alpha_list; tigramite's pc_alpha list or None): PC1 runs
// for every value, as lanes of the same batches, and each variable keeps the lane whose
// parents score lowest by model_selection_criterion (tigramite's run_pc_stable); run_pcmciplus
// runs per value and keeps the result whose DAG scores lowest (pcmciplus.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ci/batch.hpp"
#include "pcmci/lagged.hpp"

namespace cudag::pcmci {

/// tigramite's link types: "o?o", "-?>", "-->", "o-o", "<--", "<?-".
bool is_link_type(const std::string& type);

/// Assumptions about links: links[j] holds j's candidate links (i, −lag) with their types, in
/// the order they were given (tigramite's dictionary order, which decides ties in PC1).
struct LinkAssumptions {
    std::vector<std::vector<std::pair<Node, std::string>>> links;
    /// The type of link (node → j), or nullptr when absent: a table lookup where index() has
    /// seen j's list as it is (same length, same node at the position), a scan of the list else.
    const std::string* find(std::int32_t j, Node node) const;
    /// Builds find's table for nodes of lags 0..max_lag (positions in each j's list).
    void index(std::int32_t max_lag);

private:
    std::int32_t lags_ = 0;                      ///< max_lag + 1 of the table; 0: none
    std::vector<std::size_t> indexed_size_;      ///< links[j].size() when the table was built
    std::vector<std::vector<std::int32_t>> at_;  ///< at_[j][var·lags_ + lag]: position in links[j], −1 none
};

/// tigramite's default assumptions: every (i, −lag), lag = tau_min..tau_max, i outer, lag inner,
/// but (j, 0); 'o?o' at lag 0, '-?>' else.
LinkAssumptions default_links(std::int32_t n_vars, std::int32_t tau_min, std::int32_t tau_max);

/// tigramite's _set_link_assumptions on given assumptions: with `remove_contemp`, lag-0 links
/// dropped; the reverse of every lag-0 link added where absent (an inconsistent pair is an
/// InputError); lagged links' types become '-' + middle mark + '>'. Throws InputError for a
/// variable or lag out of range (lags tau_min..tau_max), an unknown type or a contemporaneous
/// cycle of '-->' links.
LinkAssumptions normalise_links(LinkAssumptions given, std::int32_t n_vars, std::int32_t tau_min, std::int32_t tau_max,
                                bool remove_contemp);

/// PCMCI+'s rule for contemporaneous colliders (tigramite's contemp_collider_rule):
/// majority or conservative (both test every subset of the neighbours), or none (the
/// separating set of the skeleton).
enum class ColliderRule { Majority, Conservative, None };
/// "majority", "conservative" or "none"; anything else is an InputError naming
/// contemp_collider_rule and the rules (the front ends parse --contemp-collider-rule with it).
ColliderRule parse_collider_rule(const std::string& name);
std::string to_string(ColliderRule r);

struct Settings {
    std::int32_t tau_min = 0;
    std::int32_t tau_max = 1;
    double pc_alpha = 0.2;            ///< PC1's significance level
    /// Non-empty: tigramite's pc_alpha as a list (pc_alpha unused). run_pcmci runs PC1 for
    /// every value and keeps, per variable j, the one whose parents score lowest
    /// (model_selection_criterion; the first of equal scores); run_pcmciplus runs the whole
    /// method for every value and keeps the one whose DAG scores lowest on average.
    std::vector<double> pc_alpha_list;
    double alpha_level = 0.05;        ///< MCI's, for the graph
    std::int32_t max_conds_dim = -1;  ///< -1: tigramite's None
    std::int32_t max_combinations = 1;
    std::int32_t max_conds_py = -1;  ///< -1: None
    std::int32_t max_conds_px = -1;  ///< -1: None
    bool fdr_bh = false;             ///< fdr_method 'fdr_bh' (else 'none')
    std::optional<LinkAssumptions> link_assumptions;
    // run_pcmciplus only (pcmci/pcmciplus.hpp); tigramite's defaults.
    ColliderRule contemp_collider_rule = ColliderRule::Majority;
    bool conflict_resolution = true;                 ///< mark conflicting orientations 'x-x'
    bool reset_lagged_links = false;                 ///< skeleton on every lagged link, not only PC1's parents
    std::int32_t max_conds_px_lagged = -1;           ///< -1: None (max_conds_px when X is lagged)
    /// Host threads that lay out the batches (PCMCI+'s collider tests); no result depends on it.
    int threads = 1;
};

/// tigramite's pc_alpha=None: the values run_pc_stable (run_pcmci) selects among, 0.05, 0.1,
/// 0.2, 0.3, 0.4, 0.5, or with `pcmciplus` run_pcmciplus's, 0.001, 0.005, 0.01, 0.025, 0.05.
std::vector<double> default_pc_alpha_list(bool pcmciplus);

/// Throws InputError for settings tigramite refuses, and for tau_max >= T / 2 (no samples).
void check_settings(const Settings& s, std::int32_t n_vars, std::int64_t length);

struct Result {
    std::int32_t n_vars = 0;
    std::int32_t tau_max = 0;
    std::int64_t samples = 0;  ///< T − 2·tau_max: the rows of every test
    /// val_matrix[(i·N + j)·(tau_max + 1) + lag]: the MCI value of (i, −lag) → j (symmetrised at lag 0).
    std::vector<double> val_matrix, p_matrix;
    std::vector<std::string> graph;          ///< same layout: "-->", "<--", "o-o", "x-x" or ""
    std::vector<std::vector<Node>> parents;  ///< PC1's parents of each j, in tigramite's order
    std::int64_t pc1_tests = 0, mci_tests = 0;
    /// With Settings::pc_alpha_list (else empty): the values tried, in order; the chosen one
    /// (run_pcmci: one per variable j, tigramite's iterations[j]['optimal_pc_alpha'];
    /// run_pcmciplus: one, its results['optimal_alpha']); the scores (run_pcmci:
    /// [j·K + k], variable j's score with the k-th value; run_pcmciplus: [k], the mean over
    /// the variables).
    std::vector<double> pc_alpha_candidates, optimal_pc_alpha, pc_alpha_scores;
    std::size_t at(std::int32_t i, std::int32_t j, std::int32_t lag) const {
        return (static_cast<std::size_t>(i) * static_cast<std::size_t>(n_vars) + static_cast<std::size_t>(j)) *
                   static_cast<std::size_t>(tau_max + 1) +
               static_cast<std::size_t>(lag);
    }
};

/// Progress: (phase "condition selection"/"MCI" (PCMCI+: "MCI skeleton"/"collider tests"), tests
/// done, tests planned so far).
using ProgressFn = std::function<void(const char* phase, std::int64_t done, std::int64_t planned)>;

/// PC1's largest p-value of every tested link and the value of the test that gave it
/// (tigramite's pval_max and val_dict, as its run_pc_stable leaves them in self.p_matrix and
/// self.val_matrix): Result's layout, p 1 and value 0 where no test was run.
struct Pc1Matrices {
    std::vector<double> val_matrix, p_matrix;
};

/// tigramite's pc_alpha selection: the values tried and the choice (Result's fields).
struct Pc1Selection {
    std::vector<double> candidates, optimal, scores;
};

/// PC1's parents of every variable (tigramite's run_pc_stable). `tests` answers over `lagged`
/// (max_lag >= 2·tau_max). With `matrices`, also PC1's matrices. With s.pc_alpha_list, PC1
/// runs for every value (the values as lanes of the same batches, a test asked by several
/// lanes run once) and each variable keeps the parents (and matrices) of the value whose
/// parents score lowest by model_selection_criterion, the first of equal scores; `selection`
/// gets the values, the choices and the scores.
std::vector<std::vector<Node>> run_pc_stable(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests,
                                             std::int64_t* n_tests = nullptr, const ProgressFn& progress = {},
                                             Pc1Matrices* matrices = nullptr, Pc1Selection* selection = nullptr);

/// tigramite's ParCorr.get_model_selection_criterion(j, parents, tau_max) (criterion 'aic'):
/// (j, 0) regressed by least squares on the parents' columns (duplicates and (j, 0) left out)
/// over the lagged table's rows, T of them; with RSS the residual sum of squares of the
/// standardised (j, 0) (tigramite's _get_single_residuals), the score is T·log(RSS) + 2·p,
/// p = 1 + the parents' count. Computed on the CPU (ci/regression_core.hpp's centred, scaled,
/// pivoted Householder QR; RSS = T·RSS_raw / Σ(y − ȳ)²), the parents taken in (var, lag)
/// order so that the same set always gives the same bits; the value equals tigramite's to
/// rounding (its numpy lstsq is another factorisation).
double model_selection_criterion(const LaggedData& lagged, std::int32_t j, const std::vector<Node>& parents);

/// run_pcmci: run_pc_stable, then MCI with its parents.
Result run_pcmci(const LaggedData& lagged, const Settings& s, ci::BatchTest& tests, const ProgressFn& progress = {});

/// Benjamini–Hochberg q-values of `p` (numpy's arithmetic in tigramite's get_corrected_pvalues:
/// p sorted, divided by k / m, running minimum from the largest, capped at 1).
std::vector<double> fdr_bh(const std::vector<double>& p);

}  // namespace cudag::pcmci
