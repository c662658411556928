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
})
