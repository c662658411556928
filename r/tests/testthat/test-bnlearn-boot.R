# cudag::boot.strength against bnlearn 4.9: on the very resamples cudag draws (its
# replicates' rows, keyed by seed), bnlearn's pc.stable networks counted by bnlearn's
# custom.strength give the same strengths; against bnlearn's own boot.strength (other
# resamples) the strengths agree statistically.

resamples <- function(n, R, seed) lapply(seq_len(R) - 1, function(r) cudag:::.cudag_resample_rows(n, r, seed, "bootstrap"))

test_that("pc.stable: the strengths of bnlearn's networks on cudag's resamples", {
  skip_without_bnlearn()
  for (case in list(list("learning.test", "mi"), list("gaussian.test", "zf"))) {
    d <- bnlearn_data(case[[1]])
    ours <- cudag::boot.strength(d, R = 20, algorithm = "pc.stable", algorithm.args = list(test = case[[2]]), seed = 7)
    expect_s3_class(ours, "bn.strength")
    nets <- lapply(resamples(nrow(d), 20, 7), function(rows) bnlearn_pc(d[rows, ], test = case[[2]]))
    theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
    expect_equal(ours$from, theirs$from)
    expect_equal(ours$to, theirs$to)
    expect_equal(ours$strength, theirs$strength, tolerance = 1e-12)
    # directions too: cudag orients as bnlearn's learn.arc.directions (conflicts included)
    expect_equal(ours$direction, theirs$direction, tolerance = 1e-12)
    expect_equal(attr(ours, "threshold"), attr(theirs, "threshold"))
  }
  # undirected = TRUE: the skeletons' strengths, every adjacency half each way
  d <- bnlearn_data("learning.test")
  skel <- cudag::boot.strength(d, R = 10, algorithm.args = list(undirected = TRUE), seed = 3)
  nets <- lapply(resamples(nrow(d), 10, 3), function(rows) bnlearn_pc(d[rows, ], test = "mi", undirected = TRUE))
  theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
  expect_equal(skel$strength, theirs$strength, tolerance = 1e-12)
  expect_equal(skel$direction, theirs$direction, tolerance = 1e-12)
})

test_that("mcmc: each replicate is cudag::mcmc on its resample, counted as bnlearn counts", {
  skip_without_bnlearn()
  d <- bnlearn_data("learning.test")[1:1000, ]
  args <- list(score = "bde", iterations = 500, chains = 2)
  ours <- cudag::boot.strength(d, R = 8, algorithm = "mcmc", algorithm.args = args, cpdag = FALSE, seed = 9)
  nets <- lapply(resamples(nrow(d), 8, 9), function(rows)
    cudag::mcmc(d[rows, ], "bde", iterations = 500, chains = 2, seed = 9)$dag)  # seed keys resamples and chains
  theirs <- bnlearn::custom.strength(nets, names(d), cpdag = FALSE)
  expect_equal(ours$strength, theirs$strength, tolerance = 1e-12)
  expect_equal(ours$direction, theirs$direction, tolerance = 1e-12)
  expect_error(cudag::boot.strength(d, R = 2, algorithm = "mcmc"), "give cpdag = FALSE")
  expect_error(cudag::boot.strength(d, R = 2, algorithm = "mcmc", algorithm.args = list(seed = 1), cpdag = FALSE),
               "boot.strength's seed")
})

test_that("against bnlearn's own boot.strength (other resamples): strengths within sampling error", {
  skip_without_bnlearn()
  d <- bnlearn_data("learning.test")
  set.seed(11)
  theirs <- suppressWarnings(  # bnlearn notes its conflicting v-structures
    bnlearn::boot.strength(d, R = 60, algorithm = "pc.stable", algorithm.args = list(test = "mi")))
  ours <- cudag::boot.strength(d, R = 60, algorithm = "pc.stable", seed = 11)
  # two estimates of one frequency from 60 resamples each: sd of the difference <= 0.092
  expect_lt(max(abs(ours$strength - theirs$strength)), 0.3)
  expect_gt(stats::cor(ours$strength, theirs$strength), 0.95)
  # the pairs every bnlearn resample keeps are nearly always kept by cudag's, and conversely
  expect_true(all(ours$strength[theirs$strength == 1] > 0.9))
  expect_true(all(theirs$strength[ours$strength == 1] > 0.9))
  expect_error(cudag::boot.strength(d, R = 5, m = 100, algorithm = "pc.stable"), "draws nrow\\(data\\)")
  expect_error(cudag::boot.strength(d, R = 5, algorithm = "pc.stable", algorithm.args = list(foo = 1)),
               "'foo' is not an argument")
})
