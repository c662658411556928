# SPDX-License-Identifier: Apache-2.0
# cudag::pc.stable against bnlearn::pc.stable (bnlearn 4.9) side by side in one R session on mixed
# data (factors and numeric columns, bnlearn's conditional linear Gaussian networks; the mi-cg test,
# the default of both on such data): the seconds of each (the median of REPS calls, each timed
# whole) and whether the networks have the same arcs; the machine's load average per line
# (/proc/loadavg's 1-minute figure, read after the calls).
#   R_LIBS=build-r/Rlib Rscript scripts/bench/r_bnlearn_mixed_pc.R [p ...]   (default 8 20 40)
# Data: bnlearn's clgaussian.test (8 columns, 5,000 rows) for p = 8, else a random network over p
# columns, every third a factor of 2-4 levels (each factor a multinomial logit of up to two earlier
# factors, each numeric column a linear function of up to three earlier columns within the
# configuration of its factor parents). Environment: N (rows of the generated sets, default 2000),
# THREADS (cudag's, default 0: every core), ALPHA (default 0.01), REPS (default 3).
suppressPackageStartupMessages({ library(bnlearn); library(cudag) })
ps <- as.integer(commandArgs(trailingOnly = TRUE))
if (!length(ps)) ps <- c(8L, 20L, 40L)
n <- as.integer(Sys.getenv("N", "2000"))
threads <- as.integer(Sys.getenv("THREADS", "0"))
alpha <- as.numeric(Sys.getenv("ALPHA", "0.01"))
reps <- max(1L, as.integer(Sys.getenv("REPS", "3")))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "r_bench_common.R"))
mixed_network_data <- function(p, n) {
  d <- data.frame(row.names = seq_len(n))
  for (j in seq_len(p)) {
    earlier <- seq_len(j - 1)
    factors <- earlier[vapply(d[earlier], is.factor, TRUE)]
    numbers <- setdiff(earlier, factors)
    fpa <- if (length(factors)) factors[sample.int(length(factors), min(2, length(factors)))] else integer(0)
    if (j %% 3 == 0) {
      lv <- sample(2:4, 1)
      eta <- matrix(stats::rnorm(n * lv, sd = 0.3), n, lv)
      for (f in fpa) eta <- eta + matrix(stats::rnorm(nlevels(d[[f]]) * lv), nlevels(d[[f]]), lv)[as.integer(d[[f]]), ]
      d[[paste0("V", j)]] <- factor(letters[max.col(eta)], levels = letters[seq_len(lv)])
    } else {
      npa <- if (length(numbers)) numbers[sample.int(length(numbers), min(3, length(numbers)))] else integer(0)
      x <- stats::rnorm(n)
      for (f in fpa) x <- x + stats::rnorm(nlevels(d[[f]]))[as.integer(d[[f]])]
      for (v in npa) x <- x + sample(c(-1, 1), 1) * stats::runif(1, 0.3, 1) * d[[v]]
      d[[paste0("V", j)]] <- x
    }
  }
  droplevels(d)
}
cat(sprintf("%4s %6s %12s %12s %8s %6s %s\n", "p", "n", "bnlearn s", "cudag s", "speed-up", "load", "same arcs"))
for (p in ps) {
  set.seed(p)
  x <- if (p == 8) { env <- new.env(); data(clgaussian.test, package = "bnlearn", envir = env); env$clgaussian.test } else
    mixed_network_data(p, n)
  t_bn <- timed(a <- suppressWarnings(bnlearn::pc.stable(x, alpha = alpha)))
  t_cu <- timed(b <- cudag::pc.stable(x, alpha = alpha, threads = threads))
  same <- identical(sort(paste(a$arcs[, 1], a$arcs[, 2])), sort(paste(b$arcs[, 1], b$arcs[, 2])))
  cat(sprintf("%4d %6d %12.3f %12.3f %8.1f %6.2f %s\n", p, nrow(x), t_bn, t_cu, t_bn / t_cu, load_avg(), same))
}
