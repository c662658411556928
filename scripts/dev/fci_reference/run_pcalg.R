# SPDX-License-Identifier: Apache-2.0
# One pcalg FCI/RFCI run on one data set of tests/data/fci/datasets/ (called by run_all.py).
# Peers (never committed or built by the project): bash ../shared/peers/install_r_peers.sh
#   Rscript run_pcalg.R CSV gaussian|discrete ALGO ALPHA OUT_PREFIX [fixS]
# ALGO: fci (defaults), rfci (defaults), fci-conservative (conservative = TRUE),
#       fci-majrule (maj.rule = TRUE), fci-nopdsep (doPdsep = FALSE).
# Tests: gaussCItest on suffStat list(C = cor(x), n = nrow(x)); disCItest on
#   list(dm = x, nlev = max + 1 per column, adaptDF = FALSE). The data are read back from the
#   CSV itself, so pcalg runs on exactly the stored values.
# fixS (discrete only): pcalg 2.7-12's gSquareDis conditions on x instead of S when |S| >= 5
#   (its strata are built from copies of x's column), so disCItest answers p = 1 for every such
#   test. With fixS, a test with |S| >= 5 is handed to gSquareDis as a test given ONE column
#   that numbers S's configurations (0 .. prod(nlev[S]) - 1, nlev = prod(nlev[S])): the same
#   strata, G^2, degrees of freedom and n.min rule the |S| >= 5 branch means to compute.
#   Tests with |S| <= 4 are disCItest's own.
# Writes OUT_PREFIX.amat (names, then the amat.pag rows), OUT_PREFIX.sepsets and prints one
# manifest line (dataset, algo, options, alpha, test, seconds of the fci()/rfci() call, then
# pcalg's max.ord, max.ordPDSEP, sum(n.edgetests), sum(n.edgetestsPDSEP) of the result, and
# counted by a wrapper around the test: every call, the largest |S|, the calls with |S| >= 5).
suppressPackageStartupMessages(library(pcalg))
a <- commandArgs(trailingOnly = TRUE)
csv <- a[1]; kind <- a[2]; algo <- a[3]; alpha <- as.numeric(a[4]); prefix <- a[5]
x <- as.matrix(read.csv(csv, check.names = FALSE))
labels <- colnames(x)
if (kind == "gaussian") {
  suff <- list(C = cor(x), n = nrow(x)); test <- gaussCItest; test.name <- "gaussCItest"
} else {
  storage.mode(x) <- "integer"
  suff <- list(dm = x, nlev = apply(x, 2, max) + 1L, adaptDF = FALSE)
  test <- disCItest; test.name <- "disCItest(adaptDF=FALSE)"
  if (length(a) >= 6 && a[6] == "fixS") {
    test <- function(x, y, S, suffStat) {
      if (length(S) < 5) return(disCItest(x, y, S, suffStat))
      dm <- suffStat$dm; nlev <- suffStat$nlev
      z <- rep(0, nrow(dm))
      for (s in S) z <- z * nlev[s] + dm[, s]     # configuration number of S, 0-based
      gSquareDis(x, y, ncol(dm) + 1L, cbind(dm, z), c(nlev, prod(nlev[S])), adaptDF = FALSE)
    }
    test.name <- "disCItest(adaptDF=FALSE)+fixS"
  }
}
opts <- switch(algo,
  "fci" = list(),
  "rfci" = list(),
  "fci-conservative" = list(conservative = TRUE),
  "fci-majrule" = list(maj.rule = TRUE),
  "fci-nopdsep" = list(doPdsep = FALSE),
  stop("unknown algo ", algo))
fun <- if (algo == "rfci") rfci else fci
## count every test call and the largest conditioning set (pcalg 2.7-12's gSquareDis builds its
## strata from x instead of S when |S| >= 5, so disCItest answers p = 1 there: see the README)
n.calls <- 0L; max.set <- 0L; n.ge5 <- 0L
counted <- function(x, y, S, suffStat) {
  n.calls <<- n.calls + 1L
  max.set <<- max(max.set, length(S))
  if (length(S) >= 5) n.ge5 <<- n.ge5 + 1L
  test(x, y, S, suffStat)
}
t <- system.time(
  res <- do.call(fun, c(list(suffStat = suff, indepTest = counted, alpha = alpha, labels = labels), opts))
)[["elapsed"]]

amat <- res@amat
stopifnot(identical(colnames(amat), labels))
writeLines(c(paste(labels, collapse = " "),
             apply(amat, 1, function(r) paste(as.integer(r), collapse = " "))),
           paste0(prefix, ".amat"))

## sepsets, 0-based: "i j: S" for i < j when sepset[[i]][[j]] and sepset[[j]][[i]] are equal or
## only one is non-NULL; both "i j: S_ij" and "j i: S_ji" when both are non-NULL and differ.
ss <- res@sepset
p <- length(labels)
get <- function(i, j) if (length(ss) >= i && length(ss[[i]]) >= j) ss[[i]][[j]] else NULL
fmt <- function(i, j, s) paste0(i - 1, " ", j - 1, ":",
                                if (length(s)) paste0(" ", paste(sort(as.integer(s)) - 1L, collapse = " ")) else "")
lines <- character(0)
for (i in seq_len(p - 1)) for (j in (i + 1):p) {
  sij <- get(i, j); sji <- get(j, i)
  if (is.null(sij) && is.null(sji)) next
  if (is.null(sij) || is.null(sji) || setequal(sij, sji)) {
    lines <- c(lines, fmt(i, j, if (is.null(sij)) sji else sij))
  } else {
    lines <- c(lines, fmt(i, j, sij), fmt(j, i, sji))
  }
}
writeLines(lines, paste0(prefix, ".sepsets"))
opt.txt <- if (length(opts)) paste(names(opts), "=", unlist(opts), collapse = ",", sep = "") else "defaults"
ord.pd <- if (.hasSlot(res, "max.ordPDSEP")) res@max.ordPDSEP else 0L
n.pd <- if (.hasSlot(res, "n.edgetestsPDSEP")) sum(res@n.edgetestsPDSEP) else 0
cat(sprintf("%s\t%s\t%s\t%s\t%s\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", sub("\\.csv$", "", basename(csv)),
            algo, opt.txt, format(alpha), test.name, t, as.integer(res@max.ord), as.integer(ord.pd),
            as.integer(sum(res@n.edgetests)), as.integer(n.pd), n.calls, max.set, n.ge5))
