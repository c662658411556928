# SPDX-License-Identifier: Apache-2.0
# cudag::pc against pcalg::pc (skel.method "stable.fast", pcalg's fastest) side by side in
# one R session on generated Gaussian data (pcalg::randomDAG + rmvDAG, expected degree 3):
# the seconds of each (the median of REPS calls, each timed whole: input checks, the search and
# pcalg's objects) and whether the CPDAG and pMax agree; the machine's load average per line
# (/proc/loadavg's 1-minute figure, read after the calls: other processes share the cores).
#   R_LIBS=build-r/Rlib Rscript scripts/bench/r_pc_vs_pcalg.R [p ...]   (default 100 500 1000)
# Environment: N (samples, default 1000), THREADS (cudag's, default 0: every core),
# BACKEND (auto, cpu, cuda; default cpu: cudag takes pcalg's C, else the data), ALPHA (default 0.01),
# REPS (calls timed per side and size, default 3).
suppressPackageStartupMessages({ library(pcalg); library(cudag) })
ps <- as.integer(commandArgs(trailingOnly = TRUE))
if (!length(ps)) ps <- c(100L, 500L, 1000L)
n <- as.integer(Sys.getenv("N", "1000"))
threads <- as.integer(Sys.getenv("THREADS", "0"))
backend <- Sys.getenv("BACKEND", "cpu")
alpha <- as.numeric(Sys.getenv("ALPHA", "0.01"))
reps <- max(1L, as.integer(Sys.getenv("REPS", "3")))
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "r_bench_common.R"))
cat(sprintf("%6s %6s %12s %12s %8s %6s %s\n", "p", "n", "pcalg s", "cudag s", "speed-up", "load", "same CPDAG/pMax"))
for (p in ps) {
  set.seed(p)
  x <- rmvDAG(n, randomDAG(p, prob = 3 / (p - 1)))
  ss <- list(C = cor(x), n = n)
  t_pcalg <- timed(a <- pcalg::pc(ss, pcalg::gaussCItest, alpha = alpha, p = p, skel.method = "stable.fast"))
  mine <- if (backend == "cpu") ss else list(data = x)  # a given C runs on the CPU only
  t_cudag <- timed(b <- cudag::pc(mine, pcalg::gaussCItest, alpha = alpha, p = p, threads = threads,
                                  backend = backend))
  # stable.fast fills pMax's upper triangle only (-1 elsewhere); "stable" and cudag fill both.
  up <- upper.tri(a@pMax)
  same <- identical(as(a@graph, "matrix") != 0, as(b@graph, "matrix") != 0) &&
    isTRUE(all.equal(a@pMax[up], b@pMax[up], tolerance = 1e-9))
  cat(sprintf("%6d %6d %12.3f %12.3f %8.1f %6.2f %s\n", p, n, t_pcalg, t_cudag, t_pcalg / t_cudag, load_avg(),
              same))
}
