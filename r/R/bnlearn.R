# SPDX-License-Identifier: Apache-2.0
# bnlearn 4.9's face on the cudag library (src/bnlearn.cpp): score(), mcmc(), pc.stable() and
# boot.strength() with bnlearn's argument names, returning bnlearn's `bn` and `bn.strength`
# objects when bnlearn is installed (plain lists and data frames otherwise).

# bnlearn's objects when bnlearn is installed, unless options(cudag.bnlearn = FALSE).
.bnlearn_ready <- function() {
  !identical(getOption("cudag.bnlearn"), FALSE) && requireNamespace("bnlearn", quietly = TRUE)
}

# A bnlearn-style data frame read for cudag: its type ("discrete": all factors, "continuous":
# all numeric, "mixed"), the values as a numeric matrix (factors as their codes 1..r), the
# names of the factor columns, each column's declared levels (every one counts, as in bnlearn,
# used or not). Other column types are refused, and NA too unless `allow_missing` (the
# constraint-based faces: each test on its locally complete rows, as bnlearn's), where a column
# without an observed value is refused.
.bn_data <- function(data, what = "data", allow_missing = FALSE) {
  if (is.matrix(data)) data <- as.data.frame(data)
  if (!is.data.frame(data)) stop(what, " must be a data frame (bnlearn's data)", call. = FALSE)
  if (ncol(data) < 2) stop(what, " must have at least two columns (variables)", call. = FALSE)
  if (nrow(data) == 0) stop(what, " has no rows (samples)", call. = FALSE)
  labels <- names(data)
  if (is.null(labels) || anyDuplicated(labels) || any(labels == ""))
    stop(what, ": the columns need distinct, non-empty names", call. = FALSE)
  is_factor <- vapply(data, is.factor, logical(1))
  is_number <- vapply(data, function(v) is.double(v) && !is.factor(v), logical(1))
  bad <- which(!is_factor & !is_number)
  if (length(bad))
    stop(what, ": column '", labels[bad[1]], "' is ", class(data[[bad[1]]])[1],
         if (is.integer(data[[bad[1]]])) ": give a factor (discrete) or a double (continuous), as bnlearn needs"
         else ", not a factor or numeric (double)", call. = FALSE)
  for (j in which(is_factor)) {
    if (nlevels(data[[j]]) < 2)
      stop(what, ": factor '", labels[j], "' has ", if (nlevels(data[[j]]) == 1)
           paste0("a single level ('", levels(data[[j]]), "')") else "no level",
           ": every discrete variable needs at least two levels (as in bnlearn)", call. = FALSE)
    # bnlearn's note; the levels count as declared all the same (degrees of freedom, scores)
    if (any(tabulate(as.integer(data[[j]]), nlevels(data[[j]])) == 0))
      warning("variable ", labels[j], " in the data has levels that are not observed in the data.", call. = FALSE)
  }
  x <- matrix(0, nrow(data), ncol(data), dimnames = list(NULL, labels))
  for (j in seq_along(data)) x[, j] <- if (is_factor[j]) as.integer(data[[j]]) else as.double(data[[j]])
  na <- which(is.na(x), arr.ind = TRUE)
  if (nrow(na) && !allow_missing)
    stop(what, ": NA at row ", na[1, 1], ", column '", labels[na[1, 2]],
         "' (cudag's scores need complete data; pc.stable, ci.test and boot.strength test each pair on ",
         "its complete rows, as bnlearn's)", call. = FALSE)
  empty <- which(colSums(!is.na(x)) == 0)
  if (length(empty))
    stop(what, ": column '", labels[empty[1]], "' has no observed value (every row NA): nothing can test it",
         call. = FALSE)
  type <- if (all(is_factor)) "discrete" else if (all(is_number)) "continuous" else "mixed"
  list(x = x, labels = labels, type = type, discrete = labels[is_factor],
       levels = unname(lapply(data, function(v) if (is.factor(v)) levels(v) else character(0))),
       nlev = vapply(data, function(v) if (is.factor(v)) nlevels(v) else 0L, integer(1)))
}

# Arcs given bnlearn's way (a two-column matrix or data frame from, to; NULL) as two
# character vectors, each name checked.
.arc_list <- function(arcs, labels, what) {
  if (is.null(arcs)) return(list(from = character(0), to = character(0)))
  if (is.data.frame(arcs)) arcs <- as.matrix(arcs)
  if (is.character(arcs) && !is.matrix(arcs) && length(arcs) == 2) arcs <- matrix(arcs, 1, 2)
  if (!is.matrix(arcs) || ncol(arcs) != 2 || !is.character(arcs))
    stop(what, " must be a two-column matrix or data frame of node names (from, to)", call. = FALSE)
  unknown <- setdiff(c(arcs), labels)
  if (length(unknown)) stop(what, ": no variable '", unknown[1], "' in the data", call. = FALSE)
  list(from = unname(arcs[, 1]), to = unname(arcs[, 2]))
}

