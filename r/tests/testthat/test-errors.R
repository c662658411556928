# Bad input gives one R error naming what is wrong (never a crash of the session).

x <- matrix(c(1, 2, 3, 5, 4, 6, 8, 7, 9, 10, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9), 10, 2)

test_that("a user's own indepTest is refused in one message", {
  expect_error(cudag::pc(list(data = x), function(x, y, S, suffStat) 0.5, alpha = 0.01, p = 2),
               "an R function of your own cannot run inside cudag")
})

test_that("u2pd = 'rand', solve.confl and skel.method 'original' are refused", {
  expect_error(cudag::pc(list(data = x), "gaussCItest", alpha = 0.01, p = 2, u2pd = "rand"), "not supported")
  expect_error(cudag::pc(list(data = x), "gaussCItest", alpha = 0.01, p = 2, solve.confl = TRUE), "not supported")
  expect_error(cudag::pc(list(data = x), "gaussCItest", alpha = 0.01, p = 2, skel.method = "original"),
               "not supported")
})

test_that("a factor column under gaussCItest and NA in the data are R errors", {
  df <- data.frame(a = x[, 1], b = factor(x[, 2]))
  expect_error(cudag::pc(list(data = df), "gaussCItest", alpha = 0.01, p = 2), "column 'b' is factor")
  y <- x
  y[3, 2] <- NA
  expect_error(cudag::pc(list(data = y), "gaussCItest", alpha = 0.01, p = 2), "NA at row 3, column 2")
  expect_error(cudag::pc(list(C = diag(3), n = 10), "gaussCItest", alpha = 0.01, p = 2), "labels for 3 variables")
  # A non-finite entry of a given C: the first in (row, column) order named, 1-based.
  cm <- diag(70)
  cm[66, 2] <- NaN
  cm[3, 69] <- Inf
  expect_error(cudag::pc(list(C = cm, n = 10), "gaussCItest", alpha = 0.01, p = 70),
               "suffStat\\$C holds a non-finite value at \\[3, 69\\]")
  expect_error(cudag::pc(list(data = x), "gaussCItest", alpha = 2, p = 2), "alpha")
  # discrete data: the NA named before nlev is checked against the levels
  dm <- matrix(c(0, 1, 0, 1, 1, 0, 0, 1), 4, 2)
  dm[2, 2] <- NA
  expect_error(cudag::pc(list(dm = dm, nlev = c(2, 2), adaptDF = FALSE), "disCItest", alpha = 0.01, p = 2),
               "suffStat\\$dm: NA at row 2, column 2")
})

test_that("fci and rfci: bad list(C, n), data and indepTest are one-line R errors naming what", {
  C <- cor(cbind(x, x[, 1] + rev(x[, 2])))
  cn <- list(C = C, n = 10)
  for (f in c("fci", "rfci")) {
    learner <- getExportedValue("cudag", f)
    run <- function(suffStat, indepTest = "gaussCItest", ...) learner(suffStat, indepTest, alpha = 0.01, p = 3, ...)
    expect_one_line <- function(expr, pattern) {
      err <- expect_error(expr, pattern)
      expect_false(grepl("\n", conditionMessage(err)))
    }
    df <- as.data.frame(C)
    df[[2]] <- factor(df[[2]])
    expect_one_line(run(list(C = df, n = 10)), "suffStat\\$C: column 'V2' is factor, not numeric")
    expect_one_line(run(list(data = data.frame(a = x[, 1], b = factor(x[, 2]), c = x[, 1]))),
                    "suffStat\\$data: column 'b' is factor, not numeric: gaussCItest needs numbers")
    bad <- C
    bad[2, 3] <- NA
    expect_one_line(run(list(C = bad, n = 10)), "suffStat\\$C holds a non-finite value at \\[2, 3\\]")
    y <- cbind(x, x[, 1])
    y[4, 3] <- NA
    expect_one_line(run(list(data = y)), "NA at row 4, column 3")
    expect_one_line(run(list(C = C, n = NA)), "suffStat\\$n must be the sample size")
    expect_one_line(run(list(C = C, n = NA_real_)), "suffStat\\$n must be a positive whole number")
    expect_one_line(run(list(C = C)), "suffStat\\$n must be the sample size")
    expect_one_line(run(list(C = C[1:2, ], n = 10)), "suffStat\\$C must be a 3 x 3 matrix")
    expect_one_line(run(list(C = matrix("a", 3, 3), n = 10)), "suffStat\\$C must be a numeric matrix")
    expect_one_line(run(cn, function(x, y, S, suffStat) 0.5),
                    paste0("an R function of your own cannot run inside cudag: use pcalg::", f, " for it"))
    expect_one_line(run(cn, "partialCorTest"), "indepTest: .*\"partialCorTest\" is not a test cudag knows")
    expect_one_line(run(cn, 3), "indepTest: .*a numeric is neither a test function nor a test's name")
    expect_one_line(run(cn, "disCItest"), "suffStat\\$dm: disCItest needs list\\(dm = ")
    expect_one_line(run(cn, "cmiknnCItest"), "suffStat: cmiknnCItest needs the data")
    expect_one_line(run(cn, backend = "cuda"), "a given correlation matrix runs on the CPU")
    expect_one_line(run(list(C = C, n = 2)), "suffStat: 2 samples; Fisher-z needs at least 3")
  }
})

