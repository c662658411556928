# SPDX-License-Identifier: Apache-2.0
# cudag::fci and cudag::rfci: pcalg's interface, pcalg's fciAlgo (src/cudag_r.cpp's .cudag_fci), on the
# data or on pcalg's suffStat list(C, n) for gaussCItest (C used as given, as cudag::pc uses it).

.fci <- function(variant, cl, suffStat, indepTest, alpha, labels, p, skel.method, type, fixedGaps, fixedEdges,
                 NAdelete, m.max, pdsep.max, rules, doPdsep, biCC, conservative, maj.rule, selectionBias,
                 verbose, backend, threads, jci = "0", contextVars = NULL) {
  if (!identical(jci, "0"))
    stop("jci = \"", jci, "\" is not supported: cudag runs FCI without JCI background knowledge (jci = \"0\")",
         call. = FALSE)
  if (!is.null(contextVars))
    stop("contextVars is not supported: cudag runs FCI without JCI context variables", call. = FALSE)
  if (!skel.method %in% c("stable", "stable.fast"))
    stop("skel.method = \"", skel.method, "\" is not supported: cudag runs PC-stable (\"stable\", \"stable.fast\")",
         call. = FALSE)
  if (!all(rules)) stop("rules: cudag applies all ten of pcalg's rules (rules = rep(TRUE, 10))", call. = FALSE)
  if (isTRUE(biCC)) stop("biCC = TRUE is not supported by cudag", call. = FALSE)
  if (isTRUE(conservative) && isTRUE(maj.rule)) stop("Choose either conservative or majority rule", call. = FALSE)
  if (type == "anytime" && is.infinite(m.max))
    stop("type = \"anytime\" needs a finite m.max (pcalg's Anytime FCI)", call. = FALSE)
  if (type == "adaptive" && !is.infinite(m.max))
    stop("type = \"adaptive\" takes no m.max (pcalg's Adaptive Anytime FCI)", call. = FALSE)
  a <- .inputs(suffStat, indepTest, alpha, labels, p, m.max, fixedGaps, fixedEdges, NAdelete, backend, threads,
               verbose, variant)
  pdsep_max <- .level_cap(pdsep.max, "pdsep.max")
  raw <- .finish(tryCatch(.cudag_fci(a$data, a$corr, a$n, a$args, variant, type, pdsep_max, isTRUE(doPdsep),
                                     if (isTRUE(conservative)) 1L else if (isTRUE(maj.rule)) 2L else 0L,
                                     isTRUE(selectionBias)),
                          error = function(e) .r_terms(e, toupper(variant))), a)
  parts <- .parts(raw)
  np <- length(raw$labels)
  amat <- matrix(0, np, np, dimnames = list(raw$labels, raw$labels))
  amat[cbind(raw$pag_a + 1L, raw$pag_b + 1L)] <- raw$mark_b
  amat[cbind(raw$pag_b + 1L, raw$pag_a + 1L)] <- raw$mark_a
  if (.pcalg_ready()) {
    return(new(methods::getClass("fciAlgo", where = asNamespace("pcalg")), amat = amat, call = cl, n = integer(0),
               max.ord = parts$max.ord, max.ordPDSEP = 0L, n.edgetests = parts$n.edgetests, n.edgetestsPDSEP = 0,
               sepset = parts$sepset, pMax = parts$pmax, allPdsep = vector("list", np)))
  }
  structure(list(amat = amat, sepset = parts$sepset, pMax = parts$pmax, n.edgetests = parts$n.edgetests,
                 max.ord = parts$max.ord, call = cl, labels = raw$labels, config = raw$config, kind = "pag"),
            class = "cudag_fci")
}

#' FCI with pcalg's interface (pcalg::fci), on the data or list(C, n).
fci <- function(suffStat, indepTest, alpha, labels, p, skel.method = c("stable", "original", "stable.fast"),
                type = c("normal", "anytime", "adaptive"), fixedGaps = NULL, fixedEdges = NULL, NAdelete = TRUE,
                m.max = Inf, pdsep.max = Inf, rules = rep(TRUE, 10), doPdsep = TRUE, biCC = FALSE,
                conservative = FALSE, maj.rule = FALSE, numCores = 1, selectionBias = TRUE,
                jci = c("0", "1", "12", "123"), contextVars = NULL, verbose = FALSE, backend = "auto",
                threads = 0L) {
  .fci("fci", match.call(), suffStat, indepTest, alpha, if (missing(labels)) NULL else labels,
       if (missing(p)) NULL else p, match.arg(skel.method), match.arg(type), fixedGaps, fixedEdges, NAdelete,
       m.max, pdsep.max, rules, doPdsep, biCC, conservative, maj.rule, selectionBias, verbose, backend, threads,
       match.arg(jci), contextVars)
}

#' RFCI with pcalg's interface (pcalg::rfci), on the data or list(C, n).
rfci <- function(suffStat, indepTest, alpha, labels, p, skel.method = c("stable", "original", "stable.fast"),
                 fixedGaps = NULL, fixedEdges = NULL, NAdelete = TRUE, m.max = Inf, rules = rep(TRUE, 10),
                 conservative = FALSE, maj.rule = FALSE, numCores = 1, verbose = FALSE, backend = "auto",
                 threads = 0L) {
  .fci("rfci", match.call(), suffStat, indepTest, alpha, if (missing(labels)) NULL else labels,
       if (missing(p)) NULL else p, match.arg(skel.method), "normal", fixedGaps, fixedEdges, NAdelete, m.max,
       Inf, rules, TRUE, FALSE, conservative, maj.rule, TRUE, verbose, backend, threads)
}