# The whitelist and blacklist as cudag's knowledge, bnlearn's way (its build.whitelist and
# build.blacklist): an arc whitelisted in both directions is a pair that must be adjacent,
# its direction left to the learner (constraint-based learners; score-based ones refuse
# it); an arc both whitelisted and blacklisted is whitelisted.
.bn_arcs <- function(whitelist, blacklist, labels, score_based) {
  white <- .arc_list(whitelist, labels, "whitelist")
  black <- .arc_list(blacklist, labels, "blacklist")
  key <- function(a, b) paste(a, b, sep = "\r")
  wkey <- key(white$from, white$to)
  both <- wkey %in% key(white$to, white$from)
  if (score_based && any(both))
    stop("whitelist: '", white$from[both][1], "' -> '", white$to[both][1], "' is listed in both directions: ",
         "score-based learning needs a direction for each whitelisted arc (as bnlearn's score-based algorithms)",
         call. = FALSE)
  # each pair listed both ways once, as an undirected requirement
  lo <- match(white$from, labels) < match(white$to, labels)
  pair <- both & lo
  keep_black <- !key(black$from, black$to) %in% wkey
  list(white_from = white$from[!both], white_to = white$to[!both], pair_from = white$from[pair],
       pair_to = white$to[pair], black_from = black$from[keep_black], black_to = black$to[keep_black])
}

# A graph over `labels` from 0-based (from, to) rows (a --- b listed both ways): bnlearn's
# `bn` with `learning` set, or a plain list of class cudag_bn.
.bn_graph <- function(labels, from, to, learning) {
  p <- length(labels)
  m <- matrix(0L, p, p, dimnames = list(labels, labels))
  m[cbind(from + 1L, to + 1L)] <- 1L
  if (!.bnlearn_ready()) {
    arcs <- cbind(from = labels[from + 1L], to = labels[to + 1L])
    return(structure(list(nodes = labels, arcs = arcs, amat = m, learning = learning), class = "cudag_bn"))
  }
  g <- bnlearn::empty.graph(labels)
  # pc.stable orients as bnlearn's learn.arc.directions, which keeps the directed arcs
  # acyclic; should a graph hold a directed cycle all the same, it is returned as learned,
  # with a warning, where bnlearn's amat<- would refuse it.
  bnlearn::amat(g, check.cycles = FALSE) <- m
  if (!bnlearn::acyclic(g, directed = TRUE))
    warning("the network's directed arcs form a cycle (PC's orientation of conflicting v-structures, as pcalg's): ",
            "bnlearn's functions that need an acyclic graph refuse it", call. = FALSE)
  g$learning[names(learning)] <- learning
  g
}

# bnlearn's bn.strength from prob[i, j], the frequency of i --> j (an undirected i --- j
# counted half each way): one row per ordered pair, `from` running slowest, strength the
# frequency of the adjacency and direction that of from --> to given it (0 when never
# adjacent), as bnlearn's boot.strength builds it; attributes nodes, method ("bootstrap") and
# bnlearn's threshold.
.bn_strength <- function(labels, prob) {
  p <- length(labels)
  i <- rep(seq_len(p), each = p)
  j <- rep(seq_len(p), times = p)
  keep <- i != j
  i <- i[keep]
  j <- j[keep]
  s <- prob[cbind(i, j)] + prob[cbind(j, i)]
  d <- ifelse(s == 0, 0, prob[cbind(i, j)] / ifelse(s == 0, 1, s))
  tol <- sqrt(.Machine$double.eps)  # bnlearn's clamping of rounding errors
  s[s < tol] <- 0
  s[s > 1 - tol] <- 1
  d[d < tol] <- 0
  d[d > 1 - tol] <- 1
  res <- data.frame(from = labels[i], to = labels[j], strength = s, direction = d, stringsAsFactors = FALSE)
  if (!.bnlearn_ready()) return(structure(res, nodes = labels, method = "bootstrap"))
  res <- structure(res, nodes = labels, method = "bootstrap", threshold = 0.5, class = c("bn.strength", "data.frame"))
  attr(res, "threshold") <- bnlearn::inclusion.threshold(res)
  res
}

# A bootstrap table (the raw list's boot_* columns, pairs i < j) as prob[i, j].
.table_prob <- function(raw, p) {
  prob <- matrix(0, p, p)
  b <- raw$replicates
  i <- raw$boot_i + 1L
  j <- raw$boot_j + 1L
  half <- 0.5 * (raw$boot_undirected + raw$boot_bidirected)
  prob[cbind(i, j)] <- (raw$boot_forward + half) / b
  prob[cbind(j, i)] <- (raw$boot_backward + half) / b
  prob
}

.number <- function(v, what, lo = -Inf, hi = Inf) {
  if (!is.numeric(v) || length(v) != 1 || is.na(v) || v < lo || v > hi)
    stop(what, " must be one number in [", lo, ", ", hi, "]", call. = FALSE)
  as.double(v)
}

