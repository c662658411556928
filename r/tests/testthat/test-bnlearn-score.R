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
  sub$A <- factor(sub$A, levels = c(levels(sub$A), "z"))  # counted, as bnlearn counts it
  expect_warning(cudag::score(dag, sub, "bde"), "variable A in the data has levels that are not observed")
  cg <- bnlearn_data("clgaussian.test")
  bad <- bnlearn::set.arc(bnlearn::empty.graph(names(cg)), "D", "A")
  expect_error(cudag::score(bad, cg, "bic-cg"), "discrete node 'A' has the continuous parent 'D'")
})

test_that("settings not given come from the network's learning$args, as bnlearn's", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  # bde: learned with iss = 10, scored without iss
  dag <- bnlearn::hc(lt, score = "bde", iss = 10)
  expect_equal(cudag::score(dag, lt, "bde"), bnlearn::score(dag, lt, "bde"), tolerance = 1e-9)
  expect_equal(cudag::score(dag, lt, "bde"), cudag::score(dag, lt, "bde", iss = 10), tolerance = 1e-12)
  expect_equal(cudag::score(dag, lt, "bde", iss = 1), bnlearn::score(dag, lt, "bde", iss = 1), tolerance = 1e-9)
  # bic: the penalty of the rows it was learned on, only for the score it was learned with
  dag <- bnlearn::hc(lt, score = "bic")
  test <- lt[1:200, ]
  expect_equal(cudag::score(dag, test, "bic"), bnlearn::score(dag, test, "bic"), tolerance = 1e-9)
  expect_equal(cudag::score(dag, test, "bic"), cudag::score(dag, test, "bic", k = log(5000) / 2), tolerance = 1e-12)
  expect_equal(cudag::score(dag, test, "aic"), bnlearn::score(dag, test, "aic"), tolerance = 1e-9)
  # bge: iss.w and nu of the learning data
  gt <- bnlearn_data("gaussian.test")
  dag <- bnlearn::hc(gt, score = "bge", iss.w = 20)
  expect_equal(cudag::score(dag, gt[1:500, ], "bge"), bnlearn::score(dag, gt[1:500, ], "bge"), tolerance = 1e-9)
  dag <- bnlearn::hc(gt, score = "bic-g")
  expect_equal(cudag::score(dag, gt[1:300, ], "bic-g"), bnlearn::score(dag, gt[1:300, ], "bic-g"), tolerance = 1e-9)
  # cudag's mcmc keeps its settings the same way: bnlearn's score of its DAG on other rows
  fit <- cudag::mcmc(lt[1:1000, ], "bde", iss = 5, iterations = 2000, chains = 2, seed = 3)
  expect_equal(fit$dag$learning$args$iss, 5)
  expect_equal(cudag::score(fit$dag, lt[1001:2000, ], "bde"), bnlearn::score(fit$dag, lt[1001:2000, ], "bde"),
               tolerance = 1e-9)
})

test_that("what bnlearn refuses or cannot score is an error naming it", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")[1:50, ]
  lt$K <- factor(rep("only", 50))
  g <- bnlearn::empty.graph(names(lt))
  expect_error(cudag::score(g, lt, "bic"), "factor 'K' has a single level \\('only'\\)")
  expect_error(cudag::pc.stable(lt), "factor 'K' has a single level")
  li <- bnlearn_data("learning.test")[1:50, ]
  li$A <- as.integer(li$A)
  expect_error(cudag::score(bnlearn::empty.graph(names(li)), li, "bde"), "column 'A' is integer")
  gt <- bnlearn_data("gaussian.test")
  expect_error(cudag::score(bnlearn::empty.graph(names(gt)), gt, "bic-g", k = 0), "k must be one positive number")
  expect_error(cudag::pc.stable(gt, alpha = 0), "alpha must be one number in \\(0, 1\\)")
  expect_error(cudag::pc.stable(gt, alpha = 1), "alpha must be one number in \\(0, 1\\)")
  # fewer rows than coefficients: bnlearn's -Inf, an error here (never NaN)
  two <- bnlearn::model2network("[A][B][C|A:B][D][E][F][G]")
  expect_error(cudag::score(two, gt[1:2, ], "bic-g"), "node 'C' has 2 rows for 3 regression coefficients")
  expect_identical(bnlearn::score(two, gt[1:2, ], "bic-g"), -Inf)
  cg <- droplevels(bnlearn_data("clgaussian.test")[1:20, ])
  g2 <- bnlearn::model2network("[A][B][C][D][E][F][H][G|A:D:E]")
  expect_error(cudag::score(g2, cg, "bic-cg"), "node 'G' has 2 rows in a configuration of its discrete parents")
  const <- gt[1:100, ]
  const$A <- 1
  expect_error(cudag::score(bnlearn::empty.graph(names(const)), const, "bic-g"), "^score \"bic-g\": .*singular")
})
