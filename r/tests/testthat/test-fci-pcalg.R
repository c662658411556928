# cudag::fci and cudag::rfci against pcalg 2.7-12's fci / rfci (skel.method "stable") on
# pcalg's gmL and on generated sets with hidden variables; cudag reads the data, pcalg cor(X).

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

test_that("fci refuses list(C, n), biCC and partial rules in one message each", {
  skip_without_pcalg()
  x <- pcalg_example("gmL")$gmL$x
  expect_error(cudag::fci(list(C = cor(x), n = nrow(x)), "gaussCItest", alpha = 0.01, p = 4), "takes the data")
  expect_error(cudag::fci(list(data = x), "gaussCItest", alpha = 0.01, p = 4, biCC = TRUE), "biCC")
  expect_error(cudag::fci(list(data = x), "gaussCItest", alpha = 0.01, p = 4, rules = c(FALSE, rep(TRUE, 9))),
               "rules")
})