.open_unit <- function(v, what) {
  if (!is.numeric(v) || length(v) != 1 || is.na(v) || !(v > 0 && v < 1))
    stop(what, " must be one number in (0, 1)", call. = FALSE)
  as.double(v)
}

.whole <- function(v, what, lo = 0) {
  if (!is.numeric(v) || length(v) != 1 || is.na(v) || v != floor(v) || v < lo)
    stop(what, " must be a whole number >= ", lo, call. = FALSE)
  as.double(v)
}

# The score settings cudag's scorers take for bnlearn's score `type` on data `d`, with the
# data as given to them (BGe: centred at nu, cudag's prior mean being 0).
.score_settings <- function(type, d, extra, context) {
  allowed <- switch(type, bde = "iss", k2 = character(0), bge = c("iss.mu", "iss.w", "nu"),
                    bic = , "bic-g" = , "bic-cg" = , aic = , "aic-g" = , "aic-cg" = "k", character(0))
  extra <- extra[!vapply(extra, is.null, logical(1))]
  if (!is.null(extra$prior) && !identical(extra$prior, "uniform"))
    stop(context, ": prior = \"", extra$prior, "\" is not supported: cudag scores under the uniform graph prior",
         call. = FALSE)
  extra$prior <- NULL
  unused <- setdiff(names(extra), allowed)
  if (length(unused)) stop(context, ": '", unused[1], "' does not apply to score \"", type, "\" in cudag",
                           call. = FALSE)
  family <- if (type %in% c("bde", "k2", "bic", "aic", "loglik")) "discrete"
            else if (type %in% c("bge", "bic-g", "aic-g", "loglik-g")) "continuous" else "mixed"
  if (family != d$type)
    stop(context, ": score \"", type, "\" needs ", family, " data", if (family == "discrete") " (factors)" else "",
         ", these are ", d$type, call. = FALSE)
  x <- d$x
  a <- list(labels = d$labels, levels = d$levels, iss = 1, am = 1, aw = NA_real_, discrete = d$discrete)
  stored <- list()  # the settings as bnlearn's learners keep them in learning$args
  if (type == "bde") {
    a$score <- "bdeu"
    if (!is.null(extra$iss)) a$iss <- .number(extra$iss, "iss", 1e-6, 1e6)
    stored$iss <- a$iss
  } else if (type == "k2") {
    a$score <- "k2"
  } else if (type == "bge") {
    a$score <- "bge"
    if (!is.null(extra$iss.mu)) a$am <- .number(extra$iss.mu, "iss.mu", 1e-6, 1e6)
    p <- ncol(x)
    a$aw <- if (is.null(extra$iss.w)) p + 2 else .number(extra$iss.w, "iss.w")
    if (!(a$aw > p + 1)) stop(context, ": iss.w must be above ncol(data) + 1 = ", p + 1, call. = FALSE)
    nu <- if (is.null(extra$nu)) colMeans(x) else extra$nu
    if (!is.numeric(nu) || length(nu) != p || anyNA(nu))
      stop(context, ": nu must be a numeric vector of ", p, " prior means", call. = FALSE)
    if (!is.null(names(nu))) nu <- nu[d$labels]
    x <- sweep(x, 2, nu)
    stored <- list(nu = structure(as.double(nu), names = d$labels), iss.mu = a$am, iss.w = a$aw)
  } else {
    a$score <- "cg-bic"
    if (grepl("^bic", type)) stored$k <- log(nrow(x)) / 2
  }
  list(x = x, args = a, stored = stored)
}

# Each node's parameter count under the BIC family's models (bnlearn's nparams): a discrete
# node (r - 1) times its discrete parents' configurations, a continuous one an intercept, a
# slope per continuous parent and a variance per configuration; r counts a factor's declared
# levels, as bnlearn's (and cudag's cg-bic under the R face).
.node_params <- function(parents, d) {
  vapply(seq_along(parents), function(v) {
    pa <- parents[[v]] + 1L
    disc <- pa[d$nlev[pa] > 0]
    configs <- prod(d$nlev[disc])
    if (d$nlev[v] > 0) configs * (d$nlev[v] - 1) else configs * (length(pa) - length(disc) + 2)
  }, numeric(1))
}

# bnlearn's Gaussian log-likelihood less cudag's, per node: cudag (Andrews et al.) plugs in
# the maximum-likelihood residual variance RSS / n_s of each configuration s of the discrete
# parents, bnlearn the unbiased RSS / (n_s - q), q = the continuous parents + 1 (intercept);
# with the same residuals the difference is q / 2 - (n_s / 2) log(n_s / (n_s - q)) per
# configuration that occurs. Discrete nodes: 0.
# A configuration with no more rows than coefficients has no unbiased variance (bnlearn's
# score is -Inf there): an error naming the node, as cudag treats a score that is not finite.
.unbiased_shift <- function(parents, d, type) {
  vapply(seq_along(parents), function(v) {
    if (d$nlev[v] > 0) return(0)
    pa <- parents[[v]] + 1L
    disc <- pa[d$nlev[pa] > 0]
    q <- length(pa) - length(disc) + 1
    ns <- if (length(disc)) as.vector(table(do.call(paste, as.data.frame(d$x[, disc, drop = FALSE])))) else nrow(d$x)
    if (any(ns <= q))
      stop("score \"", type, "\": node '", d$labels[v], "' has ", min(ns), " row", if (min(ns) != 1) "s",
           if (length(disc)) " in a configuration of its discrete parents" else "", " for ", q,
           " regression coefficients: its residual variance cannot be estimated (bnlearn's score is -Inf)",
           call. = FALSE)
    sum(q / 2 - ns / 2 * log(ns / (ns - q)))
  }, numeric(1))
}

