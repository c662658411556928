# cudag::pc and cudag::skeleton against pcalg 2.7-12's pc / skeleton (skel.method "stable",
# u2pd "relaxed") on pcalg's example data and on generated sets.

test_that("gmG8: gaussCItest on pcalg's list(C, n) and on the data", {
  skip_without_pcalg()
  case <- gmg8_case()
  x <- case$x
  ss <- case$ss
  theirs <- case$theirs
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
  x <- pcalg_example("gmI")$gmI$x
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
  gmD <- pcalg_example("gmD")$gmD
  ss <- list(dm = gmD$x, nlev = c(3, 2, 3, 4, 2), adaptDF = FALSE)
  v <- colnames(gmD$x)
  expect_same_pc(cudag::pc(ss, pcalg::disCItest, alpha = 0.01, labels = v),
                 pcalg::pc(ss, pcalg::disCItest, alpha = 0.01, labels = v))
})

test_that("gmB: binCItest", {
  skip_without_pcalg()
  gmB <- pcalg_example("gmB")$gmB
  ss <- list(dm = gmB$x, adaptDF = FALSE)
  v <- colnames(gmB$x)
  expect_same_pc(cudag::pc(ss, pcalg::binCItest, alpha = 0.01, labels = v),
                 pcalg::pc(ss, pcalg::binCItest, alpha = 0.01, labels = v))
})

test_that("adaptDF = TRUE: pcalg's degrees of freedom lowered by the zero counts", {
  skip_without_pcalg()
  gmD <- pcalg_example("gmD")$gmD
  gmB <- pcalg_example("gmB")$gmB
  expect_pc_as_pcalg(list(dm = gmD$x, nlev = c(3, 2, 3, 4, 2), adaptDF = TRUE), pcalg::disCItest, alpha = 0.01,
                     labels = colnames(gmD$x))
  expect_pc_as_pcalg(list(dm = gmB$x, adaptDF = TRUE), pcalg::binCItest, alpha = 0.01, labels = colnames(gmB$x))
  # 30 generated discrete sets (chains of noisy copies, 2 to 4 levels, 200 to 5,000 rows)
  set.seed(3)
  changed <- 0
  for (rep in 1:30) {
    p <- sample(5:9, 1)
    n <- sample(c(200, 500, 2000, 5000), 1)
    lv <- if (rep %% 3 == 0) rep(2L, p) else sample(2:4, p, TRUE)
    m <- matrix(0L, n, p, dimnames = list(NULL, paste0("V", 1:p)))
    for (j in 1:p) {
      base <- if (j > 1) m[, sample(j - 1, 1)] else 0L
      noise <- sample(0:(lv[j] - 1), n, TRUE, prob = rev(seq_len(lv[j]))^2)
      m[, j] <- as.integer((base + noise * (stats::runif(n) < 0.6)) %% lv[j])
    }
    nl <- apply(m, 2, function(v) length(unique(v)))
    if (any(nl < 2)) next
    bin <- all(lv == 2) && rep %% 2 == 0
    test <- if (bin) pcalg::binCItest else pcalg::disCItest
    ss <- if (bin) list(dm = m, adaptDF = TRUE) else list(dm = m, nlev = nl, adaptDF = TRUE)
    ours <- suppressWarnings(cudag::pc(ss, test, alpha = 0.05, labels = colnames(m)))
    expect_same_pc(ours, suppressWarnings(pcalg::pc(ss, test, alpha = 0.05, labels = colnames(m))))
    ss$adaptDF <- FALSE
    changed <- changed + !isTRUE(all.equal(ours@pMax, suppressWarnings(cudag::pc(ss, test, alpha = 0.05,
                                                                                 labels = colnames(m)))@pMax))
  }
  expect_gt(changed, 10)  # the rule moved pMax in most sets
})

test_that("20 generated Gaussian sets (randomDAG + rmvDAG)", {
  skip_without_pcalg()
  for (k in 1:20) {
    g <- generated_set(k, 100, 0.25, 200, 50)
    expect_pc_as_pcalg(g$ss, pcalg::gaussCItest, alpha = g$alpha, p = g$p)
  }
})

test_that("conservative and maj.rule: gmG8, gmD and 20 generated sets", {
  skip_without_pcalg()
  x <- pcalg_example("gmG")$gmG8$x
  ss <- list(C = cor(x), n = nrow(x))
  gmD <- pcalg_example("gmD")$gmD
  for (rule in c("conservative", "maj.rule")) {
    on <- list(TRUE)
    names(on) <- rule
    do.call(expect_pc_as_pcalg, c(list(ss, pcalg::gaussCItest, alpha = 0.01, labels = colnames(x)), on))
    d <- list(dm = gmD$x, nlev = c(3, 2, 3, 4, 2), adaptDF = FALSE)
    do.call(expect_pc_as_pcalg, c(list(d, pcalg::disCItest, alpha = 0.01, labels = colnames(gmD$x)), on))
    for (k in 1:20) {  # in 16-17 of them ambiguous triples change pcalg's CPDAG
      g <- generated_set(k, 500, 0.3, 100, 40)
      do.call(expect_pc_as_pcalg, c(list(g$ss, pcalg::gaussCItest, alpha = g$alpha, p = g$p), on))
    }
  }
})

test_that("without pcalg's classes: a plain list with the same contents", {
  skip_without_pcalg()
  case <- gmg8_case()
  x <- case$x
  ss <- case$ss
  theirs <- case$theirs
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

test_that("a test with n = |S| + 3 samples has p = 1 (z = 0), as pcalg's", {
  skip_without_pcalg()
  hits <- 0
  for (seed in 1:10) {
    set.seed(seed)
    x <- matrix(stats::rnorm(5 * 6), 5, 6)
    x[, 2] <- x[, 1] + 0.1 * x[, 2]
    ss <- list(C = cor(x), n = 5)
    theirs <- pcalg::pc(ss, pcalg::gaussCItest, alpha = 0.5, p = 6, m.max = 2)
    expect_same_pc(cudag::pc(ss, pcalg::gaussCItest, alpha = 0.5, p = 6, m.max = 2), theirs)
    expect_same_pc(cudag::pc(list(data = x), pcalg::gaussCItest, alpha = 0.5, p = 6, m.max = 2), theirs)
    hits <- hits + (length(theirs@n.edgetests) >= 3 && theirs@n.edgetests[3] > 0)
  }
  expect_gt(hits, 0)  # level 2 ran (n = 5 = 2 + 3) somewhere
})
