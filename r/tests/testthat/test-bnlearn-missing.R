# Data with NA under cudag's bnlearn face, against bnlearn 4.9: each test on its locally
# complete rows (bnlearn's rule: factors keep their declared levels, a test without complete
# rows or without a Gaussian degree of freedom is independent), in ci.test, pc.stable and
# boot.strength.

# `d` with each cell NA with probability `frac` (seeded).
with_holes <- function(d, frac, seed) {
  set.seed(seed)
  for (j in seq_along(d)) d[[j]][stats::runif(nrow(d)) < frac] <- NA
  d
}

expect_htest_as_bnlearn <- function(x, y, z, d, test) {
  ours <- suppressWarnings(cudag::ci.test(x, y, z, data = d, test = test))  # bnlearn notes unused levels
  theirs <- suppressWarnings(bnlearn::ci.test(x, y, z, data = d, test = test))
  what <- paste(test, x, y, paste(z, collapse = ","))
  expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-10, info = what)
  expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-10, info = what)
  expect_equal(unname(ours$parameter), unname(theirs$parameter), info = what)
}

test_that("ci.test on data with NA: bnlearn's statistic, p-value and df", {
  skip_without_bnlearn()
  cases <- list(list("gaussian.test", c("cor", "zf", "mi-g")), list("learning.test", c("mi", "x2")),
                list("clgaussian.test", "mi-cg"))
  set.seed(5)
  for (case in cases) {
    d <- with_holes(bnlearn_data(case[[1]])[1:1500, ], 0.1, 3)
    for (test in case[[2]]) for (k in 1:8) {
      s <- sample(names(d), 2 + k %% 4)
      if (test == "mi-cg" && length(unique(vapply(d[s], is.factor, TRUE))) < 2) next
      expect_htest_as_bnlearn(s[1], s[2], s[-(1:2)], d, test)
    }
  }
  # too few complete rows for a Gaussian degree of freedom: independent, df 0 (bnlearn's rule)
  d <- bnlearn_data("gaussian.test")[1:200, ]
  d$A[-(1:6)] <- NA
  for (test in c("cor", "zf")) {
    expect_htest_as_bnlearn("A", "B", c("C", "D", "E", "F"), d, test)
    expect_equal(cudag::ci.test("A", "B", c("C", "D", "E", "F"), data = d, test = test)$p.value, 1)
  }
  expect_htest_as_bnlearn("A", "B", c("C", "D"), d, "zf")  # 6 rows, 2 given: one degree of freedom
  # no complete row: a discrete test independent, its df from the declared levels
  d <- bnlearn_data("learning.test")[1:300, ]
  d$A[1:150] <- NA
  d$B[151:300] <- NA
  for (test in c("mi", "x2")) {
    expect_htest_as_bnlearn("A", "B", "C", d, test)
    expect_equal(cudag::ci.test("A", "B", "C", data = d, test = test)$p.value, 1)
  }
  # mi-cg on one complete row: independent, with the model's df (bnlearn's); on none: df 0
  d <- bnlearn_data("clgaussian.test")[1:100, ]
  d$A[-1] <- NA
  for (q in list(c("A", "G"), c("G", "A"), c("A", "G", "C"), c("A", "G", "D", "C"))) {
    expect_htest_as_bnlearn(q[1], q[2], q[-(1:2)], d, "mi-cg")
    expect_equal(suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-cg"))$p.value, 1)
  }
  d$G[1] <- NA
  expect_htest_as_bnlearn("A", "G", "C", d, "mi-cg")
})

test_that("pc.stable on discrete and mixed data with NA: bnlearn's network", {
  skip_without_bnlearn()
  for (seed in 1:3) {
    d <- with_holes(bnlearn_data("learning.test")[1:(600 * seed), ], 0.05 * seed, seed)
    expect_pc_as_bnlearn(d, test = "mi", alpha = 0.05)
    expect_pc_as_bnlearn(d, test = "x2", alpha = 0.01)
  }
  d <- with_holes(bnlearn_data("clgaussian.test")[1:2000, ], 0.08, 4)
  expect_pc_as_bnlearn(d, test = "mi-cg", alpha = 0.05)
  # random networks and holes: three levels a factor, some cells of every column missing
  for (seed in 11:16) {
    set.seed(seed)
    nodes <- paste0("V", 1:8)
    x <- with_holes(discrete_data(random_dag(nodes, 0.35), 400), 0.1, seed)
    expect_pc_as_bnlearn(x, test = "mi", alpha = 0.05)
  }
})

test_that("pc.stable on Gaussian data with NA: bnlearn's tests, separating sets that separate", {
  skip_without_bnlearn()
  d <- with_holes(bnlearn_data("gaussian.test")[1:800, ], 0.08, 1)
  # level 0: the pairs bnlearn's ci.test finds dependent (bnlearn's max.sx starts at 1)
  pairs <- combn(names(d), 2, simplify = FALSE)
  for (test in c("cor", "zf", "mi-g")) {
    dep <- vapply(pairs, function(p) suppressWarnings(bnlearn::ci.test(p[1], p[2], data = d, test = test))$p.value <= 0.05,
                  TRUE)
    want <- sort(vapply(pairs[dep], paste, "", collapse = "~"))
    expect_identical(skeleton_pairs(cudag::pc.stable(d, test = test, alpha = 0.05, max.sx = 0)), want)
  }
  # Beyond level 0 bnlearn 4.9's Gaussian test of incomplete data does not stop at a separating
  # set (its allsubs.test's early return is disabled there): it decides each pair by the last
  # set's p-value and gives an empty separating set. cudag stops at the first separating set, as
  # bnlearn does for complete data and for discrete and mixed data with NA. Here bnlearn keeps
  # C - F though its own ci.test separates them given {A, B}.
  ours <- cudag::pc.stable(d, test = "cor", alpha = 0.05)
  theirs <- suppressWarnings(bnlearn::pc.stable(d, test = "cor", alpha = 0.05))
  expect_true("C~F" %in% skeleton_pairs(theirs))
  expect_false("C~F" %in% skeleton_pairs(ours))
  expect_gt(suppressWarnings(bnlearn::ci.test("C", "F", c("A", "B"), data = d, test = "cor"))$p.value, 0.05)
  # every pair cudag removes has a separating set: some subset of the neighbours it had
  # (after level 0) that bnlearn's ci.test finds independent
  level0 <- cudag::pc.stable(d, test = "cor", alpha = 0.05, max.sx = 0, undirected = TRUE)
  adj <- function(v) unique(c(level0$arcs[level0$arcs[, 1] == v, 2]))
  removed <- setdiff(skeleton_pairs(level0), skeleton_pairs(ours))
  expect_gt(length(removed), 0)
  for (pair in strsplit(removed, "~")) {
    cand <- setdiff(union(adj(pair[1]), adj(pair[2])), pair)
    sets <- unlist(lapply(seq_along(cand), function(k) combn(cand, k, simplify = FALSE)), recursive = FALSE)
    p <- vapply(sets, function(s) suppressWarnings(bnlearn::ci.test(pair[1], pair[2], s, data = d, test = "cor"))$p.value, 0)
    expect_gt(max(p), 0.05, label = paste(pair, collapse = "~"))
  }
})

test_that("boot.strength on data with NA: bnlearn's networks on cudag's resamples", {
  skip_without_bnlearn()
  d <- with_holes(bnlearn_data("learning.test")[1:1000, ], 0.1, 8)
  ours <- cudag::boot.strength(d, R = 12, algorithm = "pc.stable", algorithm.args = list(test = "mi"), seed = 5)
  rows <- lapply(0:11, function(r) cudag:::.cudag_resample_rows(nrow(d), r, 5, "bootstrap"))
  nets <- lapply(rows, function(r) bnlearn_pc(d[r, ], test = "mi"))
  theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
  expect_equal(ours$strength, theirs$strength, tolerance = 1e-12)
  expect_equal(ours$direction, theirs$direction, tolerance = 1e-12)
})

test_that("NA where cudag needs complete data, and a column never observed, are refused", {
  skip_without_bnlearn()
  d <- with_holes(bnlearn_data("learning.test"), 0.05, 2)
  expect_error(cudag::score(bnlearn::empty.graph(names(d)), d), "NA at row .*scores need complete data")
  expect_error(cudag::mcmc(d, "bde", iterations = 10), "NA at row")
  expect_error(cudag::boot.strength(d, R = 2, algorithm = "mcmc", cpdag = FALSE), "NA at row")
  g <- bnlearn_data("gaussian.test")
  g$C <- NA_real_
  expect_error(cudag::pc.stable(g), "column 'C' has no observed value")
  expect_error(cudag::ci.test("A", "C", data = g), "column 'C' has no observed value")
})
