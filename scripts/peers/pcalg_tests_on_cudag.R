# SPDX-License-Identifier: Apache-2.0
# pcalg's own test scripts for pc / fci / rfci (tests/test_pc.R, test_fci.R, test_rfci.R of
# pcalg's source archive, never copied into the project) run with cudag's pc, skeleton, fci
# and rfci in their place: cudag is attached after pcalg, so the scripts' unqualified calls
# reach cudag. Each top-level expression runs on its own (a pcalg test stops at its first
# failure), in file order in one environment; it counts as passed, failed, or refused (a
# cudag error saying what it does not support: u2pd "rand", a user's indepTest, ...).
#   R_LIBS=build-r/Rlib Rscript scripts/peers/pcalg_tests_on_cudag.R [pcalg_2.7-12.tar.gz]
# Environment: R_pcalg_check_extra=1 runs pcalg's extra tests (doExtras) too.
args <- commandArgs(trailingOnly = TRUE)
tarball <- if (length(args)) args[1] else "/work/shared/peers/pcalg_2.7-12.tar.gz"
src <- tempfile("pcalg-src")
dir.create(src)
utils::untar(tarball, exdir = src, files = file.path("pcalg/tests", c("test_pc.R", "test_fci.R", "test_rfci.R")))
suppressPackageStartupMessages({ library(pcalg); library(cudag) })
stopifnot(identical(environment(pc), asNamespace("cudag")))
total <- c(passed = 0, failed = 0, refused = 0)
for (f in list.files(file.path(src, "pcalg/tests"), full.names = TRUE)) {
  exprs <- parse(f, keep.source = FALSE)
  env <- new.env(parent = globalenv())
  counts <- c(passed = 0, failed = 0, refused = 0)
  for (e in exprs) {
    calls_learner <- any(all.names(e) %in% c("pc", "fci", "rfci", "skeleton"))
    outcome <- tryCatch({
      utils::capture.output(suppressWarnings(eval(e, env)))
      "passed"
    }, error = function(err) {
      msg <- conditionMessage(err)
      if (grepl("not supported|indepTest: cudag runs|only", msg)) {
        if (calls_learner) cat(basename(f), " refused: ", msg, "\n", sep = "")
        "refused"
      } else {
        if (calls_learner) cat(basename(f), ": ", deparse(e, nlines = 1)[1], "\n    ", msg, "\n", sep = "")
        "failed"
      }
    })
    if (calls_learner) counts[outcome] <- counts[outcome] + 1
  }
  cat(sprintf("%-12s expressions calling pc/skeleton/fci/rfci: %d passed, %d failed, %d refused\n",
              basename(f), counts[["passed"]], counts[["failed"]], counts[["refused"]]))
  total <- total + counts
}
cat(sprintf("pcalg's tests on cudag: %d passed, %d failed, %d refused\n", total[["passed"]], total[["failed"]],
            total[["refused"]]))
unlink(src, recursive = TRUE)
