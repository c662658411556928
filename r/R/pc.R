# SPDX-License-Identifier: Apache-2.0
# cudag::pc and cudag::skeleton: pcalg's interface on the cudag library (src/cudag_r.cpp).

# The tests cudag runs, by the names a user gives: pcalg's functions (cudag's markers below
# or pcalg's own), or a name.
.cudag_tests <- c(gaussCItest = "fisher-z", disCItest = "g-square", binCItest = "g-square",
                  cmiknnCItest = "cmiknn")

.pcalg_fun <- function(name) {
  if (requireNamespace("pcalg", quietly = TRUE) && name %in% getNamespaceExports("pcalg"))
    getExportedValue("pcalg", name)
  else NULL
}

#' Conditional independence tests as cudag::pc knows them. Called directly (by pcalg's own
#' functions, say), each runs pcalg's test of that name when pcalg is installed.
gaussCItest <- function(x, y, S, suffStat) .marker_call("gaussCItest", x, y, S, suffStat)
disCItest <- function(x, y, S, suffStat) .marker_call("disCItest", x, y, S, suffStat)
binCItest <- function(x, y, S, suffStat) .marker_call("binCItest", x, y, S, suffStat)
cmiknnCItest <- function(x, y, S, suffStat)
  stop("cudag::cmiknnCItest runs inside cudag::pc and cudag::skeleton only (indepTest = cmiknnCItest)",
       call. = FALSE)

.marker_call <- function(name, x, y, S, suffStat) {
  f <- .pcalg_fun(name)
  if (is.null(f))
    stop("cudag::", name, " runs inside cudag::pc and cudag::skeleton; called alone it needs pcalg",
         call. = FALSE)
  f(x, y, S, suffStat)
}

# The cudag test of `indepTest` (a function or a name), or one error naming what was given
# and what is known; `caller`: the learner (pc, skeleton, fci, rfci) whose pcalg form runs it.
.test_name <- function(indepTest, caller = "pc") {
  given <- NULL
  if (is.character(indepTest) && length(indepTest) == 1) {
    if (indepTest %in% names(.cudag_tests)) return(indepTest)
    if (indepTest %in% .cudag_tests) return(names(.cudag_tests)[match(indepTest, .cudag_tests)])
    given <- paste0("\"", indepTest, "\" is not a test cudag knows")
  } else if (is.function(indepTest)) {
    for (name in names(.cudag_tests)) {
      if (identical(indepTest, get(name, envir = asNamespace("cudag")))) return(name)
      f <- .pcalg_fun(name)
      if (!is.null(f) && identical(indepTest, f)) return(name)
    }
    if (requireNamespace("pcalg", quietly = TRUE)) {
      for (name in getNamespaceExports("pcalg"))
        if (identical(indepTest, getExportedValue("pcalg", name))) {
          given <- paste0("pcalg::", name, " is not one of them")
          break
        }
    }
    if (is.null(given)) given <- "an R function of your own cannot run inside cudag"
  } else {
    given <- paste0("a ", class(indepTest)[1], " is neither a test function nor a test's name")
  }
  stop("indepTest: cudag runs gaussCItest, disCItest, binCItest (pcalg's or cudag's) and cmiknnCItest ",
       "(or their names); ", given, ": use pcalg::", caller, " for it", call. = FALSE)
}

# A data matrix from suffStat (a matrix or a data frame), numeric, with the column named
# (`hint`: name the discrete test where gaussCItest meets a factor in the data).
.numeric_data <- function(d, what, test, hint = test == "gaussCItest") {
  if (is.data.frame(d)) {
    bad <- !vapply(d, is.numeric, logical(1))
    if (any(bad))
      stop(what, ": column '", names(d)[which(bad)[1]], "' is ", class(d[[which(bad)[1]]])[1],
           ", not numeric: ", test, " needs numbers",
           if (hint) " (discrete data: disCItest)" else "", call. = FALSE)
    d <- as.matrix(d)
  }
  if (!is.matrix(d) || !is.numeric(d)) stop(what, " must be a numeric matrix or data frame", call. = FALSE)
  storage.mode(d) <- "double"
  d
}