# bnlearn's score() takes the settings not given from the network's learning$args (iss,
# iss.mu, iss.w, nu; k only when the network was learned with the same score), as its
# check.iss / check.nu / check.penalty do.
.stored_score_args <- function(x, type, extra) {
  stored <- x$learning$args
  if (!is.list(stored)) return(extra)
  takes <- switch(type, bde = "iss", bge = c("iss.mu", "iss.w", "nu"), character(0))
  for (a in takes) if (is.null(extra[[a]]) && !is.null(stored[[a]])) extra[[a]] <- stored[[a]]
  if (grepl("^(bic|aic)", type) && is.null(extra$k) && !is.null(stored$k) && identical(x$learning$test, type))
    extra$k <- stored$k
  extra
}

# The cudag scores bnlearn's score() takes from here: bnlearn's name and cudag's scorer.
.score_types <- c("bde", "k2", "bge", "loglik", "bic", "aic", "loglik-g", "bic-g", "aic-g", "loglik-cg", "bic-cg",
                  "aic-cg")

#' The score of a network (bnlearn::score) by cudag's scorers.
score <- function(x, data, type = NULL, ..., by.node = FALSE, debug = FALSE) {
  d <- .bn_data(data)
  nodes <- if (inherits(x, "bn")) names(x$nodes) else if (inherits(x, "cudag_bn")) x$nodes else NULL
  if (is.null(nodes)) stop("x must be a bnlearn network (class bn)", call. = FALSE)
  if (!setequal(nodes, d$labels) || length(nodes) != length(d$labels))
    stop("the network's nodes and the data's columns differ", call. = FALSE)
  d <- suppressWarnings(.bn_data(data[nodes]))  # the same columns: warned once above
  if (is.null(type)) type <- c(discrete = "bic", continuous = "bic-g", mixed = "bic-cg")[[d$type]]
  if (!is.character(type) || length(type) != 1 || !type %in% .score_types)
    stop("type = \"", paste(type, collapse = ","), "\" is not one of cudag's scores: ",
         paste(.score_types, collapse = ", "), " (bnlearn's names)", call. = FALSE)
  arcs <- if (inherits(x, "bn")) x$arcs else x$arcs
  from <- match(arcs[, 1], nodes)
  to <- match(arcs[, 2], nodes)
  if (any(paste(from, to) %in% paste(to, from)))
    stop("the network has undirected arcs: only a DAG can be scored", call. = FALSE)
  parents <- lapply(seq_along(nodes), function(v) as.integer(sort(from[to == v]) - 1L))
  for (v in which(d$nlev > 0)) {
    pa <- parents[[v]] + 1L
    if (any(d$nlev[pa] == 0))
      stop("discrete node '", nodes[v], "' has the continuous parent '", nodes[pa[d$nlev[pa] == 0][1]],
           "': not a conditional linear Gaussian network", call. = FALSE)
  }
  extra <- .stored_score_args(x, type, list(...))
  s <- .score_settings(type, d, extra, "score")
  local <- tryCatch(.cudag_bn_score(s$x, s$args, parents), error = function(e)
    stop(sub("^cg-bic: ", paste0("score \"", type, "\": "), conditionMessage(e)), call. = FALSE))
  base <- sub("-.*", "", type)
  if (base %in% c("loglik", "bic", "aic")) {
    k <- .node_params(parents, d)
    loglik <- local + log(nrow(d$x)) / 2 * k + .unbiased_shift(parents, d, type)
    pen <- extra$k
    if (!is.null(pen) && !(is.numeric(pen) && length(pen) == 1 && !is.na(pen) && pen > 0))
      stop("k must be one positive number (the penalty weight)", call. = FALSE)
    pen <- if (base == "loglik") 0 else if (!is.null(pen)) as.double(pen) else if (base == "bic")
      log(nrow(d$x)) / 2 else 1
    local <- loglik - pen * k
  }
  if (any(!is.finite(local))) {
    v <- which(!is.finite(local))[1]
    stop("score \"", type, "\": the score of node '", nodes[v], "' is not finite (", local[v], ")", call. = FALSE)
  }
  names(local) <- nodes
  if (isTRUE(by.node)) local else sum(local)
}

