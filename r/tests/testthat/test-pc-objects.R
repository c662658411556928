# pcalg's objects as src/cudag_r.cpp builds them (the pcAlgo: pMax, sepset, the graphNEL)
# against the objects of the same raw result built as R/pc.R built them before (graph's
# as(<matrix>, "graphNEL"), the sepset filled in R): identical(), on several sets, for pc,
# skeleton (logical matrix: integer weights), fixedGaps, all-undirected and empty graphs.

# The R building path the package had before (the reference here).
old_parts <- function(raw) {
  p <- length(raw$labels)
  skel <- matrix(FALSE, p, p, dimnames = list(raw$labels, raw$labels))
  skel[cbind(raw$skel_i + 1L, raw$skel_j + 1L)] <- TRUE
  skel[cbind(raw$skel_j + 1L, raw$skel_i + 1L)] <- TRUE
  pmax <- matrix(-Inf, p, p)
  diag(pmax) <- 1
  pmax[cbind(raw$pmax_i + 1L, raw$pmax_j + 1L)] <- raw$pmax_p
  pmax[cbind(raw$pmax_j + 1L, raw$pmax_i + 1L)] <- raw$pmax_p
  sepset <- lapply(seq_len(p), function(i) vector("list", p))
  gap <- !skel
  diag(gap) <- FALSE
  if (!is.null(raw$fixed_gaps)) gap <- gap & !raw$fixed_gaps
  gap <- gap & upper.tri(gap)
  for (i in which(rowSums(gap) > 0)) {
    js <- which(gap[i, ])
    sepset[[i]][js] <- rep(list(integer(0)), length(js))
  }
  ends <- cumsum(raw$sepset_len)
  for (k in seq_along(raw$sepset_i)) {
    set <- raw$sepset_nodes[seq_len(raw$sepset_len[k]) + ends[k] - raw$sepset_len[k]] + 1L
    i <- raw$sepset_i[k] + 1L
    j <- raw$sepset_j[k] + 1L
    sepset[[i]][j] <- list(as.integer(set))
    sepset[[j]][i] <- list(as.integer(set))
  }
  list(skel = skel, pmax = pmax, sepset = sepset)
}

old_graph <- function(m, labels) {
  if (sum(m) == 0) return(new(methods::getClass("graphNEL", where = asNamespace("graph")), nodes = labels))
  dimnames(m) <- list(labels, labels)
  as(m, "graphNEL")
}

# Both paths on one call's raw result; `cpdag`: pc's graph, else skeleton's.
expect_same_objects <- function(suffStat, test, alpha, p, cpdag = TRUE, fixedGaps = NULL, fixedEdges = NULL,
                                m.max = Inf) {
  old_opt <- options(cudag.raw_pmax = TRUE)  # pMax as plain vectors too (this reference's input)
  on.exit(options(old_opt))
  cl <- quote(cudag::pc(suffStat, indepTest, alpha))
  raw <- cudag:::.run(suffStat, test, alpha, NULL, p, m.max, fixedGaps, fixedEdges, TRUE, "cpu", 1L, FALSE,
                      !cpdag, cl = cl)
  old <- old_parts(raw)
  obj <- raw$object
  expect_s4_class(obj, "pcAlgo")
  expect_identical(obj@pMax, old$pmax)
  expect_identical(obj@sepset, old$sepset)
  n.edgetests <- numeric(max(raw$levels) + 1L)
  n.edgetests[raw$levels + 1L] <- raw$tests
  expect_identical(obj@n.edgetests, n.edgetests)
  expect_identical(obj@max.ord, as.integer(max(raw$levels)))
  expect_identical(obj@call, cl)
  expect_identical(obj@n, integer(0))
  expect_identical(obj@zMin, matrix(NA, 1, 1))
  expect_true(validObject(obj))
  if (cpdag) {
    amat <- matrix(0, p, p)
    amat[cbind(raw$arc_from + 1L, raw$arc_to + 1L)] <- 1
  } else {
    amat <- old$skel
  }
  expect_identical(obj@graph, old_graph(amat, raw$labels))
  invisible(raw)
}

test_that("pcalg's objects built in C++ equal the R-built ones (identical)", {
  skip_without_pcalg()
  for (seed in 1:4) {
    set.seed(seed)
    p <- c(8, 20, 35, 60)[seed]
    x <- pcalg::rmvDAG(300, pcalg::randomDAG(p, prob = 3 / (p - 1)))
    ss <- list(C = cor(x), n = nrow(x))
    expect_same_objects(ss, pcalg::gaussCItest, 0.01, p)
    expect_same_objects(ss, pcalg::gaussCItest, 0.01, p, cpdag = FALSE)
    expect_same_objects(list(data = x), "gaussCItest", 0.05, p, m.max = 1)
    gaps <- matrix(FALSE, p, p)
    gaps[1, 2] <- gaps[2, 1] <- TRUE
    gaps[3, p] <- gaps[p, 3] <- TRUE
    edges <- matrix(FALSE, p, p)
    edges[2, 4] <- edges[4, 2] <- TRUE
    expect_same_objects(ss, pcalg::gaussCItest, 0.01, p, fixedGaps = gaps, fixedEdges = edges)
    expect_same_objects(ss, pcalg::gaussCItest, 0.01, p, cpdag = FALSE, fixedGaps = gaps)
  }
  # Every edge undirected (as() then makes an undirected graphNEL), and no edge at all.
  set.seed(9)
  x <- matrix(rnorm(400 * 3), 400, 3)
  x[, 2] <- x[, 2] + x[, 1]
  x[, 3] <- x[, 3] + x[, 2]
  raw <- expect_same_objects(list(C = cor(x), n = 400), pcalg::gaussCItest, 0.01, 3)
  expect_identical(raw$object@graph@graphData$edgemode, "undirected")
  raw <- expect_same_objects(list(C = diag(4), n = 100), pcalg::gaussCItest, 0.01, 4)
  expect_length(raw$object@graph@edgeData@data, 0)
  # Discrete data (disCItest): level-0 removals without a record, sets at level >= 1.
  dm <- pcalg_example("gmD")$gmD$x
  expect_same_objects(list(dm = dm, adaptDF = FALSE), pcalg::disCItest, 0.01, ncol(dm))
})