# Discrete data (pcalg's dm: codes 0..nlev-1, or a data frame of factors) as numbers.
.discrete_data <- function(suffStat, test) {
  dm <- suffStat$dm
  if (is.null(dm)) stop("suffStat$dm: ", test, " needs list(dm = <discrete data>, nlev, adaptDF)", call. = FALSE)
  if (is.data.frame(dm)) dm <- data.matrix(dm)
  dm <- .numeric_data(dm, "suffStat$dm", test)
  na <- which(is.na(dm), arr.ind = TRUE)
  if (nrow(na))
    stop("suffStat$dm: NA at row ", na[1, 1], ", column ", na[1, 2], " (cudag tests complete data)", call. = FALSE)
  if (!is.null(suffStat$nlev)) {
    seen <- apply(dm, 2, function(v) length(unique(v)))
    if (length(suffStat$nlev) != ncol(dm) || any(suffStat$nlev != seen)) {
      j <- if (length(suffStat$nlev) != ncol(dm)) 1 else which(suffStat$nlev != seen)[1]
      stop("suffStat$nlev[", j, "] = ", suffStat$nlev[j], " but column ", j, " of dm holds ", seen[j],
           " distinct values: cudag counts the levels present in the data", call. = FALSE)
    }
  }
  if (test == "binCItest" && any(dm != 0 & dm != 1))
    stop("suffStat$dm: binCItest needs 0/1 data", call. = FALSE)
  dm
}

.labels <- function(labels, p, n_cols) {
  if (missing(labels) || is.null(labels)) {
    if (missing(p) || is.null(p)) {
      if (is.null(n_cols)) stop("need to specify 'labels' or 'p'", call. = FALSE)
      p <- n_cols
    }
    labels <- as.character(seq_len(p))
  } else if (!is.character(labels)) {
    stop("labels must be a character vector", call. = FALSE)
  } else if (!missing(p) && !is.null(p) && p != length(labels)) {
    stop("'p' is not needed when 'labels' is specified, and must match length(labels)", call. = FALSE)
  }
  if (!is.null(n_cols) && length(labels) != n_cols)
    stop(length(labels), " labels for ", n_cols, " variables", call. = FALSE)
  if (anyDuplicated(labels))
    stop("labels must be distinct: '", labels[anyDuplicated(labels)], "' is given twice", call. = FALSE)
  labels
}

# m.max / pdsep.max as cudag's level cap (-1: none): Inf or a whole number >= 0 (pcalg runs no
# level at all for a negative one and rounds a fraction up: both refused here).
.level_cap <- function(v, what) {
  if (!is.numeric(v) || length(v) != 1 || is.na(v) || (is.finite(v) && (v < 0 || v != floor(v))) || v == -Inf)
    stop(what, " must be Inf or a whole number >= 0", call. = FALSE)
  if (is.infinite(v)) -1L else as.integer(v)
}

# The library's errors in R's terms: its command-line options named as pcalg's arguments.
.r_terms <- function(e, caller) {
  m <- conditionMessage(e)
  m <- gsub("rerun with --max-level ([0-9]+)", "give m.max = \\1 or less", m)
  m <- gsub("use --max-level ([0-9]+) or less", "give m.max = \\1 or less", m)
  m <- gsub("--max-level ([0-9]+)", "m.max = \\1", m)
  m <- sub(" (drop the column, or use --dof causal-learn, which tests it with df = 0, p = 1)", " (drop the column)", m,
           fixed = TRUE)
  m <- sub("PC needs at least", paste(caller, "needs at least"), m, fixed = TRUE)
  stop(m, call. = FALSE)
}

# The common arguments checked and the input read from suffStat: the test, the data or C
# and n, CMIknn's settings, the labels, m.max as cudag's max level, fixedGaps / fixedEdges.
.inputs <- function(suffStat, indepTest, alpha, labels, p, m.max, fixedGaps, fixedEdges, NAdelete, backend,
                    threads, verbose, caller) {
  test <- .test_name(indepTest, caller)
  if (!is.numeric(alpha) || length(alpha) != 1 || !(alpha > 0 && alpha < 1))
    stop("alpha must be one number in (0, 1)", call. = FALSE)
  if (!isTRUE(NAdelete))
    stop("NAdelete = FALSE is not supported: cudag's tests never return NA (NA data are refused)", call. = FALSE)
  backend <- match.arg(backend, c("auto", "cpu", "cuda"))
  max_level <- .level_cap(m.max, "m.max")
  data <- NULL
  corr <- NULL
  n <- 0
  cmi <- list()
  adapt_df <- FALSE
  if (test == "gaussCItest") {
    if (is.list(suffStat) && !is.data.frame(suffStat) && !is.null(suffStat$C)) {
      corr <- .numeric_data(suffStat$C, "suffStat$C", test, hint = FALSE)
      n <- suffStat$n
      if (!is.numeric(n) || length(n) != 1) stop("suffStat$n must be the sample size (one number)", call. = FALSE)
    } else {
      d <- if (is.list(suffStat) && !is.data.frame(suffStat)) suffStat$data else suffStat
      if (is.null(d)) stop("suffStat: gaussCItest needs list(C, n) or the data (list(data = X) or X)", call. = FALSE)
      data <- .numeric_data(d, "suffStat$data", test)
    }
  } else if (test == "cmiknnCItest") {
    d <- if (is.list(suffStat) && !is.data.frame(suffStat)) suffStat$data else suffStat
    if (is.null(d)) stop("suffStat: cmiknnCItest needs the data (list(data = X, knn, permutations, seed))",
                         call. = FALSE)
    data <- .numeric_data(d, "suffStat$data", test)
    if (is.list(suffStat) && !is.data.frame(suffStat))
      cmi <- suffStat[intersect(names(suffStat), c("knn", "shuffle.neighbors", "permutations", "transform", "seed"))]
  } else {
    data <- .discrete_data(suffStat, test)
    adapt_df <- isTRUE(suffStat$adaptDF)  # pcalg's df lowered by the zero counts
  }
  n_cols <- if (!is.null(data)) ncol(data) else ncol(corr)
  fixed <- function(m, what) {
    if (is.null(m)) return(NULL)
    if (!is.matrix(m)) stop(what, " must be a logical matrix", call. = FALSE)
    storage.mode(m) <- "logical"
    m
  }
  gaps <- fixed(fixedGaps, "fixedGaps")
  edges <- fixed(fixedEdges, "fixedEdges")
  # a pair in both: the gap wins, as in pcalg (its edge is gone before any test)
  if (!is.null(gaps) && !is.null(edges) && identical(dim(gaps), dim(edges))) edges[gaps %in% TRUE] <- FALSE
  list(data = data, corr = corr, n = as.numeric(n),
       args = list(labels = .labels(labels, p, n_cols), test = unname(.cudag_tests[test]), alpha = alpha,
                   max_level = max_level, gaps = gaps, edges = edges, backend = backend,
                   threads = as.integer(threads), verbose = isTRUE(verbose), cmi = cmi, adapt_df = adapt_df))
}

