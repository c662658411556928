// SPDX-License-Identifier: Apache-2.0
#include "cli/bn_inputs.hpp"

namespace cudag::cli {

void add_score_options(CLI::App& cmd, run::ScoreJob& o, ScoreOptionRefs& refs) {
    cmd.add_option("--score", refs.score,
                   "bdeu or k2 (discrete data, as bnlearn), bge (continuous, as BiDAG) or cg-bic (mixed "
                   "discrete-continuous data: the conditional-Gaussian BIC of Andrews et al. 2018; label columns "
                   "discrete, numeric ones continuous)")
        ->required();
    // The ranges keep every local score finite (bn/score.hpp, bn/bge.hpp).
    refs.iss = cmd.add_option("--iss", o.iss, "BDeu imaginary sample size, in [1e-6, 1e6]")->capture_default_str();
    refs.am = cmd.add_option("--am", o.am, "BGe prior precision scale, in [1e-6, 1e6]")->capture_default_str();
    refs.aw = cmd.add_option("--aw", o.aw,
                             "BGe prior degrees of freedom, in (n + 1, n + 1 + 1e6] for n variables "
                             "(default n + am + 1)");
    cmd.add_flag("--discrete", o.discrete,
                 "the data are discrete: every cell a level label (integer codes or strings), as pc "
                 "--discrete; implied by --score bdeu and k2, refused with bge");
    cmd.add_option("--discrete-columns", o.discrete_columns,
                   "cg-bic: read these columns (comma separated names) as discrete: each distinct value a level")
        ->delimiter(',')
        ->type_name("COL[,COL...]");
    cmd.add_option("--continuous-columns", o.continuous_columns,
                   "cg-bic: read these columns (comma separated names) as continuous numbers")
        ->delimiter(',')
        ->type_name("COL[,COL...]");
    cmd.add_option("--missing", refs.missing,
                   "missing cells (empty, NA, NaN, --na-values): error (refuse them) or listwise (drop every "
                   "incomplete row first); a score sums over one table's rows, so testwise is refused")
        ->capture_default_str();
}

}  // namespace cudag::cli