#' Order MCMC (cudag mcmc) with bnlearn's score names: the MAP DAG as a bn and the edge
#' posteriors as a bn.strength.
mcmc <- function(data, score = c("bde", "k2", "bge", "bic", "bic-g", "bic-cg"), ..., max.parents = 4L, chains = 4L,
                 iterations = 10000, burn.in = NULL, thin = 1, seed = 1, space = c("all", "pc", "iterative"),
                 alpha = 0.05, order.score = c("max", "sum"), moves = c("swap", "bidag"), edge.penalty = 1,
                 whitelist = NULL, blacklist = NULL, backend = c("auto", "cpu", "cuda"), threads = 0L,
                 verbose = FALSE) {
  cl <- match.call()
  d <- .bn_data(data)
  score <- match.arg(score)
  s <- .score_settings(score, d, list(...), "mcmc")
  blacklist <- .clg_blacklist(score, d, blacklist)
  raw <- .mcmc_raw(d, s, max.parents, chains, iterations, burn.in, thin, seed, match.arg(space), alpha,
                   match.arg(order.score), match.arg(moves), edge.penalty, whitelist, blacklist,
                   match.arg(backend), threads, verbose, 0)
  labels <- raw$names
  args <- c(list(...), list(max.parents = max.parents, chains = chains, iterations = iterations, seed = seed))
  dag <- .bn_graph(labels, raw$arc_from, raw$arc_to,
                   list(cudag = list(algo = "order MCMC", score = score, args = args), whitelist = whitelist,
                        blacklist = blacklist, test = score, args = s$stored))
  prob <- raw$edge_prob
  strength <- if (anyNA(prob)) NULL else .bn_strength(labels, prob)
  # The BIC family: the chains rank DAGs by cudag's cg-bic (maximum-likelihood variances);
  # the DAG's score is given as bnlearn's (unbiased variances, see score()).
  best <- if (startsWith(score, "bic")) score(dag, data, type = score) else raw$best_score
  structure(list(dag = dag, strength = strength, score = best, seconds = raw$seconds, call = cl),
            class = "cudag_mcmc")
}

# bic-cg: bnlearn's conditional linear Gaussian networks give no discrete node a continuous
# parent (cudag's cg-bic would score one): those arcs added to the blacklist, as bnlearn's
# learners add them.
.clg_blacklist <- function(score, d, blacklist) {
  if (score != "bic-cg") return(blacklist)
  cont <- setdiff(d$labels, d$discrete)
  illegal <- as.matrix(expand.grid(from = cont, to = d$discrete, stringsAsFactors = FALSE))
  if (is.null(blacklist)) return(illegal)
  if (is.data.frame(blacklist)) blacklist <- as.matrix(blacklist)
  rbind(blacklist, unname(illegal))
}

.mcmc_raw <- function(d, s, max.parents, chains, iterations, burn.in, thin, seed, space, alpha, order.score, moves,
                      edge.penalty, whitelist, blacklist, backend, threads, verbose, bootstrap) {
  arcs <- .bn_arcs(whitelist, blacklist, d$labels, score_based = TRUE)
  a <- c(s$args, list(max_parents = as.integer(.whole(max.parents, "max.parents")),
                      chains = as.integer(.whole(chains, "chains", 1)),
                      iterations = .whole(iterations, "iterations", 1),
                      burn_in = if (is.null(burn.in)) NA_real_ else .whole(burn.in, "burn.in"),
                      thin = .whole(thin, "thin", 1), seed = .whole(seed, "seed"), space = space,
                      alpha = .open_unit(alpha, "alpha"), order_score = order.score, moves = moves,
                      edge_penalty = .number(edge.penalty, "edge.penalty"), backend = backend,
                      threads = as.integer(threads), verbose = isTRUE(verbose), white_from = arcs$white_from,
                      white_to = arcs$white_to, black_from = arcs$black_from, black_to = arcs$black_to,
                      bootstrap = bootstrap))
  .cudag_bn_mcmc(s$x, a)
}

#' print() of mcmc()'s result.
print.cudag_mcmc <- function(x, ...) {
  cat("cudag order MCMC: the MAP DAG (score ", format(x$score), ") and ",
      if (is.null(x$strength)) "no edge posteriors" else "the edge posteriors ($strength)", "\n", sep = "")
  print(x$dag)
  invisible(x)
}

#' print() of a network when bnlearn is not installed.
print.cudag_bn <- function(x, ...) {
  both <- paste(x$arcs[, 1], x$arcs[, 2]) %in% paste(x$arcs[, 2], x$arcs[, 1])
  cat("cudag network over ", length(x$nodes), " nodes: ", sum(!both), " directed arcs, ", sum(both) / 2,
      " undirected (install bnlearn for its bn class)\n", sep = "")
  invisible(x)
}

# bnlearn's test names and cudag's tests.
.bn_tests <- c(mi = "g-square", x2 = "chi-square", "mi-adf" = "g-square", "x2-adf" = "chi-square", "mi-sh" = "mi-sh",
               zf = "fisher-z", cor = "fisher-z", "mi-g" = "cg-lrt", "mi-g-sh" = "mi-g-sh", "mi-cg" = "mi-cg")
