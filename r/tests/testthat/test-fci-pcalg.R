# cudag::fci and cudag::rfci against pcalg 2.7-12's fci / rfci (skel.method "stable") on
# pcalg's gmL, gmG8 and on generated sets with hidden variables: cudag on the data (pcalg on
# cor(X)) and both on the same suffStat list(C, n) (C used as given).

# Asserts that two fciAlgo objects agree: the PAG (amat.pag), symmetrised separating sets,
# pMax. pcalg's pdsep raises pMax[x, y] on the side x it tested from only (its matrix is then
# not symmetric); cudag's holds the larger of the two: pmax(pMax, t(pMax)).
expect_same_fci <- function(ours, theirs, tol = 1e-9) {
  expect_s4_class(ours, "fciAlgo")
  expect_equal(unname(ours@amat), unname(theirs@amat))
  expect_equal(dimnames(ours@amat), dimnames(theirs@amat))
  expect_equal(sym_sepsets(ours@sepset), sym_sepsets(theirs@sepset))
  expect_equal(ours@pMax, pmax(theirs@pMax, t(theirs@pMax)), tolerance = tol)
}

expect_fci_as_pcalg <- function(fun, x, ...) {
  ours <- getExportedValue("cudag", fun)(list(data = x), pcalg::gaussCItest, ...)
  theirs <- getExportedValue("pcalg", fun)(list(C = cor(x), n = nrow(x)), pcalg::gaussCItest, ...)
  expect_same_fci(ours, theirs)
}

# Both on pcalg's suffStat list(C, n) (`ss`).
expect_fci_on_c_as_pcalg <- function(fun, ss, ...) {
  ours <- getExportedValue("cudag", fun)(ss, pcalg::gaussCItest, ...)
  theirs <- getExportedValue("pcalg", fun)(ss, pcalg::gaussCItest, ...)
  expect_same_fci(ours, theirs)
  invisible(theirs)
}

test_that("gmL: fci and rfci, with conservative and maj.rule", {
  skip_without_pcalg()
  x <- pcalg_example("gmL")$gmL$x
  v <- as.character(2:5)
  for (fun in c("fci", "rfci")) {
    expect_fci_as_pcalg(fun, x, alpha = 0.01, labels = v)
    expect_fci_as_pcalg(fun, x, alpha = 0.01, labels = v, conservative = TRUE)
    expect_fci_as_pcalg(fun, x, alpha = 0.01, labels = v, maj.rule = TRUE)
  }
})

test_that("10 generated sets with two hidden variables: fci and rfci", {
  skip_without_pcalg()
  for (k in 1:10) {
    set.seed(900 + k)
    p <- 10 + k %% 5
    x <- pcalg::rmvDAG(300 + 50 * k, pcalg::randomDAG(p, prob = 0.3))
    x <- x[, -sample(p, 2)]
    alpha <- c(0.01, 0.05)[1 + k %% 2]
    expect_fci_as_pcalg("fci", x, alpha = alpha, p = ncol(x))
    expect_fci_as_pcalg("rfci", x, alpha = alpha, p = ncol(x))
  }
})

test_that("list(C, n): gmL, gmG8 and 6 generated sets with hidden variables, fci and rfci", {
  skip_without_pcalg()
  x <- pcalg_example("gmL")$gmL$x
  gml <- list(C = cor(x), n = nrow(x))
  for (fun in c("fci", "rfci")) {
    expect_fci_on_c_as_pcalg(fun, gml, alpha = 0.01, labels = as.character(2:5))
    expect_fci_on_c_as_pcalg(fun, gml, alpha = 0.01, labels = as.character(2:5), conservative = TRUE)
    expect_fci_on_c_as_pcalg(fun, gml, alpha = 0.01, labels = as.character(2:5), maj.rule = TRUE)
  }
  g8 <- gmg8_case()
  for (fun in c("fci", "rfci")) {
    expect_fci_on_c_as_pcalg(fun, g8$ss, alpha = 0.01, labels = colnames(g8$x))
    expect_fci_on_c_as_pcalg(fun, g8$ss, alpha = 0.05, labels = colnames(g8$x), m.max = 1)
  }
  raised <- 0
  for (k in 1:6) {
    set.seed(700 + k)
    p <- 10 + k %% 4
    x <- pcalg::rmvDAG(200 + 60 * k, pcalg::randomDAG(p, prob = 0.3))
    x <- x[, -sample(p, 2)]
    ss <- list(C = cor(x), n = nrow(x))
    alpha <- c(0.01, 0.05)[1 + k %% 2]
    theirs <- expect_fci_on_c_as_pcalg("fci", ss, alpha = alpha, p = ncol(x))
    raised <- raised + sum(theirs@pMax != t(theirs@pMax))
    expect_fci_on_c_as_pcalg("rfci", ss, alpha = alpha, p = ncol(x))
  }
  expect_gt(raised, 0)  # Possible-D-SEP raised some pMax entry (one end's, in pcalg)
})

