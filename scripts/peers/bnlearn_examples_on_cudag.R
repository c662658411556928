# SPDX-License-Identifier: Apache-2.0
# bnlearn's own checks of the functions cudag faces: bnlearn 4.9's source ships no test suite,
# so its documentation examples stand in. Every example of the INSTALLED bnlearn (its Rd files,
# tools::Rd_db("bnlearn"), \dontrun sections included; never copied into the project) that
# calls score, pc.stable or boot.strength (cudag's faces of bnlearn; bnlearn has no mcmc) is run
# twice, one top-level expression at a time: once as bnlearn runs it, once with cudag's
# score / pc.stable / boot.strength bound in place of bnlearn's (only those names: the rest,
# bnlearn's skeleton() say, stays bnlearn's). Before each run the same seed is set. The value
# of every expression is compared: numbers to 1e-9 relative, networks (bn) by their nodes and
# arcs, bn.strength and other data frames by their columns, fitted networks by bnlearn's
# all.equal. Per example: the expressions that ran, were equal, differ (what), were refused by
# cudag (its message: an argument or setting the face does not take) and what could not be
# compared (a package the example needs missing, an expression after a refusal).
#   R_LIBS=build-r/Rlib Rscript scripts/peers/bnlearn_examples_on_cudag.R [--no-dontrun] [--quiet]
# Exits non-zero when an expression differs or cudag fails where bnlearn did not (a refusal
# does not count).
args <- commandArgs(trailingOnly = TRUE)
dontrun <- !"--no-dontrun" %in% args
quiet <- "--quiet" %in% args
suppressPackageStartupMessages({ library(bnlearn); requireNamespace("cudag") })
faced <- c("score", "pc.stable", "boot.strength", "ci.test")
seed <- 42

# The examples of Rd page `rd` as parsed expressions (NULL when it has none).
examples <- function(rd) {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  tools::Rd2ex(rd, f, commentDontrun = !dontrun, commentDonttest = FALSE)
  if (!file.exists(f)) return(NULL)
  # A \dontrun section may hold what is not R (an ellipsis, say): then the page without it.
  tryCatch(parse(f, keep.source = FALSE), error = function(err) {
    tools::Rd2ex(rd, f, commentDontrun = TRUE, commentDonttest = FALSE)
    parse(f, keep.source = FALSE)
  })
}

# The environment an example runs in: bnlearn's functions (attached), with cudag's faces
# bound over them when `cudag` is TRUE.
example_env <- function(cudag) {
  env <- new.env(parent = globalenv())
  if (cudag) for (f in faced) assign(f, getExportedValue("cudag", f), envir = env)
  env
}

# A refusal: cudag saying what it does not take (an argument, a value, a setting).
refusal <- function(msg) {
  grepl(paste("not one of cudag's|not supported|is refused|cudag's bootstrap|cudag runs|is not an argument of cudag",
              "not a conditional linear|only a DAG|needs|give cpdag", sep = "|"), msg)
}

# Runs expression `e` in `env`; list(ok, value, message).
run_one <- function(e, env) {
  tryCatch({
    out <- NULL
    utils::capture.output(out <- suppressWarnings(withVisible(eval(e, env))$value))
    list(ok = TRUE, value = out)
  }, error = function(err) list(ok = FALSE, message = conditionMessage(err)))
}

# The arcs of a network as sorted "from -> to" strings.
arc_strings <- function(x) sort(paste(x$arcs[, 1], "->", x$arcs[, 2]))

