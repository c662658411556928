# Comparison of a cudag::pc / cudag::skeleton result with pcalg's on the same input.

# The separating sets as pcalg's functions read them (either end's entry), per pair i < j:
# "NULL" where neither end has one, else the sorted union.
sym_sepsets <- function(s) {
  p <- length(s)
  out <- character(0)
  for (j in seq_len(p)) for (i in seq_len(j - 1)) {
    a <- s[[i]][[j]]
    b <- s[[j]][[i]]
    out <- c(out, if (is.null(a) && is.null(b)) "NULL" else paste(sort(unique(c(a, b))), collapse = ","))
  }
  out
}

# Asserts that two pcAlgo objects agree: graph (CPDAG or skeleton), symmetrised separating
# sets, pMax (up to `tol`: pcalg inverts C[S,S], cudag factorises it).
expect_same_pc <- function(ours, theirs, tol = 1e-9) {
  expect_s4_class(ours, "pcAlgo")
  a <- as(ours@graph, "matrix")
  b <- as(theirs@graph, "matrix")
  expect_equal(dimnames(a), dimnames(b))
  expect_equal(unname(a != 0), unname(b != 0))
  expect_equal(sym_sepsets(ours@sepset), sym_sepsets(theirs@sepset))
  expect_equal(ours@pMax, theirs@pMax, tolerance = tol)
}

skip_without_pcalg <- function() {
  skip_if_not_installed("pcalg")
  skip_if_not_installed("graph")
  suppressPackageStartupMessages(requireNamespace("pcalg"))
}
