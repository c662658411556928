# bnlearn's mi-cg test on mixed data (factors and numeric columns) through cudag's bnlearn face:
# ci.test statistics, p-values and degrees of freedom against bnlearn 4.9's own, pc.stable's
# skeleton and arcs, and boot.strength on the same resamples. bnlearn computes mi-cg's chain-rule
# form (two factors given numeric columns) in a way that is not symmetric in x and y; PC's
# search runs a pair's tests in bnlearn's order for it (ci/mi_cg.hpp).

# Mixed data: factors of 2-4 levels and numeric columns, each depending on earlier ones; `round`
# rounds the numbers (ties), few rows give small configurations (bnlearn's singular models).
mixed_data <- function(n, p = 7, round = FALSE, seed = 1) {
  set.seed(seed)
  d <- data.frame(row.names = seq_len(n))
  for (j in seq_len(p)) {
    prev <- if (j > 1) as.numeric(d[[j - 1]]) else 0
    if (j %% 2 == 1) {
      lv <- 2 + j %% 3
      v <- (sample.int(lv, n, TRUE) + round(prev) * (stats::runif(n) < 0.5)) %% lv + 1
      d[[paste0("V", j)]] <- factor(letters[v], levels = letters[seq_len(lv)])
    } else {
      x <- stats::rnorm(n) + 0.7 * prev + if (j > 3) 0.5 * as.numeric(d[[j - 3]]) else 0
      d[[paste0("V", j)]] <- if (round) round(x, 1) else x
    }
  }
  droplevels(d)
}

expect_ci_as_bnlearn <- function(x, y, z, data, test = "mi-cg") {
  theirs <- bnlearn::ci.test(x, y, z, data, test = test)
  ours <- cudag::ci.test(x, y, z, data, test = test)
  what <- paste(x, y, paste(z, collapse = ","))
  if (theirs$statistic == 0) expect_equal(unname(ours$statistic), 0, info = what)
  else expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-9, info = what)
  expect_lt(abs(ours$p.value - theirs$p.value), 1e-10)
  expect_identical(ours$parameter[["df"]], theirs$parameter[["df"]], info = what)
  expect_identical(ours$method, theirs$method)
  expect_identical(ours$data.name, theirs$data.name)
}

test_that("ci.test: mi-cg's statistic, p-value and df are bnlearn's on every kind of query", {
  skip_without_bnlearn()
  cg <- bnlearn_data("clgaussian.test")[1:600, ]
  sets <- list(cg, mixed_data(300), mixed_data(45, seed = 2), mixed_data(120, p = 9, round = TRUE, seed = 3))
  kinds <- integer(0)
  for (d in sets) {
    set.seed(5)
    done <- 0
    while (done < 40) {
      v <- sample(names(d), sample(2:min(6, ncol(d)), 1))
      involved <- vapply(d[v], is.factor, TRUE)
      if (all(involved) || !any(involved)) next  # bnlearn takes mi-cg on mixed columns only
      expect_ci_as_bnlearn(v[1], v[2], v[-(1:2)], d)
      kinds <- c(kinds, sum(involved[1:2]))  # 0, 1 or 2 factors among x, y
      done <- done + 1
    }
  }
  expect_true(all(0:2 %in% kinds))
  # the asymmetric case: two factors given a numeric column
  d <- mixed_data(300)
  expect_ci_as_bnlearn("V1", "V3", "V2", d)
  expect_ci_as_bnlearn("V3", "V1", "V2", d)
  expect_gt(abs(cudag::ci.test("V1", "V3", "V2", d)$statistic - cudag::ci.test("V3", "V1", "V2", d)$statistic), 1e-3)
  # the other tests of the face
  lt <- bnlearn_data("learning.test")
  gt <- bnlearn_data("gaussian.test")[1:200, ]
  for (test in c("mi", "x2")) expect_ci_as_bnlearn("A", "B", c("C", "E"), lt, test)
  for (test in c("cor", "zf", "mi-g")) {
    expect_ci_as_bnlearn("A", "F", c("C", "D"), gt, test)
    expect_ci_as_bnlearn("B", "G", character(0), gt, test)
  }
})