# NULL when `a` (bnlearn's) and `b` (cudag's) agree, else a line saying how they differ.
differ <- function(a, b) {
  if (inherits(a, "bn") && inherits(b, "bn")) {
    if (!identical(sort(names(a$nodes)), sort(names(b$nodes)))) return("the networks' nodes differ")
    ours <- arc_strings(b)
    theirs <- arc_strings(a)
    if (identical(ours, theirs)) return(NULL)
    return(paste0("arcs: bnlearn's only {", paste(setdiff(theirs, ours), collapse = ", "), "}, cudag's only {",
                  paste(setdiff(ours, theirs), collapse = ", "), "}"))
  }
  if (inherits(a, "bn.strength") && inherits(b, "bn.strength")) {
    key <- function(s) paste(s$from, s$to)
    m <- match(key(a), key(b))
    if (anyNA(m) || nrow(a) != nrow(b)) return("bn.strength: the pairs differ")
    worst <- max(abs(a$strength - b$strength[m]), if (!is.null(a$direction)) abs(a$direction - b$direction[m]))
    if (worst <= 1e-9) return(NULL)
    return(sprintf("bn.strength: strengths / directions differ by up to %.3f", worst))
  }
  if (inherits(a, "bn.fit") || inherits(a, "bn.fit.dnode") || inherits(a, "bn.fit.gnode")) {
    r <- tryCatch(all.equal(a, b), error = function(err) conditionMessage(err))
    return(if (isTRUE(r)) NULL else paste("fitted network:", r[1]))
  }
  if (is.numeric(a) && is.numeric(b)) {
    r <- all.equal(a, b, tolerance = 1e-9)
    if (isTRUE(r)) return(NULL)
    return(paste0(r[1], sprintf(" (bnlearn %s, cudag %s)", format(a[1], digits = 12), format(b[1], digits = 12))))
  }
  if (is.function(a) && is.function(b))  # the same code, defined in each run's environment
    return(if (identical(deparse(a), deparse(b))) NULL else "the functions differ")
  r <- tryCatch(all.equal(a, b), error = function(err) conditionMessage(err))
  if (isTRUE(r) || identical(a, b)) NULL else paste(r, collapse = "; ")
}

# The variable an assignment `x = ...`, `x <- ...` or `x$a = ...` sets (NULL for none).
assigned <- function(e) {
  if (!is.call(e) || !as.character(e[[1]]) %in% c("=", "<-")) return(NULL)
  all.names(e[[2]])[all.names(e[[2]]) != "$" & all.names(e[[2]]) != "[[" & all.names(e[[2]]) != "["][1]
}

# A refused boot.strength(algorithm = <not cudag's>) run once more by both with algorithm
# "pc.stable" (where it has no m), in environments of its own (nothing it assigns is kept):
# the strengths then differ by the resamples only (bnlearn draws them from R's RNG, cudag from
# its counter-based generator keyed by `seed`), measured against their binomial standard errors.
pc_stable_variant <- function(e, env_bn, env_cu, k) {
  swapped <- FALSE
  swap <- function(x) {
    if (!is.call(x)) return(x)
    if (identical(x[[1]], as.name("boot.strength")) && is.null(x$m)) {  # m < nrow: refused anyway
      x$algorithm <- "pc.stable"
      swapped <<- TRUE
    }
    for (i in seq_along(x)[-1]) if (!is.null(x[[i]])) x[[i]] <- swap(x[[i]])
    x
  }
  e2 <- swap(e)
  if (!swapped) return(character(0))
  if (!is.null(assigned(e2))) e2 <- e2[[3]]
  set.seed(seed + k)
  cu <- run_one(e2, new.env(parent = env_cu))
  set.seed(seed + k)
  bn <- run_one(e2, new.env(parent = env_bn))
  what <- paste0("  variant  ", deparse(e2, nlines = 1, width.cutoff = 60)[1], "\n           ")
  if (!cu$ok || !bn$ok) return(paste0(what, "not run: ", if (!cu$ok) cu$message else bn$message))
  a <- bn$value
  b <- cu$value[match(paste(a$from, a$to), paste(cu$value$from, cu$value$to)), ]
  R <- attr(a, "nboot")
  if (is.null(R)) R <- 200
  se <- sqrt((a$strength * (1 - a$strength) + b$strength * (1 - b$strength)) / R)
  z <- ifelse(se > 0, abs(a$strength - b$strength) / se, 0)
  paste0(what, sprintf(paste("strengths differ by up to %.3f (directions %.3f), at most %.1f standard errors",
                             "of the two estimates: other resamples (R's RNG vs cudag's generator)"),
                       max(abs(a$strength - b$strength)), max(abs(a$direction - b$direction)), max(z)))
}

