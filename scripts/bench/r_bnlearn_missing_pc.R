# SPDX-License-Identifier: Apache-2.0
# cudag::pc.stable against bnlearn::pc.stable (bnlearn 4.9) side by side in one R session on data
# with NA (each test on its locally complete rows, both): the seconds of each (the median of REPS
# calls, each timed whole), the tests each counts, and whether the networks have the same skeleton
# and arcs; the machine's load average per line.
#   R_LIBS=build-r/Rlib Rscript scripts/bench/r_bnlearn_missing_pc.R [p ...]   (default 30 60)
# Data: a random DAG over p nodes (about 3 parents a node at most, linear Gaussian, unit noise),
# discrete data its terciles, each cell NA with probability FRAC. Tests: mi on the discrete data,
# zf on the Gaussian data. bnlearn 4.9's Gaussian test of incomplete data never stops at a
# separating set (README, "pc.stable"): against a stock bnlearn its zf rows time a different
# search (a build with that line mended, if first in R_LIBS, times the same one). Environment: N
# (rows, default 2000), FRAC (default 0.05), THREADS (cudag's, default 0: every core), ALPHA
# (default 0.05), REPS (default 3).
suppressPackageStartupMessages({ library(bnlearn); library(cudag) })
ps <- as.integer(commandArgs(trailingOnly = TRUE))
if (!length(ps)) ps <- c(30L, 60L)
n <- as.integer(Sys.getenv("N", "2000"))
frac <- as.numeric(Sys.getenv("FRAC", "0.05"))
threads <- as.integer(Sys.getenv("THREADS", "0"))
alpha <- as.numeric(Sys.getenv("ALPHA", "0.05"))
reps <- max(1L, as.integer(Sys.getenv("REPS", "3")))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "r_bench_common.R"))
gaussian_network_data <- function(p, n) {
  x <- matrix(0, n, p, dimnames = list(NULL, paste0("V", seq_len(p))))
  for (j in seq_len(p)) {
    x[, j] <- stats::rnorm(n)
    pa <- which(stats::runif(j - 1) < 3 / p)
    for (v in utils::head(pa, 3)) x[, j] <- x[, j] + sample(c(-1, 1), 1) * stats::runif(1, 0.5, 1.5) * x[, v]
  }
  as.data.frame(x)
}
arcs_of <- function(g) sort(paste(g$arcs[, 1], g$arcs[, 2]))
cat(sprintf("%4s %6s %5s %5s %10s %10s %8s %8s %8s %6s %s\n", "p", "n", "NA", "test", "bnlearn s", "cudag s",
            "speed-up", "bn tests", "cu tests", "load", "same arcs"))
for (p in ps) for (kind in c("discrete", "gaussian")) {
  set.seed(p)
  x <- gaussian_network_data(p, n)
  if (kind == "discrete")
    x <- as.data.frame(lapply(x, function(v) cut(v, stats::quantile(v, c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE,
                                                 labels = c("a", "b", "c"))))
  for (j in seq_along(x)) x[[j]][stats::runif(n) < frac] <- NA
  test <- if (kind == "discrete") "mi" else "zf"
  t_bn <- timed(a <- suppressWarnings(bnlearn::pc.stable(x, test = test, alpha = alpha)))
  t_cu <- timed(b <- cudag::pc.stable(x, test = test, alpha = alpha, threads = threads))
  cat(sprintf("%4d %6d %5.2f %5s %10.3f %10.3f %8.1f %8d %8d %6.2f %s\n", p, n, frac, test, t_bn, t_cu, t_bn / t_cu,
              as.integer(bnlearn::ntests(a)), as.integer(b$learning$ntests), load_avg(), identical(arcs_of(a), arcs_of(b))))
}