test_that("ci.test's other forms: a data frame, and vectors", {
  skip_without_bnlearn()
  gt <- bnlearn_data("gaussian.test")[1:300, ]
  cg <- bnlearn_data("clgaussian.test")[1:300, ]
  same <- function(a, b) {
    expect_equal(unname(a$statistic), unname(b$statistic), tolerance = 1e-9)
    expect_lt(abs(a$p.value - b$p.value), 1e-10)
    expect_identical(a$data.name, b$data.name)
    expect_identical(a$method, b$method)
  }
  same(cudag::ci.test(gt[c("F", "B", "C", "D")]), bnlearn::ci.test(gt[c("F", "B", "C", "D")]))
  same(cudag::ci.test(cg[c("A", "D", "G")]), bnlearn::ci.test(cg[c("A", "D", "G")]))
  same(with(gt, cudag::ci.test(x = F, y = B, z = data.frame(C, D))), with(gt, bnlearn::ci.test(x = F, y = B, z = data.frame(C, D))))
  same(with(gt, cudag::ci.test(x = F, y = B, z = C, test = "zf")), with(gt, bnlearn::ci.test(x = F, y = B, z = C, test = "zf")))
  same(with(gt, cudag::ci.test(F, B)), with(gt, bnlearn::ci.test(F, B)))
  expect_error(cudag::ci.test(gt["A"]), "at least two columns")
  expect_error(cudag::ci.test("A", "B"), "'data' is missing")
})

test_that("ci.test refuses what bnlearn refuses, and a statistic that is not finite", {
  skip_without_bnlearn()
  cg <- bnlearn_data("clgaussian.test")[1:300, ]
  expect_error(cudag::ci.test("D", "E", "G", cg, test = "mi-cg"), "needs mixed data")
  expect_error(bnlearn::ci.test("D", "E", "G", cg, test = "mi-cg"), "mixture")
  expect_error(cudag::ci.test("A", "D", "A", cg), "differ from 'x' and 'y'")
  expect_error(cudag::ci.test("A", "Q", character(0), cg), "'y' must be")
  expect_error(cudag::ci.test("A", "D", "B", cg, B = 100), "not permutation tests")
  expect_error(cudag::ci.test("A", "D", "B", cg, test = "mc-mi"), "not one of cudag's tests")
  expect_identical(names(cudag::ci.test("A", "D", "B", cg)$statistic), "mi-cg")  # the default on mixed columns
  # a level with a single row: bnlearn's density at that row is infinite (p = 0); cudag: an error
  one <- cg
  one$A <- factor(c("x", rep(c("y", "z"), length.out = nrow(cg) - 1)))
  expect_equal(bnlearn::ci.test("A", "D", character(0), one, test = "mi-cg")$p.value, 0)
  expect_error(cudag::ci.test("A", "D", character(0), one), "not finite")
})

test_that("pc.stable on mixed data: mi-cg by default, bnlearn's skeleton and arcs", {
  skip_without_bnlearn()
  cg <- bnlearn_data("clgaussian.test")
  expect_identical(cudag::pc.stable(cg[1:500, ])$learning$test, "mi-cg")
  conflicts <- 0
  cases <- list(list(cg, 0.01), list(cg[1:400, ], 0.05), list(mixed_data(400), 0.05), list(mixed_data(60, seed = 4), 0.05),
                list(mixed_data(150, p = 9, round = TRUE, seed = 6), 0.01), list(mixed_data(800, p = 8, seed = 8), 0.01))
  for (case in cases) conflicts <- conflicts + (expect_pc_as_bnlearn(case[[1]], alpha = case[[2]]) > 0)
  expect_gte(conflicts, 1)  # conflicting v-structures (the blacklist makes them common), as bnlearn settles them
  # no arc from a numeric column into a factor (bnlearn's conditional linear Gaussian networks)
  g <- cudag::pc.stable(cg)
  directed <- g$arcs[!paste(g$arcs[, 1], g$arcs[, 2]) %in% paste(g$arcs[, 2], g$arcs[, 1]), , drop = FALSE]
  expect_false(any(!vapply(cg[directed[, 1]], is.factor, TRUE) & vapply(cg[directed[, 2]], is.factor, TRUE)))
  expect_error(cudag::pc.stable(bnlearn_data("learning.test"), test = "mi-cg"), "needs mixed data")
  expect_error(cudag::pc.stable(cg, test = "zf"), "needs continuous data")
})

test_that("boot.strength on mixed data: bnlearn's pc.stable networks on the same resamples", {
  skip_without_bnlearn()
  d <- bnlearn_data("clgaussian.test")[1:1500, ]
  ours <- cudag::boot.strength(d, R = 10, algorithm = "pc.stable", seed = 5)
  rows <- lapply(0:9, function(r) cudag:::.cudag_resample_rows(nrow(d), r, 5, "bootstrap"))
  nets <- lapply(rows, function(r) bnlearn_pc(d[r, ]))
  theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
  expect_equal(ours$strength, theirs$strength, tolerance = 1e-12)
  expect_equal(ours$direction, theirs$direction, tolerance = 1e-12)
})