# The raw result with the labels and fixedGaps, R's warnings given.
.finish <- function(raw, a) {
  for (w in raw$warnings) warning(w, call. = FALSE)
  raw$labels <- a$args$labels
  raw$fixed_gaps <- a$args$gaps
  raw
}

# Runs PC's search; returns the raw result with the labels and, given the call `cl` and
# pcalg (.shapes), pcalg's object as `object`.
.run <- function(suffStat, indepTest, alpha, labels, p, m.max, fixedGaps, fixedEdges, NAdelete,
                 backend, threads, verbose, skeleton_only, triple_rule = 0L, cl = NULL) {
  a <- .inputs(suffStat, indepTest, alpha, labels, p, m.max, fixedGaps, fixedEdges, NAdelete, backend, threads,
               verbose, if (skeleton_only) "skeleton" else "pc")
  shapes <- if (is.null(cl)) NULL else .shapes(a$args$labels, cl)
  raw <- tryCatch(.cudag_pc(a$data, a$corr, a$n, a$args, skeleton_only, as.integer(triple_rule), shapes),
                  error = function(e) .r_terms(e, if (skeleton_only) "skeleton" else "PC"))
  .finish(raw, a)
}

# pcalg's slots from the raw result: pMax and sepset come built from src/cudag_r.cpp
# (result_list); the skeleton's matrix only for the plain list (without pcalg).
.parts <- function(raw) {
  levels <- raw$levels
  n.edgetests <- numeric(if (length(levels)) max(levels) + 1L else 1L)
  n.edgetests[levels + 1L] <- raw$tests
  list(pmax = raw$pMax, sepset = raw$sepset, n.edgetests = n.edgetests,
       max.ord = as.integer(length(n.edgetests) - 1L))
}

# The skeleton as a logical matrix with the labels as dimnames.
.skel_matrix <- function(raw) {
  p <- length(raw$labels)
  skel <- matrix(FALSE, p, p, dimnames = list(raw$labels, raw$labels))
  skel[cbind(raw$skel_i + 1L, raw$skel_j + 1L)] <- TRUE
  skel[cbind(raw$skel_j + 1L, raw$skel_i + 1L)] <- TRUE
  skel
}

# The prototypes of pcalg's objects (new(<pcAlgo>), new(<graphNEL>)) and the call, whose
# slots src/cudag_r.cpp (pcalg_object) fills as graph's as(<adjacency matrix>, "graphNEL")
# and pcalg's pc() make them (R's `@<-` walks the p x p sepset looking for a cycle, and
# graph's initialize runs validGraph over every node and edge: most of a call at 500
# variables); NULL without pcalg (options(cudag.pcAlgo = FALSE) too). The node names are
# checked as graph checks them. tests/testthat/test-pc-objects.R holds the identical().
.shapes <- function(labels, cl) {
  if (!.pcalg_ready()) return(NULL)
  if (anyNA(labels) || any(!nzchar(labels))) stop("labels: empty or NA names cannot name graph nodes", call. = FALSE)
  if (any(grepl("|", labels, fixed = TRUE)))
    stop("labels: graph's node names cannot hold '|' (its edge key separator)", call. = FALSE)
  c(.prototypes(), list(call = cl))
}

