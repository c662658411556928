# Comparisons of cudag's bnlearn face with bnlearn 4.9 itself.

skip_without_bnlearn <- function() {
  skip_if_not_installed("bnlearn")
  suppressPackageStartupMessages(requireNamespace("bnlearn"))
}

# bnlearn's example data set `name` (learning.test, gaussian.test, alarm, ...).
bnlearn_data <- function(name) {
  env <- new.env()
  utils::data(list = name, package = "bnlearn", envir = env)
  get(name, envir = env)
}

# A random DAG over `nodes` (each earlier node a parent of a later one with probability
# `prob`, at most `max_parents` parents a node), as a bn.
random_dag <- function(nodes, prob, max_parents = 3) {
  g <- bnlearn::empty.graph(nodes)
  p <- length(nodes)
  m <- matrix(0L, p, p, dimnames = list(nodes, nodes))
  for (j in seq_len(p)[-1]) {
    pa <- which(stats::runif(j - 1) < prob)
    if (length(pa) > max_parents) pa <- sample(pa, max_parents)
    m[pa, j] <- 1L
  }
  bnlearn::amat(g) <- m
  g
}

# Gaussian data from `dag` (a linear SEM, weights of magnitude 0.5 to 1.5 either sign, unit
# noise), columns in the DAG's node order.
sem_data <- function(dag, n) {
  nodes <- bnlearn::nodes(dag)
  x <- matrix(0, n, length(nodes), dimnames = list(NULL, nodes))
  for (v in bnlearn::node.ordering(dag)) {
    x[, v] <- stats::rnorm(n)
    for (pa in bnlearn::parents(dag, v))
      x[, v] <- x[, v] + sample(c(-1, 1), 1) * stats::runif(1, 0.5, 1.5) * x[, pa]
  }
  as.data.frame(x)
}

# Discrete data from `dag`: sem_data cut into three levels at its terciles.
discrete_data <- function(dag, n) {
  x <- sem_data(dag, n)
  as.data.frame(lapply(x, function(v) cut(v, stats::quantile(v, c(0, 1 / 3, 2 / 3, 1)), include.lowest = TRUE,
                                          labels = c("a", "b", "c"))))
}

# bnlearn's own pc.stable, its warnings (conflicting v-structures) counted in attribute
# "conflicts".
bnlearn_pc <- function(...) {
  conflicts <- 0
  g <- withCallingHandlers(bnlearn::pc.stable(...), warning = function(w) {
    if (grepl("vstructure", conditionMessage(w))) {
      conflicts <<- conflicts + 1
      invokeRestart("muffleWarning")
    }
  })
  attr(g, "conflicts") <- conflicts
  g
}

# cudag::pc.stable(x, ...) against bnlearn's: the same skeleton and the same arcs (conflicting
# v-structures included, settled as bnlearn settles them); returns how many conflicts bnlearn
# reported.
expect_pc_as_bnlearn <- function(x, ...) {
  ours <- cudag::pc.stable(x, ...)
  theirs <- bnlearn_pc(x, ...)
  expect_s3_class(ours, "bn")
  expect_identical(skeleton_pairs(ours), skeleton_pairs(theirs))
  expect_identical(arc_set(ours), arc_set(theirs))
  invisible(attr(theirs, "conflicts"))
}

# The skeleton of a bn as a sorted vector of "a~b" pairs (a < b).
skeleton_pairs <- function(g) {
  a <- g$arcs
  if (!nrow(a)) return(character(0))
  sort(unique(ifelse(a[, 1] < a[, 2], paste(a[, 1], a[, 2], sep = "~"), paste(a[, 2], a[, 1], sep = "~"))))
}

# The arcs of a bn as a sorted vector of "a->b" (an undirected arc listed both ways).
arc_set <- function(g) sort(paste(g$arcs[, 1], g$arcs[, 2], sep = "->"))

# The exact edge posteriors of order MCMC's sum mode (Friedman & Koller: orders uniform, each
# node's parent sets among its predecessors weighted by exp(local score)) on few variables,
# the local scores from bnlearn::score: prob[a, b] = P(a --> b).
exact_order_posterior <- function(data, type, ...) {
  nodes <- names(data)
  p <- length(nodes)
  subsets <- lapply(0:(2^p - 1), function(k) which(bitwAnd(k, 2^(0:(p - 1))) > 0))
  local <- matrix(NA_real_, p, length(subsets))
  for (v in seq_len(p)) for (k in seq_along(subsets)) {
    s <- subsets[[k]]
    if (v %in% s) next
    g <- bnlearn::empty.graph(nodes)
    for (u in s) g <- bnlearn::set.arc(g, nodes[u], nodes[v])
    local[v, k] <- bnlearn::score(g, data, type = type, ..., by.node = TRUE)[[v]]
  }
  lse <- function(x) max(x) + log(sum(exp(x - max(x))))
  orders <- function(v) if (length(v) <= 1) list(v) else do.call(c, lapply(seq_along(v), function(i)
    lapply(orders(v[-i]), function(o) c(v[i], o))))
  log_w <- numeric(0)
  edge <- list()
  for (o in orders(seq_len(p))) {
    total <- 0
    e <- matrix(0, p, p)
    for (pos in seq_len(p)) {
      v <- o[pos]
      pred <- o[seq_len(pos - 1)]
      ok <- vapply(subsets, function(s) all(s %in% pred), logical(1))
      z <- lse(local[v, ok])
      total <- total + z
      for (a in pred) {
        with_a <- ok & vapply(subsets, function(s) a %in% s, logical(1))
        e[a, v] <- exp(lse(local[v, with_a]) - z)
      }
    }
    log_w <- c(log_w, total)
    edge[[length(edge) + 1]] <- e
  }
  w <- exp(log_w - lse(log_w))
  prob <- Reduce(`+`, Map(`*`, edge, w))
  dimnames(prob) <- list(nodes, nodes)
  prob
}
