# bnlearn's discrete tests with adjusted degrees of freedom, mi-adf and x2-adf (the levels of
# x and y each stratum holds count, and fewer than 5 rows a cell of the declared table leave
# a test independent with statistic 0), and its shrinkage test mi-sh. Against bnlearn 4.9 on
# the same data frames, complete, with NA and with levels no row takes.

adf_cases <- function() {
  lt <- bnlearn_data("learning.test")
  al <- bnlearn_data("alarm")
  holes <- lt[1:800, ]
  set.seed(5)
  for (j in seq_along(holes)) holes[[j]][stats::runif(nrow(holes)) < 0.1] <- NA
  unused <- lt[1:400, ]
  unused$A <- factor(unused$A, levels = c(levels(unused$A), "zz"))
  list(small = lt[1:60, ], large = lt, alarm = al[1:2000, c("HR", "HRBP", "HRSA", "CO", "CCHL", "TPR", "BP")],
       holes = holes, unused = unused)
}

test_that("ci.test mi-adf and x2-adf: bnlearn's statistic, df and p-value", {
  skip_without_bnlearn()
  hits <- 0
  for (name in names(adf_cases())) {
    d <- adf_cases()[[name]]
    v <- names(d)
    for (q in list(v[1:2], v[1:3], v[c(2, 4, 1, 3)], v[c(5, 6, 1)])) {
      for (test in c("mi-adf", "x2-adf")) {
        theirs <- suppressWarnings(bnlearn::ci.test(q[1], q[2], q[-(1:2)], data = d, test = test))
        ours <- suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = test))
        info <- paste(name, test, paste(q, collapse = " "))
        expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-9, info = info)
        expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-9, info = info)
        expect_equal(unname(ours$parameter), unname(theirs$parameter), info = info)
        expect_identical(ours$method, theirs$method)
        hits <- hits + (theirs$statistic == 0)
      }
    }
  }
  expect_gt(hits, 0)  # the rule of 5 rows a cell was met
  # the adjusted df differs from mi's where a stratum lacks a level
  d <- adf_cases()$small
  expect_lt(unname(cudag::ci.test("A", "B", c("C", "D"), data = d, test = "mi-adf")$parameter),
            unname(cudag::ci.test("A", "B", c("C", "D"), data = d, test = "mi")$parameter))
})

test_that("pc.stable and boot.strength with mi-adf / x2-adf: bnlearn's networks", {
  skip_without_bnlearn()
  differ <- 0
  for (name in names(adf_cases())) {
    d <- adf_cases()[[name]]
    for (test in c("mi-adf", "x2-adf")) {
      for (alpha in c(0.01, 0.05)) {
        theirs <- suppressWarnings(bnlearn::pc.stable(d, test = test, alpha = alpha))
        ours <- suppressWarnings(cudag::pc.stable(d, test = test, alpha = alpha))
        expect_equal(bnlearn::arcs(ours), bnlearn::arcs(theirs), info = paste(name, test, alpha))
        mi <- suppressWarnings(cudag::pc.stable(d, test = sub("-adf", "", test), alpha = alpha))
        differ <- differ + !isTRUE(all.equal(bnlearn::arcs(mi), bnlearn::arcs(ours)))
      }
    }
  }
  expect_gt(differ, 0)  # the adjusted tests learn other networks than mi / x2 somewhere
  s <- cudag::boot.strength(adf_cases()$large, R = 5, algorithm = "pc.stable",
                            algorithm.args = list(test = "mi-adf"))
  expect_s3_class(s, "bn.strength")
  expect_true(all(s$strength >= 0 & s$strength <= 1))
})

test_that("mi-adf and x2-adf refuse numeric data in R terms", {
  d <- data.frame(a = stats::rnorm(50), b = stats::rnorm(50))
  expect_error(cudag::ci.test("a", "b", data = d, test = "mi-adf"), "needs discrete data")
  expect_error(cudag::pc.stable(d, test = "x2-adf"), "needs discrete data")
})