test_that("another of pcalg's functions as indepTest is named in the error", {
  skip_if_not_installed("pcalg")
  for (f in c("pc", "fci", "rfci"))
    expect_error(getExportedValue("cudag", f)(list(C = diag(3), n = 10), pcalg::dsepTest, alpha = 0.01, p = 3),
                 paste0("pcalg::dsepTest is not one of them: use pcalg::", f, " for it"))
})

test_that("m.max and pdsep.max: Inf or a whole number >= 0; labels distinct; jci and contextVars", {
  skip_without_pcalg()
  ss <- gmg8_case()$ss
  for (bad in list(-1, -Inf, 1.5, NA_real_, "2"))
    expect_error(cudag::pc(ss, "gaussCItest", alpha = 0.01, p = 8, m.max = bad), "m.max must be Inf or a whole number")
  expect_error(cudag::fci(ss, "gaussCItest", alpha = 0.01, p = 8, pdsep.max = -1),
               "pdsep.max must be Inf or a whole number")
  expect_error(cudag::pc(ss, "gaussCItest", alpha = 0.01, labels = c("a", "b", "a", letters[4:8])),
               "labels must be distinct: 'a' is given twice")
  expect_error(cudag::fci(ss, "gaussCItest", alpha = 0.01, p = 8, jci = "12"), "jci = \"12\" is not supported")
  expect_error(cudag::fci(ss, "gaussCItest", alpha = 0.01, p = 8, contextVars = 1), "contextVars is not supported")
  expect_s4_class(cudag::fci(ss, "gaussCItest", alpha = 0.01, p = 8, jci = "0"), "fciAlgo")
})

test_that("a pair in both fixedGaps and fixedEdges is a gap, as in pcalg", {
  skip_without_pcalg()
  ss <- gmg8_case()$ss
  gaps <- edges <- matrix(FALSE, 8, 8)
  gaps[1, 2] <- gaps[2, 1] <- edges[1, 2] <- edges[2, 1] <- TRUE
  edges[3, 7] <- edges[7, 3] <- TRUE
  expect_pc_as_pcalg(ss, pcalg::gaussCItest, alpha = 0.01, p = 8, fixedGaps = gaps, fixedEdges = edges)
})

test_that("the library's messages name pcalg's arguments, not command-line options", {
  skip_without_pcalg()
  set.seed(3)
  x <- matrix(stats::rnorm(5 * 6), 5, 6)
  e <- tryCatch(cudag::pc(list(data = x), "gaussCItest", alpha = 0.9, p = 6, m.max = 4), error = conditionMessage)
  expect_match(e, "too few for m.max = 4 .*give m.max = 2 or less")
  expect_false(grepl("--", e, fixed = TRUE))
  b <- pcalg_example("gmB")$gmB$x[1:200, ]
  b[, 2] <- 0
  e <- tryCatch(cudag::pc(list(dm = b, adaptDF = FALSE), pcalg::binCItest, alpha = 0.01, p = ncol(b)),
                error = conditionMessage)
  expect_match(e, "^suffStat\\$dm: variable '2'")
  expect_false(grepl("--dof", e, fixed = TRUE))
})