# bnlearn's discrete tests with adjusted degrees of freedom (the levels each stratum holds) and
# its rule of 5 observations a cell
.bn_adf <- c("mi-adf", "x2-adf")
.bn_discrete_tests <- c("mi", "x2", .bn_adf, "mi-sh")

.pc_raw <- function(d, whitelist, blacklist, test, alpha, B, max.sx, undirected, backend, threads, verbose,
                    bootstrap, seed) {
  if (is.null(test)) test <- c(discrete = "mi", continuous = "cor", mixed = "mi-cg")[[d$type]]  # bnlearn's defaults
  if (!is.character(test) || length(test) != 1 || !test %in% names(.bn_tests))
    stop("test = \"", paste(test, collapse = ","), "\" is not one of cudag's tests: mi, x2, mi-adf, x2-adf, mi-sh ",
         "(discrete), cor, zf (Gaussian: the exact t test and Fisher's z of the partial correlation), mi-g ",
         "(Gaussian: -n log(1 - r^2)), mi-g-sh (its shrinkage form), mi-cg (mixed)", call. = FALSE)
  if (test %in% .bn_discrete_tests && d$type != "discrete")
    stop("test \"", test, "\" needs discrete data (factors)", call. = FALSE)
  if (test %in% c("zf", "cor", "mi-g", "mi-g-sh") && d$type != "continuous")
    stop("test \"", test, "\" needs continuous data (numeric columns)", call. = FALSE)
  if (test == "mi-cg" && d$type != "mixed")
    stop("test \"mi-cg\" needs mixed data (factors and numeric columns), as bnlearn's", call. = FALSE)
  # mi-cg: conditional linear Gaussian networks, no arc from a continuous node to a discrete one
  # (bnlearn adds them to the blacklist)
  if (test == "mi-cg") blacklist <- .clg_blacklist("bic-cg", d, blacklist)
  if (!is.null(B)) stop("B: cudag runs asymptotic tests, not permutation tests", call. = FALSE)
  max_level <- if (is.null(max.sx) || is.infinite(max.sx)) -1L else as.integer(.whole(max.sx, "max.sx"))
  arcs <- .bn_arcs(whitelist, blacklist, d$labels, score_based = FALSE)
  a <- list(labels = d$labels, levels = d$levels, test = unname(.bn_tests[test]), student_t = test == "cor",
            adf = test %in% .bn_adf,
            alpha = .open_unit(alpha, "alpha"),
            max_level = max_level, undirected = isTRUE(undirected) && bootstrap == 0, backend = backend, threads = as.integer(threads),
            verbose = isTRUE(verbose), white_from = arcs$white_from, white_to = arcs$white_to,
            pair_from = arcs$pair_from, pair_to = arcs$pair_to, black_from = arcs$black_from,
            black_to = arcs$black_to, bootstrap = bootstrap, seed = .whole(seed, "seed"), discrete = d$discrete)
  raw <- .cudag_bn_pc(d$x, a)
  for (w in raw$warnings) warning(w, call. = FALSE)
  raw$test <- test
  raw$max_level <- max_level
  raw
}

# bnlearn's names of its tests (htest$method).
.bn_test_labels <- c(mi = "Mutual Information (disc.)", x2 = "Pearson's X^2",
                     "mi-adf" = "Mutual Information (disc., adj. d.f.)", "x2-adf" = "Pearson's X^2 (adj. d.f.)",
                     "mi-sh" = "Mutual Information (disc., shrink.)",
                     cor = "Pearson's Correlation",
                     zf = "Fisher's Z", "mi-g" = "Mutual Information (Gauss.)",
                     "mi-g-sh" = "Mutual Information (Gauss., shrink.)",
                     "mi-cg" = "Mutual Information (cond. Gauss.)")

#' One conditional independence test with bnlearn's interface (bnlearn::ci.test): x, y (and z)
#' as column names of `data`, as a data frame (its first two columns given the rest), or as
#' vectors (z a vector or data frame); an htest with bnlearn's statistic, p-value and df.
ci.test <- function(x, y, z, data, test = NULL, B = NULL, debug = FALSE) {
  if (missing(x)) stop("one or both of the variables to test are missing", call. = FALSE)
  if (is.data.frame(x) || is.matrix(x)) {
    if (!missing(y) || !missing(z)) warning("'y' and 'z' will be ignored.", call. = FALSE)
    if (!missing(data)) warning("'data' will be ignored.", call. = FALSE)
    x <- as.data.frame(x)
    if (ncol(x) < 2) stop("'x' must have at least two columns", call. = FALSE)
    return(.ci_test(names(x)[1], names(x)[2], names(x)[-(1:2)], x, test, B))
  }
  if ((is.vector(x) || is.factor(x)) && !(is.character(x) && length(x) == 1)) {
    if (!missing(data)) warning("'data' will be ignored.", call. = FALSE)
    labels <- c(deparse(substitute(x)), deparse(substitute(y)), if (!missing(z)) deparse(substitute(z)))
    if (missing(y) || length(y) != length(x)) stop("'x' and 'y' must have the same length", call. = FALSE)
    d <- if (missing(z)) data.frame(x = x, y = y) else data.frame(x = x, y = y, z = z)
    if (nrow(d) != length(x)) stop("'x', 'y', and 'z' must have the same length", call. = FALSE)
    res <- .ci_test("x", "y", names(d)[-(1:2)], d, test, B)
    res$data.name <- paste(labels[1], "~", labels[2], if (missing(z)) "" else paste("|", labels[3]))
    return(res)
  }
  if (missing(data)) stop("'data' is missing: give the data frame the columns x, y and z name", call. = FALSE)
  .ci_test(x, y, if (missing(z)) character(0) else z, data, test, B)
}

