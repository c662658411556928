# cudag::mcmc with bnlearn's score names: the MAP DAG's score as bnlearn::score gives it, and
# the sum-mode edge posteriors against the exact order-modular posteriors computed in R from
# bnlearn's local scores (all 24 orders of 4 variables).

# P(a --> b) from a bn.strength (strength x direction).
arc_prob <- function(s, nodes) {
  m <- matrix(0, length(nodes), length(nodes), dimnames = list(nodes, nodes))
  m[cbind(s$from, s$to)] <- s$strength * s$direction
  m
}

test_that("the MAP DAG is a bn whose bnlearn score is the reported one (bde, k2, bge)", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  gt <- bnlearn_data("gaussian.test")
  for (case in list(list(lt, "bde", list(iss = 5)), list(lt, "k2", list()), list(gt, "bge", list(iss.mu = 2)))) {
    r <- do.call(cudag::mcmc, c(list(case[[1]], case[[2]]), case[[3]], list(iterations = 2000, threads = 2)))
    expect_s3_class(r$dag, "bn")
    expect_s3_class(r$strength, "bn.strength")
    expect_equal(r$score, do.call(bnlearn::score, c(list(r$dag, case[[1]], type = case[[2]]), case[[3]])),
                 tolerance = 1e-9)
    # bnlearn's averaging takes the posteriors
    expect_s3_class(bnlearn::averaged.network(r$strength), "bn")
  }
  # the BIC family (cudag's cg-bic), the score as bnlearn's; --space pc with its alpha
  cg <- bnlearn_data("clgaussian.test")[1:2000, ]
  for (case in list(list(lt, "bic"), list(gt, "bic-g"), list(cg, "bic-cg"))) {
    r <- cudag::mcmc(case[[1]], case[[2]], iterations = 1000, threads = 2, space = "pc", alpha = 0.01)
    expect_equal(r$score, bnlearn::score(r$dag, case[[1]], type = case[[2]]), tolerance = 1e-9)
  }
  # learning.test comes from [A][C][F][B|A][D|A:C][E|B:F] (bnlearn's documentation): its skeleton
  r <- cudag::mcmc(lt, "bde", iterations = 2000, threads = 2)
  expect_identical(skeleton_pairs(r$dag), c("A~B", "A~D", "B~E", "C~D", "E~F"))
})

test_that("sum-mode edge posteriors equal the exact order posteriors within 0.03", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")[1:150, c("A", "B", "C", "D")]
  r <- cudag::mcmc(lt, "bde", order.score = "sum", iterations = 20000, threads = 2)
  expect_lt(max(abs(arc_prob(r$strength, names(lt)) - exact_order_posterior(lt, "bde", iss = 1))), 0.03)
  r <- cudag::mcmc(lt, "k2", order.score = "sum", iterations = 20000, threads = 2, seed = 3)
  expect_lt(max(abs(arc_prob(r$strength, names(lt)) - exact_order_posterior(lt, "k2"))), 0.03)
  set.seed(4)
  g <- sem_data(random_dag(paste0("X", 1:4), 0.6), 60)
  r <- cudag::mcmc(g, "bge", order.score = "sum", iterations = 20000, threads = 2)
  expect_lt(max(abs(arc_prob(r$strength, names(g)) - exact_order_posterior(g, "bge"))), 0.03)
})

test_that("without bnlearn's classes: plain lists; bad input refused", {
  skip_without_bnlearn()
  lt <- bnlearn_data("learning.test")
  old <- options(cudag.bnlearn = FALSE)
  on.exit(options(old))
  r <- cudag::mcmc(lt, "bde", iterations = 500, threads = 2)
  expect_s3_class(r$dag, "cudag_bn")
  expect_false(inherits(r$strength, "bn.strength"))
  expect_equal(nrow(r$strength), 30)
  options(old)
  expect_error(cudag::mcmc(lt, "bge"), "needs continuous data")
  expect_error(cudag::mcmc(lt, "bde", iss.mu = 2), "'iss.mu' does not apply")
  expect_error(cudag::mcmc(lt, "bde", iterations = 0), "iterations must be a whole number >= 1")
  expect_error(cudag::mcmc(lt, "loglik"), "'arg' should be one of")
})
