# SPDX-License-Identifier: Apache-2.0
# pcalg 2.7-12 rfci() on the d-separation oracle (dsepTest) of random DAGs with latent nodes:
# the cases of pcalg_rfci_oracle.txt (format: README.md). Needs R with pcalg, graph, RBGL.
#   Rscript make_pcalg_rfci_oracle.R NCASES SEED OUT PMIN PMAX [fixed]
suppressMessages({library(pcalg); library(graph); library(RBGL)})
args <- commandArgs(TRUE)
ncase <- as.integer(args[1]); seed <- as.integer(args[2]); out <- args[3]
pmin <- as.integer(args[4]); pmax <- as.integer(args[5])
mmaxes <- c(Inf, 2, 1)
with.fixed <- length(args) >= 6 && args[6] == "fixed"
if (with.fixed) mmaxes <- "fixed"
set.seed(seed)
con <- file(out, "w")
fmt <- function(v) paste(v, collapse = " ")
for (k in seq_len(ncase)) {
  p <- sample(pmin:pmax, 1)
  prob <- runif(1, 0.15, 0.5)
  dag <- randomDAG(p, prob = prob)
  M <- as(dag, "matrix") != 0
  nch <- rowSums(M)
  cand <- which(nch >= 2)
  nl <- min(length(cand), sample(0:3, 1))
  L <- if (nl > 0) sort(if (length(cand) == 1) cand else sample(cand, nl)) else integer(0)
  obs <- setdiff(seq_len(p), L)
  q <- length(obs)
  suffStat <- list(g = dag, jp = RBGL::johnson.all.pairs.sp(dag))
  memo <- new.env(hash = TRUE)
  test <- function(x, y, S, suffStat) {
    key <- paste(min(x, y), max(x, y), paste(sort(S), collapse = ","))
    r <- memo[[key]]
    if (is.null(r)) { r <- dsepTest(obs[x], obs[y], obs[S], suffStat); assign(key, r, envir = memo) }
    r
  }
  lab <- as.character(obs)
  ed <- which(M, arr.ind = TRUE)
  writeLines(sprintf("case %d", k), con)
  writeLines(sprintf("nodes %d", p), con)
  writeLines(sprintf("latent %s", fmt(L)), con)
  writeLines(sprintf("edges %s", fmt(as.vector(t(ed)))), con)
  for (mm in mmaxes) {
    FE <- NULL
    if (identical(mm, "fixed")) {
      sk0 <- suppressWarnings(skeleton(suffStat, test, alpha = 0.5, labels = lab))
      A0 <- as(sk0@graph, "matrix")
      gaps <- which(A0 == 0 & upper.tri(A0), arr.ind = TRUE)
      if (nrow(gaps) == 0) next
      pick <- gaps[sample(nrow(gaps), min(nrow(gaps), sample(1:3, 1))), , drop = FALSE]
      FE <- matrix(FALSE, q, q)
      for (r in seq_len(nrow(pick))) FE[pick[r, 1], pick[r, 2]] <- FE[pick[r, 2], pick[r, 1]] <- TRUE
      mm.val <- Inf
    } else mm.val <- mm
    sk <- suppressWarnings(skeleton(suffStat, test, alpha = 0.5, labels = lab, m.max = mm.val, fixedEdges = FE))
    writeLines(sprintf("mmax %s", if (!is.null(FE)) "fixed" else if (is.finite(mm)) mm else "Inf"), con)
    if (!is.null(FE)) writeLines(sprintf("fixed %s", fmt(as.vector(t(which(FE & upper.tri(FE), arr.ind = TRUE))))), con)
    A <- as(sk@graph, "matrix")
    se <- which(A != 0 & upper.tri(A), arr.ind = TRUE)
    writeLines(sprintf("skel %s", fmt(as.vector(t(se)))), con)
    for (i in seq_len(q)) for (j in seq_len(q)) {
      s <- sk@sepset[[i]][[j]]
      if (!is.null(s)) writeLines(sprintf("sep %d %d : %s", i, j, fmt(s)), con)
    }
    for (v in c("normal", "conservative", "majority")) {
      r <- suppressWarnings(rfci(suffStat, test, alpha = 0.5, labels = lab, m.max = mm.val, fixedEdges = FE,
                                 conservative = (v == "conservative"), maj.rule = (v == "majority")))
      writeLines(sprintf("variant %s", v), con)
      am <- r@amat
      for (i in seq_len(q)) writeLines(sprintf("row %s", paste(am[i, ], collapse = "")), con)
      for (i in seq_len(q)) for (j in seq_len(q)) {
        s <- r@sepset[[i]][[j]]
        if (!is.null(s) && length(s) > 0) writeLines(sprintf("rsep %d %d : %s", i, j, fmt(s)), con)
      }
    }
  }
  writeLines("end", con)
}
close(con)