.ci_test <- function(x, y, z, data, test, B) {
  if (!is.data.frame(data)) stop("data must be a data frame (bnlearn's data)", call. = FALSE)
  if (!is.character(x) || length(x) != 1 || !x %in% names(data))
    stop("'x' must be a character string, the name of one of the columns of 'data'", call. = FALSE)
  if (!is.character(y) || length(y) != 1 || !y %in% names(data))
    stop("'y' must be a character string, the name of one of the columns of 'data'", call. = FALSE)
  if (x == y) stop("'x' must be different from 'y'", call. = FALSE)
  if (is.null(z)) z <- character(0)
  if (!is.character(z) || anyNA(z) || any(!z %in% names(data)))
    stop("'z' must be a vector of character strings, the names of columns of 'data'", call. = FALSE)
  if (any(c(x, y) %in% z) || anyDuplicated(z)) stop("'z' must be distinct and differ from 'x' and 'y'", call. = FALSE)
  if (!is.null(B)) stop("B: cudag runs asymptotic tests, not permutation tests", call. = FALSE)
  d <- .bn_data(data[c(x, y, z)], "data", allow_missing = TRUE)
  if (is.null(test)) test <- c(discrete = "mi", continuous = "cor", mixed = "mi-cg")[[d$type]]  # bnlearn's
  if (!is.character(test) || length(test) != 1 || !test %in% names(.bn_tests))
    stop("test = \"", paste(test, collapse = ","), "\" is not one of cudag's tests: mi, x2, mi-adf, x2-adf, mi-sh ",
         "(discrete), cor, zf, mi-g, mi-g-sh (Gaussian), mi-cg (mixed)", call. = FALSE)
  need <- c(mi = "discrete", x2 = "discrete", "mi-adf" = "discrete", "x2-adf" = "discrete", "mi-sh" = "discrete",
            cor = "continuous",
            zf = "continuous", "mi-g" = "continuous", "mi-g-sh" = "continuous", "mi-cg" = "mixed")[[test]]
  if (d$type != need)
    stop("test \"", test, "\" needs ", need, " data (", c(discrete = "factors", continuous = "numeric columns",
         mixed = "factors and numeric columns")[[need]], ") among x, y and z, as bnlearn's", call. = FALSE)
  raw <- .cudag_bn_citest(d$x, list(labels = d$labels, levels = d$levels, test = unname(.bn_tests[test]),
                                    discrete = d$discrete,
                                    x = x, y = y, z = z, student_t = test == "cor", adf = test %in% .bn_adf))
  n <- raw$n  # the rows complete in x, y and z (bnlearn's locally complete observations)
  if (test %in% c("cor", "zf")) {
    # cudag's fisher-z gives the partial correlation r: bnlearn's statistics from it
    r <- raw$statistic
    df <- n - length(z) - if (test == "cor") 2 else 3
    if (df < 1) {  # bnlearn: no degrees of freedom left, independence
      stat <- 0
      p <- 1
      df <- 0
    } else {
      # cor: r itself, p from t = r √(df / (1 − r²)); zf: Fisher's z with r's sign
      stat <- if (test == "cor") r else sign(r) * as.numeric(raw$extra[["z"]])
      p <- if (test == "cor") 2 * stats::pt(abs(r) * sqrt(df / (1 - r^2)), df, lower.tail = FALSE) else raw$p
    }
    param <- c(df = df)
  } else {
    stat <- raw$statistic
    p <- raw$p
    # none where too few rows left the test independent: bnlearn reports 0, or none for mi-cg
    param <- if (!is.na(raw$extra["dof"])) c(df = as.numeric(raw$extra[["dof"]])) else if (test != "mi-cg") c(df = 0)
  }
  structure(list(statistic = structure(stat, names = test), p.value = p, method = .bn_test_labels[test],
                 null.value = c(value = 0), alternative = if (test %in% c("cor", "zf")) "two.sided" else "greater",
                 data.name = paste(x, "~", y, if (length(z)) "|" else "", paste(z, collapse = " + ")),
                 parameter = param), class = "htest")
}