# new(<pcAlgo>) and new(<graphNEL>) (graph's initialize: most of a millisecond), made once
# per loaded pcalg and graph (the C++ side copies them before setting a slot).
.prototype_cache <- new.env(parent = emptyenv())
.prototypes <- function() {
  key <- list(asNamespace("pcalg"), asNamespace("graph"))  # environments: identical() compares them as pointers
  if (!identical(.prototype_cache$key, key)) {
    .prototype_cache$value <- list(pcAlgo = new(methods::getClass("pcAlgo", where = asNamespace("pcalg"))),
                                   graphNEL = new(methods::getClass("graphNEL", where = asNamespace("graph"))))
    .prototype_cache$key <- key
  }
  .prototype_cache$value
}

# pcalg's objects when pcalg and graph are installed, unless options(cudag.pcAlgo = FALSE).
.pcalg_ready <- function() {
  !identical(getOption("cudag.pcAlgo"), FALSE) && requireNamespace("pcalg", quietly = TRUE) &&
    requireNamespace("graph", quietly = TRUE)
}

# pcalg's object built in C++ (.shapes), else the plain list.
.result <- function(raw, cl, cpdag) {
  if (!is.null(raw$object)) return(raw$object)
  parts <- .parts(raw)
  amat <- if (cpdag) .cpdag_matrix(raw) else .skel_matrix(raw)
  structure(list(amat = amat, sepset = parts$sepset, pMax = parts$pmax, n.edgetests = parts$n.edgetests,
                 max.ord = parts$max.ord, call = cl, labels = raw$labels, config = raw$config,
                 kind = if (cpdag) "cpdag" else "skeleton"),
            class = "cudag_pc")
}

# The CPDAG as pcalg's amat of a graph (amat[a, b] = 1: a mark a -> b).
.cpdag_matrix <- function(raw) {
  p <- length(raw$labels)
  amat <- matrix(0, p, p)
  amat[cbind(raw$arc_from + 1L, raw$arc_to + 1L)] <- 1
  amat
}

#' PC-stable's skeleton with pcalg's interface (pcalg::skeleton(method = "stable")).
skeleton <- function(suffStat, indepTest, alpha, labels, p, method = "stable", m.max = Inf,
                     fixedGaps = NULL, fixedEdges = NULL, NAdelete = TRUE, numCores = 1, verbose = FALSE,
                     backend = "auto", threads = 0L) {
  cl <- match.call()
  if (!method %in% c("stable", "stable.fast"))
    stop("method = \"", method, "\": cudag runs PC-stable (\"stable\", or \"stable.fast\": the same result)",
         call. = FALSE)
  raw <- .run(suffStat, indepTest, alpha, if (missing(labels)) NULL else labels, if (missing(p)) NULL else p,
              m.max, fixedGaps, fixedEdges, NAdelete, backend, threads, verbose, TRUE, cl = cl)
  .result(raw, cl, FALSE)
}

#' PC-stable with pcalg's interface (pcalg::pc(skel.method = "stable", u2pd = "relaxed")).
pc <- function(suffStat, indepTest, alpha, labels, p, fixedGaps = NULL, fixedEdges = NULL, NAdelete = TRUE,
               m.max = Inf, u2pd = c("relaxed", "rand", "retry"), skel.method = c("stable", "original", "stable.fast"),
               conservative = FALSE, maj.rule = FALSE, solve.confl = FALSE, numCores = 1, verbose = FALSE,
               backend = "auto", threads = 0L) {
  cl <- match.call()
  u2pd <- match.arg(u2pd)
  skel.method <- match.arg(skel.method)
  if (u2pd != "relaxed")
    stop("u2pd = \"", u2pd, "\" is not supported: cudag orients as pcalg's udag2pdagRelaxed (u2pd = \"relaxed\"); ",
         "\"rand\" draws from R's random numbers", call. = FALSE)
  if (skel.method == "original")
    stop("skel.method = \"original\" is not supported: cudag runs PC-stable (\"stable\", \"stable.fast\")",
         call. = FALSE)
  if (isTRUE(solve.confl))
    stop("solve.confl = TRUE is not supported: cudag orients as pcalg with solve.confl = FALSE", call. = FALSE)
  if (isTRUE(conservative) && isTRUE(maj.rule)) stop("Choose either conservative PC or majority rule PC!",
                                                     call. = FALSE)
  raw <- .run(suffStat, indepTest, alpha, if (missing(labels)) NULL else labels, if (missing(p)) NULL else p,
              m.max, fixedGaps, fixedEdges, NAdelete, backend, threads, verbose, FALSE,
              if (isTRUE(conservative)) 1L else if (isTRUE(maj.rule)) 2L else 0L, cl)
  .result(raw, cl, TRUE)
}
