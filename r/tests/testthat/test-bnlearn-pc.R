# cudag::pc.stable against bnlearn 4.9's pc.stable: the skeleton exactly on learning.test,
# gaussian.test, alarm and generated sets; the arcs too where bnlearn reports no conflicting
# v-structures (bnlearn then drops the weaker of two conflicting v-structures, cudag orients
# as pcalg's udag2pdagRelaxed, which keeps both: the two differ only there).

test_that("learning.test (mi, x2) and gaussian.test (zf, cor): skeleton and arcs", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  gt <- bnlearn_data("gaussian.test")
  for (alpha in c(0.01, 0.05)) {
    expect_pc_as_bnlearn(lt, test = "mi", alpha = alpha)
    expect_pc_as_bnlearn(lt, test = "x2", alpha = alpha)
    expect_pc_as_bnlearn(gt, test = "zf", alpha = alpha)
    # bnlearn's cor is the t test of the partial correlation, cudag runs Fisher's z: the same
    # decisions here
    expect_pc_as_bnlearn(gt, test = "cor", alpha = alpha)
    # mi-g: -n log(1 - r^2), cudag's cg-lrt on continuous data
    expect_pc_as_bnlearn(gt, test = "mi-g", alpha = alpha)
  }
  expect_pc_as_bnlearn(lt, test = "mi", max.sx = 1)
  expect_pc_as_bnlearn(gt, test = "zf", undirected = TRUE)
  # bnlearn's own functions take the result
  ours <- cudag::pc.stable(lt)
  expect_equal(bnlearn::shd(ours, bnlearn::pc.stable(lt)), 0)
  expect_identical(ours$learning$algo, "pc.stable")
  expect_output(print(ours), "PC \\(Stable\\)")
  # without bnlearn's classes: a plain list with the same arcs
  old <- options(cudag.bnlearn = FALSE)
  on.exit(options(old))
  plain <- cudag::pc.stable(lt)
  expect_s3_class(plain, "cudag_bn")
  expect_identical(arc_set(plain), arc_set(ours))
  expect_output(print(plain), "4 directed arcs, 1 undirected")
})

test_that("whitelist and blacklist as bnlearn's", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  wl <- matrix(c("A", "F"), 1, 2, dimnames = list(NULL, c("from", "to")))
  bl <- matrix(c("A", "B", "B", "A"), 2, 2, byrow = TRUE, dimnames = list(NULL, c("from", "to")))
  expect_pc_as_bnlearn(lt, test = "mi", whitelist = wl)
  expect_pc_as_bnlearn(lt, test = "mi", blacklist = bl)
})

test_that("alarm and 12 generated sets (Gaussian zf, discrete mi / x2): skeletons and arcs", {
  skip_without_bnlearn()
  expect_pc_as_bnlearn(bnlearn_data("alarm")[1:5000, ], test = "mi")
  conflicts <- 0
  for (k in 1:12) {
    set.seed(100 + k)
    dag <- random_dag(paste0("V", seq_len(8 + k)), c(0.25, 0.12)[1 + k %% 2])
    disc <- k %% 3 == 0
    x <- if (disc) discrete_data(dag, 300 + 100 * k) else sem_data(dag, 200 + 50 * k)
    test <- if (disc) c("mi", "x2")[1 + k %% 2] else "zf"
    conflicts <- conflicts + (expect_pc_as_bnlearn(x, test = test, alpha = c(0.01, 0.05)[1 + k %% 2]) > 0)
  }
  expect_gte(conflicts, 1)  # some with conflicting v-structures, settled as bnlearn settles them
})

test_that("tests and arguments cudag lacks are refused", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  expect_error(cudag::pc.stable(lt, test = "mc-mi"), "not one of cudag's tests")
  expect_error(cudag::pc.stable(lt, test = "zf"), "needs continuous data")
  expect_error(cudag::pc.stable(lt, B = 100), "not permutation tests")
  expect_error(cudag::pc.stable(bnlearn_data("clgaussian.test"), test = "mi"), "needs discrete data")
  expect_error(cudag::pc.stable(lt, whitelist = matrix(c("A", "Q"), 1)), "no variable 'Q'")
})

test_that("conflicting v-structures: bnlearn's orientation, not pcalg's (whose graph has a directed cycle)", {
  skip_without_bnlearn()
  skip_without_pcalg()
  lt <- bnlearn_data("learning.test")
  set.seed(40)  # a bootstrap resample of learning.test whose pcalg orientation has a directed cycle
  d <- lt[sample(nrow(lt), replace = TRUE), ]
  expect_gt(expect_pc_as_bnlearn(d, test = "mi", alpha = 0.05), 0)
  ours <- cudag::pc.stable(d, test = "mi", alpha = 0.05)
  expect_true(bnlearn::acyclic(ours, directed = TRUE))
  ss <- list(dm = data.matrix(d) - 1L, nlev = vapply(d, nlevels, 1L), adaptDF = FALSE)
  theirs <- pcalg::pc(ss, pcalg::disCItest, alpha = 0.05, labels = names(d), skel.method = "stable")
  m <- bnlearn::amat(ours)
  expect_false(isTRUE(all.equal(unname(m), unname(as(theirs@graph, "matrix") != 0) * 1L)))
  # cudag::pc (pcalg's face) keeps pcalg's orientation
  expect_equal(unname(as(cudag::pc(ss, cudag::disCItest, alpha = 0.05, labels = names(d))@graph, "matrix")),
               unname(as(theirs@graph, "matrix")))
})