#' PC-stable with bnlearn's interface (bnlearn::pc.stable).
pc.stable <- function(x, cluster = NULL, whitelist = NULL, blacklist = NULL, test = NULL, alpha = 0.05, B = NULL,
                      max.sx = NULL, debug = FALSE, undirected = FALSE, backend = c("auto", "cpu", "cuda"),
                      threads = 0L) {
  d <- .bn_data(x, "x", allow_missing = TRUE)
  raw <- .pc_raw(d, whitelist, blacklist, test, alpha, B, max.sx, undirected, match.arg(backend), threads, debug, 0,
                 1)
  .bn_graph(raw$names, raw$arc_from, raw$arc_to,
            list(whitelist = whitelist, blacklist = blacklist, test = raw$test, args = list(alpha = alpha),
                 ntests = raw$tests, algo = "pc.stable", undirected = isTRUE(undirected),
                 max.sx = if (raw$max_level < 0) Inf else raw$max_level))
}

#' Edge confidence by cudag's bootstrap (bnlearn::boot.strength).
boot.strength <- function(data, cluster = NULL, R = 200, m = nrow(data), algorithm = c("pc.stable", "mcmc"),
                          algorithm.args = list(), cpdag = TRUE, shuffle = TRUE, debug = FALSE, seed = 1) {
  if (!is.character(algorithm) || !length(algorithm) || !algorithm[1] %in% c("pc.stable", "mcmc"))
    stop("algorithm = \"", paste(algorithm, collapse = ","), "\" is not supported: cudag's boot.strength runs ",
         "\"pc.stable\" and \"mcmc\"", call. = FALSE)
  algorithm <- algorithm[1]
  d <- .bn_data(data, allow_missing = algorithm == "pc.stable")
  R <- .whole(R, "R", 1)
  if (!identical(as.double(m), as.double(nrow(d$x))))
    stop("m = ", m, ": cudag's bootstrap draws nrow(data) = ", nrow(d$x), " rows with replacement", call. = FALSE)
  if (!is.list(algorithm.args)) stop("algorithm.args must be a list", call. = FALSE)
  g <- function(name, default) if (is.null(algorithm.args[[name]])) default else algorithm.args[[name]]
  backend <- match.arg(g("backend", "auto"), c("auto", "cpu", "cuda"))
  if (algorithm == "pc.stable") {
    known <- c("whitelist", "blacklist", "test", "alpha", "B", "max.sx", "undirected", "backend", "threads")
    unknown <- setdiff(names(algorithm.args), known)
    if (length(unknown)) stop("algorithm.args: '", unknown[1], "' is not an argument of cudag::pc.stable",
                              call. = FALSE)
    raw <- .pc_raw(d, algorithm.args$whitelist, algorithm.args$blacklist, algorithm.args$test, g("alpha", 0.05),
                   algorithm.args$B, algorithm.args$max.sx, g("undirected", FALSE), backend, g("threads", 0L), debug,
                   R, seed)
    # the skeletons (cudag's bootstrap counts the CPDAGs): each adjacency half each way
    if (isTRUE(g("undirected", FALSE))) raw$undirected <- TRUE
  } else {
    if (isTRUE(cpdag))
      stop("algorithm = \"mcmc\" counts each replicate's MAP DAG: give cpdag = FALSE", call. = FALSE)
    if (!is.null(algorithm.args$seed))
      stop("algorithm.args$seed: give boot.strength's seed (it keys both the resamples and the chains)",
           call. = FALSE)
    f <- formals(mcmc)
    known <- setdiff(names(f), c("data", "..."))
    score_args <- c("iss", "iss.mu", "iss.w", "nu", "prior")
    unknown <- setdiff(names(algorithm.args), c(known, score_args))
    if (length(unknown)) stop("algorithm.args: '", unknown[1], "' is not an argument of cudag::mcmc", call. = FALSE)
    score <- match.arg(g("score", "bde"), eval(f$score))
    s <- .score_settings(score, d, algorithm.args[intersect(names(algorithm.args), score_args)], "boot.strength")
    algorithm.args$blacklist <- .clg_blacklist(score, d, algorithm.args$blacklist)
    raw <- .mcmc_raw(d, s, g("max.parents", 4L), g("chains", 4L), g("iterations", 10000), algorithm.args$burn.in,
                     g("thin", 1), seed, match.arg(g("space", "all"), eval(f$space)), g("alpha", 0.05),
                     match.arg(g("order.score", "max"), eval(f$order.score)),
                     match.arg(g("moves", "swap"), eval(f$moves)), g("edge.penalty", 1), algorithm.args$whitelist,
                     algorithm.args$blacklist, backend, g("threads", 0L), debug, R)
  }
  prob <- .table_prob(raw, length(raw$names))
  if (isTRUE(raw$undirected)) prob <- (prob + t(prob)) / 2
  .bn_strength(raw$names, prob)
}