test_that("list(C, n): fci's type, pdsep.max, doPdsep, selectionBias, fixedGaps / fixedEdges as pcalg's", {
  skip_without_pcalg()
  set.seed(5)
  x <- pcalg::rmvDAG(400, pcalg::randomDAG(14, prob = 0.3))[, -c(2, 9)]
  ss <- list(C = cor(x), n = nrow(x))
  run <- function(...) expect_fci_on_c_as_pcalg("fci", ss, alpha = 0.05, p = ncol(x), ...)
  run(type = "anytime", m.max = 1)
  run(type = "adaptive")
  run(pdsep.max = 2)
  run(doPdsep = FALSE)
  run(selectionBias = FALSE)
  pair <- matrix(FALSE, 12, 12)
  pair[1, 2] <- pair[2, 1] <- TRUE
  run(fixedGaps = pair)
  run(fixedEdges = pair)
  expect_fci_on_c_as_pcalg("rfci", ss, alpha = 0.05, p = ncol(x), fixedEdges = pair)
  expect_error(cudag::fci(ss, "gaussCItest", alpha = 0.05, p = 12, type = "anytime"), "needs a finite m.max")
  expect_error(cudag::fci(ss, "gaussCItest", alpha = 0.05, p = 12, type = "adaptive", m.max = 2), "takes no m.max")
})

test_that("list(C, n): pcalg's population PAG (Zhang 2006, Fig. 5.2; true C, n = 1e9)", {
  skip_without_pcalg()
  # A -> D, B -> D, B -> E, C -> D, D -> E, F -> C, F -> D; F hidden.
  amat <- matrix(0, 6, 6, dimnames = list(LETTERS[1:6], LETTERS[1:6]))
  amat[cbind(c(1, 2, 2, 3, 4, 6, 6), c(4, 4, 5, 4, 5, 3, 4))] <- 1
  g <- as(amat, "graphNEL")
  ss <- list(C = cov2cor(pcalg::trueCov(g)[-6, -6]), n = 10^9)
  for (fun in c("fci", "rfci")) expect_fci_on_c_as_pcalg(fun, ss, alpha = 0.99, p = 5)
})

test_that("fci refuses biCC and partial rules in one message each", {
  skip_without_pcalg()
  x <- pcalg_example("gmL")$gmL$x
  expect_error(cudag::fci(list(data = x), "gaussCItest", alpha = 0.01, p = 4, biCC = TRUE), "biCC")
  expect_error(cudag::fci(list(data = x), "gaussCItest", alpha = 0.01, p = 4, rules = c(FALSE, rep(TRUE, 9))),
               "rules")
})

test_that("adaptive: Possible-D-SEP capped at pcalg's max.ord (which counts a last level without tests)", {
  skip_without_pcalg()
  extra <- 0
  for (seed in c(86, 1:24)) {
    set.seed(seed)
    p <- sample(6:10, 1)
    g <- pcalg::randomDAG(p, prob = 0.5)
    n <- sample(c(50, 200, 1000), 1)
    x <- matrix(stats::rnorm(n * p), n, p) %*% t(solve(diag(p) - pcalg::wgtMatrix(g)))
    a <- as(g, "matrix") != 0
    cand <- which(rowSums(a) >= 2)
    if (!length(cand)) next
    x <- x[, -cand[sample.int(length(cand), 1)]]  # a hidden common cause
    ss <- list(C = cor(x), n = nrow(x))
    alpha <- sample(c(0.01, 0.05, 0.2), 1)
    theirs <- expect_fci_on_c_as_pcalg("fci", ss, alpha = alpha, p = ncol(x), type = "adaptive")
    skel <- pcalg::skeleton(ss, pcalg::gaussCItest, alpha = alpha, p = ncol(x))
    extra <- extra + (tail(skel@n.edgetests, 1) == 0)
    # fixed edges are never visited by pcalg's level loop
    fe <- matrix(FALSE, ncol(x), ncol(x))
    fe[1, 2] <- fe[2, 1] <- fe[2, 3] <- fe[3, 2] <- TRUE
    expect_fci_on_c_as_pcalg("fci", ss, alpha = alpha, p = ncol(x), type = "adaptive", fixedEdges = fe)
  }
  expect_gt(extra, 0)  # some sets end on a level pcalg enters without a test (seed 86 does)
})