test_that("an arc whitelisted both ways is an adjacency; whitelisted and blacklisted, whitelisted", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  gt <- bnlearn_data("gaussian.test")
  both <- matrix(c("A", "C", "C", "A"), 2, 2, byrow = TRUE, dimnames = list(NULL, c("from", "to")))
  expect_pc_as_bnlearn(lt, test = "mi", whitelist = both)
  expect_true("A~C" %in% skeleton_pairs(cudag::pc.stable(lt, whitelist = both)))
  far <- matrix(c("A", "G", "G", "A"), 2, 2, byrow = TRUE)
  expect_pc_as_bnlearn(gt, test = "zf", whitelist = far)
  one <- both[1, , drop = FALSE]
  expect_pc_as_bnlearn(lt, test = "mi", whitelist = one, blacklist = one)
  expect_pc_as_bnlearn(lt, test = "mi", whitelist = one, blacklist = both)
  # score-based learning refuses it, as bnlearn's hc
  expect_error(cudag::mcmc(lt, "bde", whitelist = both, iterations = 100), "listed in both directions")
  expect_error(bnlearn::hc(lt, whitelist = both), "both directions")
})

test_that("cor is bnlearn's exact t test (its default on Gaussian data), zf Fisher's z", {
  skip_without_bnlearn()
  differs <- 0
  for (k in 1:30) {
    set.seed(500 + k)
    dag <- random_dag(paste0("V", 1:10), 0.3)
    x <- sem_data(dag, 25 + k)
    alpha <- c(0.01, 0.05)[1 + k %% 2]
    expect_pc_as_bnlearn(x, test = "cor", alpha = alpha)
    expect_pc_as_bnlearn(x, test = "zf", alpha = alpha)
    differs <- differs + !identical(skeleton_pairs(bnlearn_pc(x, test = "cor", alpha = alpha)),
                                    skeleton_pairs(bnlearn_pc(x, test = "zf", alpha = alpha)))
    if (k <= 3) expect_identical(skeleton_pairs(suppressWarnings(cudag::pc.stable(x, alpha = alpha))),
                                 skeleton_pairs(bnlearn_pc(x, alpha = alpha)))
  }
  expect_gt(differs, 0)  # small samples where the two tests decide differently
  expect_identical(cudag::pc.stable(sem_data(random_dag(paste0("V", 1:5), 0.4), 100))$learning$test, "cor")
})

test_that("pairs blacklisted both ways: their v-structures tested given the centre, as bnlearn's", {
  skip_without_bnlearn()
  # Such a pair is never tested in the search (no separating set); bnlearn's vstruct.detect
  # tests it given the centre and the subsets of the smaller neighbourhood. Random DAGs with
  # a few random pairs blacklisted both ways; the runs where bnlearn's result directs both
  # endpoints of such a pair into a common child are counted, so that the case is met.
  met <- 0
  for (r in 1:24) {
    set.seed(5800 + r)
    nodes <- paste0("V", seq_len(sample(7:10, 1)))
    dag <- random_dag(nodes, 0.3)
    discrete <- r %% 3 == 0
    x <- if (discrete) discrete_data(dag, 500) else sem_data(dag, sample(c(100, 500), 1))
    pairs <- t(utils::combn(nodes, 2))
    pick <- pairs[sample(nrow(pairs), 4), , drop = FALSE]
    bl <- data.frame(from = c(pick[, 1], pick[, 2]), to = c(pick[, 2], pick[, 1]))
    test <- if (discrete) "mi" else c("cor", "zf", "mi-g")[r %% 3 + 1]
    ms <- if (r %% 4 == 0) 1 else Inf
    expect_pc_as_bnlearn(x, blacklist = bl, test = test, alpha = 0.05, max.sx = ms)
    g <- suppressWarnings(bnlearn::pc.stable(x, blacklist = bl, test = test, alpha = 0.05, max.sx = ms))
    a <- g$arcs
    d <- a[!(paste(a[, 1], a[, 2]) %in% paste(a[, 2], a[, 1])), , drop = FALSE]
    met <- met + any(vapply(seq_len(nrow(pick)), function(i) {
      any(d[d[, 1] == pick[i, 1], 2] %in% d[d[, 1] == pick[i, 2], 2])
    }, logical(1)))
  }
  expect_gt(met, 4)
})