test_that("mi-sh: bnlearn's shrinkage statistic, df, p-value and networks", {
  skip_without_bnlearn()
  for (name in names(adf_cases())) {
    d <- adf_cases()[[name]]
    v <- names(d)
    for (q in list(v[1:2], v[1:3], v[c(2, 4, 1, 3)], v[c(5, 6, 1)])) {
      theirs <- suppressWarnings(bnlearn::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-sh"))
      ours <- suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-sh"))
      info <- paste(name, paste(q, collapse = " "))
      expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-9, info = info)
      expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-9, info = info)
      expect_equal(unname(ours$parameter), unname(theirs$parameter), info = info)
      expect_identical(ours$method, theirs$method)
    }
    theirs <- suppressWarnings(bnlearn::pc.stable(d, test = "mi-sh", alpha = 0.05))
    ours <- suppressWarnings(cudag::pc.stable(d, test = "mi-sh", alpha = 0.05))
    expect_equal(bnlearn::arcs(ours), bnlearn::arcs(theirs), info = name)
  }
  # shrinkage moves the statistic away from mi's G² on few rows
  d <- adf_cases()$small
  expect_false(isTRUE(all.equal(cudag::ci.test("A", "B", "C", data = d, test = "mi-sh")$statistic,
                                cudag::ci.test("A", "B", "C", data = d, test = "mi")$statistic, check.attributes = FALSE)))
  expect_error(cudag::pc.stable(d, test = "mi-sh", backend = "cuda"), "CPU only")
})

test_that("mi-g-sh: bnlearn's shrinkage Gaussian test, statistic, p-value and networks", {
  skip_without_bnlearn()
  g <- bnlearn_data("gaussian.test")
  for (n in c(12, 60, 2000)) {
    d <- g[seq_len(n), ]
    v <- names(d)
    for (q in list(v[1:2], v[c(1, 2, 3)], v[c(2, 5, 1, 3, 4)], v[c(6, 7, 2)])) {
      theirs <- suppressWarnings(bnlearn::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-g-sh"))
      ours <- suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-g-sh"))
      info <- paste(n, paste(q, collapse = " "))
      expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-9, info = info)
      expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-9, info = info)
      expect_equal(unname(ours$parameter), unname(theirs$parameter), info = info)
      expect_identical(ours$method, theirs$method)
    }
    theirs <- suppressWarnings(bnlearn::pc.stable(d, test = "mi-g-sh"))
    expect_equal(bnlearn::arcs(suppressWarnings(cudag::pc.stable(d, test = "mi-g-sh"))), bnlearn::arcs(theirs),
                 info = n)
  }
  expect_error(cudag::pc.stable(bnlearn_data("learning.test"), test = "mi-g-sh"), "needs continuous data")
})

test_that("mi-g-sh with NA: each test on its locally complete rows, as bnlearn's", {
  skip_without_bnlearn()
  g <- bnlearn_data("gaussian.test")
  set.seed(58)
  compared <- 0
  for (rep in 1:12) {
    n <- c(15, 40, 200)[rep %% 3 + 1]
    d <- g[sample(nrow(g), n), ]
    for (j in seq_along(d)) d[[j]][runif(n) < 0.1] <- NA
    v <- names(d)
    for (k in 0:3) {
      q <- sample(v, k + 2)
      rows <- sum(stats::complete.cases(d[, q]))
      if (rows < 3) next  # two rows given S: refused below
      theirs <- suppressWarnings(bnlearn::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-g-sh"))
      ours <- suppressWarnings(cudag::ci.test(q[1], q[2], q[-(1:2)], data = d, test = "mi-g-sh"))
      info <- paste(rep, n, paste(q, collapse = " "))
      expect_equal(unname(ours$statistic), unname(theirs$statistic), tolerance = 1e-9, info = info)
      expect_equal(ours$p.value, theirs$p.value, tolerance = 1e-9, info = info)
      compared <- compared + 1
    }
  }
  expect_gt(compared, 40)
  # Two complete rows: marginally bnlearn's -0 and p = 1; given S the partial correlation is
  # 0/0 (bnlearn answers with an infinite statistic): refused in one line.
  d <- g[1:6, ]
  d$A[3:6] <- NA
  m <- suppressWarnings(cudag::ci.test("A", "B", data = d, test = "mi-g-sh"))
  expect_equal(unname(m$statistic), 0)
  expect_equal(m$p.value, 1)
  expect_error(cudag::ci.test("A", "B", "C", data = d, test = "mi-g-sh"), "on 2 rows: the partial correlation is undefined")
})
