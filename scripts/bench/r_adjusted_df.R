# SPDX-License-Identifier: Apache-2.0
# The tests with adjusted degrees of freedom and the shrinkage tests, side by side in one R
# session: cudag::pc.stable against bnlearn::pc.stable (bnlearn 4.9) with test = "mi-adf",
# "x2-adf" and "mi-sh" (discrete data) and "mi-g-sh" (the same data before the cut), and
# cudag::pc against pcalg::pc (skel.method "stable") with disCItest and adaptDF = TRUE: the
# seconds of each (the median of REPS calls, each timed whole) and whether the networks agree
# (bnlearn: the arcs; pcalg: the CPDAG, the separating sets and pMax); the load average per line.
#   R_LIBS=build-r/Rlib Rscript scripts/bench/r_adjusted_df.R [p ...]   (default 20 40)
# Data: a random DAG over p nodes (at most 3 parents a node, linear Gaussian, unit noise), each
# column cut at its terciles (3 levels). Environment: N (rows, default 5000), THREADS (cudag's,
# default 0: every core), ALPHA (default 0.05), REPS (default 3).
suppressPackageStartupMessages({ library(bnlearn); library(pcalg); library(cudag) })
ps <- as.integer(commandArgs(trailingOnly = TRUE))
if (!length(ps)) ps <- c(20L, 40L)
n <- as.integer(Sys.getenv("N", "5000"))
threads <- as.integer(Sys.getenv("THREADS", "0"))
alpha <- as.numeric(Sys.getenv("ALPHA", "0.05"))
reps <- max(1L, as.integer(Sys.getenv("REPS", "3")))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "r_bench_common.R"))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "..", "..",
                 "r", "tests", "testthat", "helper-pcalg.R"))
gaussian <- function(p, n) {
  x <- matrix(0, n, p)
  for (j in seq_len(p)) {
    x[, j] <- stats::rnorm(n)
    pa <- which(stats::runif(j - 1) < 3 / p)
    for (v in utils::head(pa, 3)) x[, j] <- x[, j] + sample(c(-1, 1), 1) * stats::runif(1, 0.5, 1.5) * x[, v]
  }
  x
}
terciles <- function(x) {
  p <- ncol(x)
  d <- as.data.frame(lapply(seq_len(p), function(j)
    cut(x[, j], stats::quantile(x[, j], c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE, labels = c("a", "b", "c"))))
  names(d) <- paste0("V", seq_len(p))
  d
}
cat(sprintf("%4s %6s %-22s %10s %10s %8s %6s %s\n", "p", "n", "call", "peer s", "cudag s", "ratio", "load", "same"))
for (p in ps) {
  set.seed(p)
  x <- gaussian(p, n)
  d <- terciles(x)
  g <- as.data.frame(x)
  names(g) <- names(d)
  for (test in c("mi-adf", "x2-adf", "mi-sh", "mi-g-sh")) {
    data <- if (test == "mi-g-sh") g else d
    t_peer <- timed(a <- bnlearn::pc.stable(data, test = test, alpha = alpha))
    t_ours <- timed(b <- cudag::pc.stable(data, test = test, alpha = alpha, threads = threads))
    same <- identical(bnlearn::arcs(a), bnlearn::arcs(b))
    cat(sprintf("%4d %6d %-22s %10.3f %10.3f %8.1f %6.2f %s\n", p, n, paste("pc.stable", test), t_peer, t_ours,
                t_peer / t_ours, load_avg(), same))
  }
  dm <- data.matrix(d) - 1L
  ss <- list(dm = dm, nlev = rep(3L, p), adaptDF = TRUE)
  t_peer <- timed(a <- suppressWarnings(pcalg::pc(ss, pcalg::disCItest, alpha = alpha, p = p)))
  t_ours <- timed(b <- suppressWarnings(cudag::pc(ss, pcalg::disCItest, alpha = alpha, p = p, threads = threads)))
  same <- identical(as(a@graph, "matrix") != 0, as(b@graph, "matrix") != 0) &&
    identical(sym_sepsets(a@sepset), sym_sepsets(b@sepset)) && isTRUE(all.equal(a@pMax, b@pMax, tolerance = 1e-9))
  cat(sprintf("%4d %6d %-22s %10.3f %10.3f %8.1f %6.2f %s\n", p, n, "pc disCItest adaptDF", t_peer, t_ours,
              t_peer / t_ours, load_avg(), same))
}
