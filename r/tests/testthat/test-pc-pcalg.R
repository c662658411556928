# cudag::pc and cudag::skeleton against pcalg 2.7-12's pc / skeleton (skel.method "stable",
# u2pd "relaxed") on pcalg's example data and on generated sets.

test_that("gmG8: gaussCItest on pcalg's list(C, n) and on the data", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmG", package = "pcalg", envir = env)
  x <- env$gmG8$x
  ss <- list(C = cor(x), n = nrow(x))
  theirs <- pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x))
  expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x)), theirs)
  expect_same_pc(cudag::pc(ss, cudag::gaussCItest, alpha = 0.01, labels = colnames(x), threads = 1), theirs)
  expect_same_pc(cudag::pc(list(data = x), "gaussCItest", alpha = 0.01, labels = colnames(x)), theirs)
  sk <- pcalg::skeleton(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x))
  expect_same_pc(cudag::skeleton(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x)), sk)
  # pcalg's own functions take the result.
  ours <- cudag::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x))
  expect_equal(pcalg::shd(ours, theirs), 0)
  expect_output(pcalg::showEdgeList(ours))
})

test_that("gmI: gaussCItest, m.max and fixedGaps / fixedEdges", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmI", package = "pcalg", envir = env)
  x <- env$gmI$x
  ss <- list(C = cor(x), n = nrow(x))
  v <- as.character(seq_len(ncol(x)))
  expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v),
                 pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v))
  expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v, m.max = 1),
                 pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v, m.max = 1))
  p <- length(v)
  gaps <- matrix(FALSE, p, p)
  gaps[1, 2] <- gaps[2, 1] <- TRUE
  edges <- matrix(FALSE, p, p)
  edges[3, 7] <- edges[7, 3] <- TRUE
  expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v, fixedGaps = gaps, fixedEdges = edges),
                 pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = v, fixedGaps = gaps, fixedEdges = edges))
})

test_that("gmD: disCItest", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmD", package = "pcalg", envir = env)
  ss <- list(dm = env$gmD$x, nlev = c(3, 2, 3, 4, 2), adaptDF = FALSE)
  v <- colnames(env$gmD$x)
  expect_same_pc(cudag::pc(ss, pcalg::disCItest, alpha = 0.01, labels = v),
                 pcalg::pc(ss, pcalg::disCItest, alpha = 0.01, labels = v))
})

test_that("gmB: binCItest", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmB", package = "pcalg", envir = env)
  ss <- list(dm = env$gmB$x, adaptDF = FALSE)
  v <- colnames(env$gmB$x)
  expect_same_pc(cudag::pc(ss, pcalg::binCItest, alpha = 0.01, labels = v),
                 pcalg::pc(ss, pcalg::binCItest, alpha = 0.01, labels = v))
})

test_that("20 generated Gaussian sets (randomDAG + rmvDAG)", {
  skip_without_pcalg()
  for (k in 1:20) {
    set.seed(100 + k)
    p <- 8 + 2 * (k %% 8)
    dag <- pcalg::randomDAG(p, prob = 0.25)
    x <- pcalg::rmvDAG(200 + 50 * k, dag)
    ss <- list(C = cor(x), n = nrow(x))
    alpha <- c(0.01, 0.05)[1 + k %% 2]
    expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = alpha, p = p),
                   pcalg::pc(ss, pcalg::gaussCItest, alpha = alpha, p = p))
  }
})

test_that("conservative and maj.rule: gmG8, gmD and 20 generated sets", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmG", package = "pcalg", envir = env)
  utils::data("gmD", package = "pcalg", envir = env)
  x <- env$gmG8$x
  ss <- list(C = cor(x), n = nrow(x))
  for (rule in c("conservative", "maj.rule")) {
    args <- list(alpha = 0.01, labels = colnames(x))
    args[[rule]] <- TRUE
    expect_same_pc(do.call(cudag::pc, c(list(ss, pcalg::gaussCItest), args)),
                   do.call(pcalg::pc, c(list(ss, pcalg::gaussCItest), args)))
    d <- list(dm = env$gmD$x, nlev = c(3, 2, 3, 4, 2), adaptDF = FALSE)
    args <- list(alpha = 0.01, labels = colnames(env$gmD$x))
    args[[rule]] <- TRUE
    expect_same_pc(do.call(cudag::pc, c(list(d, pcalg::disCItest), args)),
                   do.call(pcalg::pc, c(list(d, pcalg::disCItest), args)))
    for (k in 1:20) {
      set.seed(500 + k)
      p <- 8 + 2 * (k %% 8)
      dag <- pcalg::randomDAG(p, prob = 0.3)
      y <- pcalg::rmvDAG(100 + 40 * k, dag)
      s2 <- list(C = cor(y), n = nrow(y))
      args <- list(alpha = c(0.01, 0.05)[1 + k %% 2], p = p)
      args[[rule]] <- TRUE
      expect_same_pc(do.call(cudag::pc, c(list(s2, pcalg::gaussCItest), args)),
                     do.call(pcalg::pc, c(list(s2, pcalg::gaussCItest), args)))
    }
  }
})

test_that("without pcalg's classes: a plain list with the same contents", {
  skip_without_pcalg()
  env <- new.env()
  utils::data("gmG", package = "pcalg", envir = env)
  x <- env$gmG8$x
  ss <- list(C = cor(x), n = nrow(x))
  theirs <- pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x))
  old <- options(cudag.pcAlgo = FALSE)
  on.exit(options(old))
  ours <- cudag::pc(ss, "gaussCItest", alpha = 0.01, labels = colnames(x))
  expect_s3_class(ours, "cudag_pc")
  expect_equal(unname(ours$amat != 0), unname(as(theirs@graph, "matrix") != 0))
  expect_equal(sym_sepsets(ours$sepset), sym_sepsets(theirs@sepset))
  expect_equal(ours$pMax, theirs@pMax, tolerance = 1e-9)
})

test_that("cmiknnCItest runs from the data and gives a pcAlgo over the same nodes", {
  skip_without_pcalg()
  set.seed(3)
  x <- matrix(rnorm(600), 200, 3)
  x[, 2] <- x[, 1]^2 + 0.3 * rnorm(200)
  x[, 3] <- x[, 2] + 0.3 * rnorm(200)
  fit <- cudag::pc(list(data = x, permutations = 99, seed = 7), cudag::cmiknnCItest, alpha = 0.05, p = 3,
                   threads = 1)
  expect_s4_class(fit, "pcAlgo")
  # The generating DAG's skeleton 1 - 2 - 3 (1 -> 2 through x^2, which Fisher-z cannot see).
  skel <- as(fit@graph, "matrix") != 0
  expect_equal(unname(skel | t(skel)), matrix(c(FALSE, TRUE, FALSE, TRUE, FALSE, TRUE, FALSE, TRUE, FALSE), 3))
})
