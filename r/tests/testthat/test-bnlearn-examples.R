# bnlearn's documentation examples (bnlearn 4.9 ships no tests) run twice by
# scripts/peers/bnlearn_examples_on_cudag.R, once with bnlearn's score / pc.stable /
# boot.strength and once with cudag's: every value they compute must agree (the \dontrun
# sections left out: they are slow, or need packages such as ROCR). Runs from a checkout
# only (the script is not part of the package).

test_that("bnlearn's examples give bnlearn's values with cudag's faces", {
  skip_without_bnlearn()
  script <- normalizePath(file.path(testthat::test_path(), "..", "..", "..", "scripts", "peers",
                                    "bnlearn_examples_on_cudag.R"), mustWork = FALSE)
  skip_if_not(file.exists(script), "scripts/peers/bnlearn_examples_on_cudag.R (a checkout's tests only)")
  lib <- dirname(find.package("cudag"))
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c(shQuote(script), "--no-dontrun", "--quiet"),
                                  stdout = TRUE, stderr = FALSE,
                                  env = paste0("R_LIBS=", paste(c(lib, .libPaths()), collapse = ":"))))
  expect_null(attr(out, "status"))
  total <- grep("^bnlearn's examples on cudag:", out, value = TRUE)
  expect_length(total, 1)
  n <- as.integer(regmatches(total, gregexpr("[0-9]+", total))[[1]])
  names(n) <- c("ran", "cudag", "equal", "differ", "refused", "failed", "uncompared")
  expect_equal(n[["differ"]], 0)
  expect_equal(n[["failed"]], 0)
  expect_equal(n[["equal"]], n[["ran"]])
  expect_gt(n[["cudag"]], 30)  # expressions on cudag's pc.stable networks and scores
  # the refusals: score's prior = "cs" and type = "custom", each saying why
  refused <- grep("^  refused ", out)
  expect_length(refused, n[["refused"]])
  expect_match(out[refused + 1], "not supported|not one of cudag's scores")
})
