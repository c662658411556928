# Factor levels no row takes count as bnlearn counts them (declared levels): the tests'
# degrees of freedom, BDe's prior, the BIC penalties, pc.stable's networks and the resamples
# of boot.strength, against bnlearn 4.9 on the same data frames.

# learning.test with a level nobody takes added to A and B's level "c" folded into "b".
unused_levels <- function(n = 5000) {
  d <- bnlearn_data("learning.test")[seq_len(n), ]
  d$A <- factor(d$A, levels = c(levels(d$A), "zz"))
  d$B[d$B == "c"] <- "b"
  d
}

test_that("scores with unused levels: bnlearn's, node by node", {
  skip_without_bnlearn()
  d <- unused_levels()
  set.seed(3)
  for (dag in list(bnlearn::hc(droplevels(d)), random_dag(names(d), 0.4))) {
    for (type in c("bde", "k2", "bic", "aic", "loglik")) {
      theirs <- suppressWarnings(bnlearn::score(dag, d, type = type, by.node = TRUE))
      ours <- suppressWarnings(cudag::score(dag, d, type = type, by.node = TRUE))
      expect_equal(ours, theirs, tolerance = 1e-9, info = type)
    }
    # the unused levels change bnlearn's bde and bic: cudag follows, it does not drop them
    expect_false(isTRUE(all.equal(suppressWarnings(cudag::score(dag, d, type = "bic")),
                                  cudag::score(dag, droplevels(d), type = "bic"))))
  }
  cg <- bnlearn_data("clgaussian.test")[1:3000, ]
  cg$A <- factor(cg$A, levels = c(levels(cg$A), "extra"))
  dag <- bnlearn::hc(droplevels(cg))
  for (type in c("bic-cg", "loglik-cg", "aic-cg"))
    expect_equal(suppressWarnings(cudag::score(dag, cg, type = type, by.node = TRUE)),
                 suppressWarnings(bnlearn::score(dag, cg, type = type, by.node = TRUE)), tolerance = 1e-9, info = type)
  expect_warning(cudag::score(dag, cg, type = "bic-cg"), "variable A in the data has levels that are not observed")
})

test_that("tests and pc.stable with unused levels: bnlearn's df, statistics and networks", {
  skip_without_bnlearn()
  d <- unused_levels()
  for (test in c("mi", "x2")) {
    for (q in list(c("A", "B"), c("A", "B", "C"), c("E", "F", "A", "B"))) {
      ours <- suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = test))
      theirs <- suppressWarnings(bnlearn::ci.test(q[1], q[2], q[-(1:2)], data = d, test = test))
      expect_equal(unname(ours$parameter), unname(theirs$parameter))
      expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-10)
      expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-10)
    }
    suppressWarnings(expect_pc_as_bnlearn(d, test = test, alpha = 0.05))
  }
  # a factor whose rows all take one of its two levels: every test of it independent
  e <- bnlearn_data("learning.test")[1:500, ]
  e$F <- factor(rep("a", 500), levels = c("a", "b"))
  suppressWarnings(expect_pc_as_bnlearn(e, test = "mi"))
  cg <- bnlearn_data("clgaussian.test")[1:2000, ]
  cg$B <- factor(cg$B, levels = c(levels(cg$B), "none"))
  suppressWarnings(expect_pc_as_bnlearn(cg, test = "mi-cg"))
})

test_that("boot.strength: resamples keep every level, as bnlearn's data frames", {
  skip_without_bnlearn()
  # 60 rows, B's level "c" in two of them: some resamples miss it (cudag dropped it there before)
  d <- bnlearn_data("learning.test")[1:60, ]
  d$B[d$B == "c"][-(1:2)] <- "a"
  rows <- lapply(0:19, function(r) cudag:::.cudag_resample_rows(nrow(d), r, 1, "bootstrap"))
  expect_true(any(vapply(rows, function(r) any(table(d$B[r]) == 0), TRUE)))
  ours <- suppressWarnings(cudag::boot.strength(d, R = 20, algorithm = "pc.stable", algorithm.args = list(test = "mi"),
                                                seed = 1))
  nets <- lapply(rows, function(r) suppressWarnings(bnlearn_pc(d[r, ], test = "mi")))
  theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
  # (resamples without the level, had they dropped it, differ here by 0.1)
  expect_equal(ours$strength, theirs$strength, tolerance = 1e-12)
  expect_equal(ours$direction, theirs$direction, tolerance = 1e-12)
})
