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

# pcalg's example data set `name` (gmG, gmD, gmB, gmI) in an environment of its own.
pcalg_example <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "pcalg", envir = env)
  env
}

# gmG8 with pcalg's suffStat list(C, n) and pcalg's pc on it at alpha 0.01.
gmg8_case <- function() {
  x <- pcalg_example("gmG")$gmG8$x
  ss <- list(C = cor(x), n = nrow(x))
  list(x = x, ss = ss, theirs = pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x)))
}

# Generated set k: a random DAG (pcalg::randomDAG, edge probability `prob`) over 8 to 22
# nodes and Gaussian data from it (pcalg::rmvDAG, n0 + dn * k samples) as list(C, n), with
# its p and an alpha of 0.01 or 0.05.
generated_set <- function(k, seed, prob, n0, dn) {
  set.seed(seed + k)
  p <- 8 + 2 * (k %% 8)
  x <- pcalg::rmvDAG(n0 + dn * k, pcalg::randomDAG(p, prob = prob))
  list(ss = list(C = cor(x), n = nrow(x)), p = p, alpha = c(0.01, 0.05)[1 + k %% 2])
}

# cudag::pc against pcalg::pc with the same arguments.
expect_pc_as_pcalg <- function(suffStat, indepTest, ...) {
  expect_same_pc(cudag::pc(suffStat, indepTest, ...), pcalg::pc(suffStat, indepTest, ...))
}
