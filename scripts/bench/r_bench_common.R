# SPDX-License-Identifier: Apache-2.0
# What the R side-by-side benchmarks share (sourced by r_pc_vs_pcalg.R, r_bnlearn_mixed_pc.R and
# r_bnlearn_missing_pc.R): the machine's load and the median time of `reps` evaluations.
load_avg <- function() if (file.exists("/proc/loadavg")) scan("/proc/loadavg", n = 1, quiet = TRUE) else NA
# The median seconds of `reps` evaluations of `expr` (in the caller's frame, so that its
# assignments stay there).
timed <- function(expr) {
  e <- substitute(expr)
  f <- parent.frame()
  median(vapply(seq_len(reps), function(i) system.time(eval(e, f))[["elapsed"]], numeric(1)))
}