line <- function(head, counts)
  cat(sprintf("%s %d ran (%d on cudag's values), %d equal, %d differ, %d refused, %d failed, %d not compared\n",
              head, counts[["ran"]], counts[["cudag"]], counts[["equal"]], counts[["differs"]], counts[["refused"]],
              counts[["failed"]], counts[["uncompared"]]))

total <- c(ran = 0, cudag = 0, equal = 0, differs = 0, refused = 0, failed = 0, uncompared = 0)
db <- tools::Rd_db("bnlearn")
grDevices::pdf(NULL)  # the plotting examples draw on a null device
for (page in sort(names(db))) {
  exprs <- examples(db[[page]])
  if (is.null(exprs) || !any(faced %in% all.names(as.expression(exprs)))) next
  env_bn <- example_env(FALSE)
  env_cu <- example_env(TRUE)
  counts <- total * 0
  notes <- character(0)
  blocked <- FALSE
  tainted <- faced  # names whose value comes from cudag in the second run
  for (k in seq_along(exprs)) {
    e <- exprs[[k]]
    what <- deparse(e, nlines = 1, width.cutoff = 60)[1]
    target <- assigned(e)
    if (is.null(target)) {
      on_cudag <- any(tainted %in% all.names(e))
    } else {  # `x = value` sets x anew; `x$a = value` changes x
      on_cudag <- any(tainted %in% all.names(e[[3]])) || (is.call(e[[2]]) && target %in% tainted)
      tainted <- if (on_cudag) union(tainted, target) else setdiff(tainted, target)
    }
    graphics_state <- graphics::par(no.readonly = TRUE)
    graphics_state$new <- NULL
    set.seed(seed + k)
    cu <- run_one(e, env_cu)
    graphics::par(graphics_state)  # par() returns the settings it replaced: the same for both runs
    if (!cu$ok && any(faced %in% all.names(e)) && refusal(cu$message)) {
      counts["refused"] <- counts["refused"] + 1
      notes <- c(notes, paste0("  refused  ", what, "\n           ", cu$message), pc_stable_variant(e, env_bn, env_cu, k))
      blocked <- TRUE  # what follows may need its value: run on, compared where both ran
      next
    }
    set.seed(seed + k)
    bn <- run_one(e, env_bn)
    counts["ran"] <- counts["ran"] + 1
    if (on_cudag) counts["cudag"] <- counts["cudag"] + 1
    if (!bn$ok && !cu$ok) {
      counts["uncompared"] <- counts["uncompared"] + 1
      notes <- c(notes, paste0("  not run  ", what, "\n           in both runs: ", bn$message))
    } else if (!bn$ok) {
      counts["uncompared"] <- counts["uncompared"] + 1
      notes <- c(notes, paste0("  bnlearn  ", what, "\n           fails where cudag ran: ", bn$message))
    } else if (!cu$ok) {
      key <- if (blocked) "uncompared" else "failed"
      counts[key] <- counts[key] + 1
      notes <- c(notes, paste0(if (blocked) "  after    " else "  FAILED   ", what, "\n           ", cu$message))
    } else {
      d <- differ(bn$value, cu$value)
      if (is.null(d)) {
        counts["equal"] <- counts["equal"] + 1
        if (!quiet && on_cudag) notes <- c(notes, paste0("  equal    ", what))
      } else {
        counts["differs"] <- counts["differs"] + 1
        notes <- c(notes, paste0("  DIFFERS  ", what, "\n           ", d))
      }
    }
  }
  line(sprintf("%-18s %2d expressions:", sub("\\.Rd$", "", page), length(exprs)), counts)
  if (length(notes)) cat(notes, sep = "\n")
  total <- total + counts
}
invisible(grDevices::dev.off())
line("bnlearn's examples on cudag:", total)
quit(status = if (total[["differs"]] + total[["failed"]] > 0) 1 else 0)
