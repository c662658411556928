# cudag::score against bnlearn 4.9's score() on bnlearn's own data sets (learning.test,
# alarm, insurance, gaussian.test, marks, clgaussian.test) and random DAGs: within 1e-9
# relative, total and by node.

expect_score_as_bnlearn <- function(dag, data, type, ...) {
  ours <- cudag::score(dag, data, type = type, ..., by.node = TRUE)
  theirs <- suppressWarnings(bnlearn::score(dag, data, type = type, ..., by.node = TRUE))  # k non-standard
  expect_equal(ours, theirs, tolerance = 1e-9)
  expect_equal(cudag::score(dag, data, type = type, ...), suppressWarnings(bnlearn::score(dag, data, type = type, ...)),
               tolerance = 1e-9)
}

test_that("discrete scores (bde, k2, bic, aic, loglik) on learning.test, alarm and insurance", {
  skip_without_bnlearn()
  set.seed(1)
  for (name in c("learning.test", "alarm", "insurance")) {
    data <- bnlearn_data(name)
    if (nrow(data) > 5000) data <- data[1:5000, ]
    data <- droplevels(data)
    for (dag in list(bnlearn::empty.graph(names(data)), random_dag(names(data), 0.3))) {
      for (type in c("bde", "k2", "bic", "aic", "loglik")) expect_score_as_bnlearn(dag, data, type)
      expect_score_as_bnlearn(dag, data, "bde", iss = 10)
      expect_score_as_bnlearn(dag, data, "bic", k = 2)
      expect_score_as_bnlearn(dag, data, "aic", k = 0.5)
    }
  }
})

test_that("Gaussian scores (bge, bic-g, aic-g, loglik-g) on gaussian.test, marks and generated data", {
  skip_without_bnlearn()
  set.seed(2)
  sets <- list(bnlearn_data("gaussian.test"), bnlearn_data("marks"), sem_data(random_dag(paste0("V", 1:12), 0.3), 500))
  for (data in sets) {
    for (dag in list(bnlearn::empty.graph(names(data)), random_dag(names(data), 0.5))) {
      for (type in c("bge", "bic-g", "aic-g", "loglik-g")) expect_score_as_bnlearn(dag, data, type)
      expect_score_as_bnlearn(dag, data, "bge", iss.mu = 3, iss.w = ncol(data) + 10)
      expect_score_as_bnlearn(dag, data, "bge", nu = as.numeric(seq_len(ncol(data))))
      expect_score_as_bnlearn(dag, data, "bic-g", k = 1)
    }
  }
})

test_that("conditional Gaussian scores (bic-cg, aic-cg, loglik-cg) on clgaussian.test", {
  skip_without_bnlearn()
  data <- bnlearn_data("clgaussian.test")
  dag <- bnlearn::hc(data)
  for (type in c("bic-cg", "aic-cg", "loglik-cg")) expect_score_as_bnlearn(dag, data, type)
  expect_score_as_bnlearn(bnlearn::empty.graph(names(data)), data, "bic-cg")
  # the default type follows the data, as bnlearn's
  expect_equal(cudag::score(dag, data), bnlearn::score(dag, data), tolerance = 1e-9)
})

test_that("scores cudag lacks, wrong data and non-DAGs are refused in one message", {
  skip_without_bnlearn()
  data <- bnlearn_data("learning.test")
  dag <- bnlearn::hc(data)
  expect_error(cudag::score(dag, data, "fnml"), "not one of cudag's scores: bde, k2, bge")
  expect_error(cudag::score(dag, data, "bdla"), "not one of cudag's scores")
  expect_error(cudag::score(dag, data, "bde", prior = "vsp"), "uniform graph prior")
  expect_error(cudag::score(dag, data, "bde", k = 2), "'k' does not apply")
  expect_error(cudag::score(dag, data, "bge"), "needs continuous data")
  expect_error(cudag::score(bnlearn::cpdag(dag), data, "bde"), "undirected arcs")
  data$A[3] <- NA
  expect_error(cudag::score(dag, data, "bde"), "NA at row 3, column 'A'")
  sub <- bnlearn_data("learning.test")[1:20, ]
  sub$A <- factor(sub$A, levels = c(levels(sub$A), "z"))
  expect_error(cudag::score(dag, sub, "bde"), "factor 'A' has levels no row takes \\(z\\)")
  cg <- bnlearn_data("clgaussian.test")
  bad <- bnlearn::set.arc(bnlearn::empty.graph(names(cg)), "D", "A")
  expect_error(cudag::score(bad, cg, "bic-cg"), "discrete node 'A' has the continuous parent 'D'")
})
