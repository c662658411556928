# SPDX-License-Identifier: Apache-2.0
# The data sets of tests/data/fci/datasets/ (FCI/RFCI peer references), deterministic (fixed seeds).
# Peers (never committed or built by the project): bash ../shared/peers/install_r_peers.sh
# (R, pcalg 2.7-12, bnlearn 4.9). Usage from the repository root:
#   Rscript scripts/dev/fci_reference/make_datasets.R [OUT_DIR] [BIF_DIR]
# OUT_DIR defaults to tests/data/fci/datasets, BIF_DIR to ../shared/data/bnlearn.
#
# Gaussian (g01..g12): pcalg::randomDAG (weights in [0.1, 1]) + rmvDAG (normal errors),
#   1..3 generating nodes hidden (their columns dropped; nodes with >= 2 children first),
#   values written with 6 significant digits (formatC "%.6g"); rows are cut from the end
#   until the file is <= 58 000 bytes, so the sample sizes are smaller than asked for wide sets.
# Discrete (d01..d07): bnlearn::rbn from BIF networks, or random discrete networks sampled
#   here (d06, d07); 1..2 nodes hidden; levels coded 0..K-1 in the network's level order, levels
#   that never occur in the sample are left out (so K = the number of distinct values =
#   max + 1, the nlev given to disCItest); a column with one value in the sample is dropped
#   (datasets.tsv: constant_dropped; it acts as one more hidden node).
# Per data set: <id>.csv (header of names), <id>.truth.tsv (the generating DAG, hidden nodes
# included, cudag's TSV edge list), and one line of datasets.tsv.
suppressPackageStartupMessages({ library(pcalg); library(bnlearn) })
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "tests/data/fci/datasets"
bifdir <- if (length(args) >= 2) args[2] else "../shared/data/bnlearn"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
max_bytes <- 58000

write_csv <- function(m, path) {
  body <- apply(m, 1, function(r) paste(r, collapse = ","))
  writeLines(c(paste(colnames(m), collapse = ","), body), path)
  file.size(path)
}

pick_hidden <- function(from, to, nodes, k) {
  kids <- table(factor(from, levels = nodes))
  pool <- nodes[kids >= 2]
  h <- if (length(pool) > 0) pool[sample.int(length(pool), min(k, length(pool)))] else character(0)
  if (length(h) < k) {
    rest <- setdiff(nodes, h)
    h <- c(h, rest[sample.int(length(rest), k - length(h))])
  }
  nodes[nodes %in% h]   # in node order
}

write_truth <- function(from, to, path, weight = NULL) {
  if (is.null(weight)) {
    rows <- paste(from, to, "-->", sep = "\t"); head <- "source\ttarget\tmark"
  } else {
    rows <- paste(from, to, "-->", formatC(weight, digits = 17, format = "g"), sep = "\t")
    head <- "source\ttarget\tmark\tweight"
  }
  writeLines(c(head, rows), path)
}

index <- character(0)
add_index <- function(id, kind, source, m, hidden, csv, dropped = character(0)) {
  index <<- c(index, paste(id, kind, source, nrow(m), ncol(m), paste(hidden, collapse = ","),
                           if (length(dropped)) paste(dropped, collapse = ",") else "-",
                           paste0(id, ".csv"), file.size(csv), sep = "\t"))
}

## ---- Gaussian -------------------------------------------------------------------------------
gauss <- data.frame(
  id     = sprintf("g%02d", 1:12),
  p      = c(8, 8, 8, 10, 10, 12, 12, 14, 15, 17, 18, 20),
  hidden = c(1, 2, 3, 1, 2, 2, 3, 1, 3, 2, 3, 3),
  prob   = c(0.35, 0.45, 0.4, 0.3, 0.35, 0.3, 0.25, 0.25, 0.2, 0.2, 0.18, 0.15),
  n      = c(2000, 1000, 2000, 1000, 700, 500, 600, 400, 450, 350, 300, 250))
for (k in seq_len(nrow(gauss))) {
  s <- gauss[k, ]
  set.seed(1000 + k)
  V <- paste0("X", seq_len(s$p))
  dag <- randomDAG(s$p, s$prob, lB = 0.1, uB = 1, V = V)
  ed <- graph::edgeWeights(dag)
  from <- rep(names(ed), vapply(ed, length, 1L))
  to <- unlist(lapply(ed, names), use.names = FALSE)
  w <- unlist(ed, use.names = FALSE)
  x <- rmvDAG(s$n, dag, errDist = "normal")
  colnames(x) <- V
  hidden <- pick_hidden(from, to, V, s$hidden)
  x <- x[, !(V %in% hidden), drop = FALSE]
  txt <- matrix(formatC(x, digits = 6, format = "g"), nrow(x), dimnames = dimnames(x))
  csv <- file.path(out, paste0(s$id, ".csv"))
  n <- nrow(txt)
  while (write_csv(txt[seq_len(n), , drop = FALSE], csv) > max_bytes) n <- n - 10
  write_truth(from, to, file.path(out, paste0(s$id, ".truth.tsv")), w)
  add_index(s$id, "gaussian", sprintf("randomDAG(p=%d,prob=%.2f) seed %d", s$p, s$prob, 1000 + k),
            txt[seq_len(n), , drop = FALSE], hidden, csv)
}

## ---- Discrete -------------------------------------------------------------------------------
encode <- function(df) {
  m <- sapply(df, function(col) {
    lev <- levels(col)[levels(col) %in% as.character(col)]   # levels present, network order
    match(as.character(col), lev) - 1L
  })
  keep <- apply(m, 2, function(c) length(unique(c)) >= 2)
  constant <<- colnames(m)[!keep]
  m[, keep, drop = FALSE]
}
constant <- character(0)

bif_sets <- list(
  list(id = "d01", net = "asia", n = 2000, hidden = "smoke"),
  list(id = "d02", net = "survey", n = 3000, hidden = "E"),
  list(id = "d03", net = "sachs", n = 1500, hidden = 2),
  list(id = "d04", net = "child", n = 1000, hidden = 2),
  list(id = "d05", net = "insurance", n = 1000, hidden = 2))
for (k in seq_along(bif_sets)) {
  s <- bif_sets[[k]]
  set.seed(2000 + k)
  tmp <- tempfile(fileext = ".bif")
  system2("sh", c("-c", shQuote(sprintf("gunzip -c %s > %s",
                                        file.path(bifdir, paste0(s$net, ".bif.gz")), tmp))))
  fit <- bnlearn::read.bif(tmp)
  unlink(tmp)
  a <- bnlearn::arcs(fit)
  hidden <- if (is.character(s$hidden)) s$hidden else pick_hidden(a[, 1], a[, 2], bnlearn::nodes(fit), s$hidden)
  df <- bnlearn::rbn(fit, s$n)
  df <- df[, bnlearn::nodes(fit)]
  m <- encode(df[, !(names(df) %in% hidden), drop = FALSE])
  csv <- file.path(out, paste0(s$id, ".csv"))
  write_csv(m, csv)
  write_truth(a[, 1], a[, 2], file.path(out, paste0(s$id, ".truth.tsv")))
  add_index(s$id, "discrete", sprintf("bnlearn::rbn(%s) seed %d", s$net, 2000 + k), m, hidden, csv,
            constant)
}

## d06, d07: random discrete networks: pcalg::randomDAG(p, prob) for the graph, levels per node
## drawn from `levels`, each conditional distribution a normalised vector of Gamma(0.5) draws
## (mostly strong effects), ancestral sampling, 2 nodes hidden.
random_discrete <- function(id, seed, p, prob, levels, n) {
  set.seed(seed)
  V <- paste0("V", seq_len(p))
  dag <- randomDAG(p, prob, V = V)          # topologically ordered: parents have smaller indices
  pa <- lapply(V, function(v) V[vapply(V, function(u) v %in% graph::edges(dag)[[u]], TRUE)])
  nl <- if (length(levels) == 1) rep(levels, p) else sample(levels, p, replace = TRUE)
  x <- matrix(0L, n, p, dimnames = list(NULL, V))
  for (j in seq_len(p)) {
    pj <- match(pa[[j]], V)
    ncfg <- prod(nl[pj])
    cpt <- t(replicate(ncfg, { g <- rgamma(nl[j], 0.5) + 1e-3; g / sum(g) }))
    cfg <- if (length(pj) == 0) rep(1L, n) else {
      idx <- rep(0L, n)
      for (q in pj) idx <- idx * nl[q] + x[, q]
      idx + 1L
    }
    u <- runif(n)
    cum <- t(apply(cpt, 1, cumsum))
    x[, j] <- rowSums(u > cum[cfg, , drop = FALSE])
  }
  ed <- graph::edges(dag)
  from <- rep(names(ed), vapply(ed, length, 1L))
  to <- unlist(ed, use.names = FALSE)
  hidden <- pick_hidden(from, to, V, 2)
  df <- as.data.frame(lapply(seq_len(p), function(j) factor(x[, j], levels = 0:(nl[j] - 1))))
  names(df) <- V
  m <- encode(df[, !(V %in% hidden), drop = FALSE])
  csv <- file.path(out, paste0(id, ".csv"))
  invisible(write_csv(m, csv))
  write_truth(from, to, file.path(out, paste0(id, ".truth.tsv")))
  add_index(id, "discrete", sprintf("random network randomDAG(%d,%.2f), %s levels, Gamma(0.5) CPTs, seed %d",
                                    p, prob, paste(levels, collapse = "/"), seed), m, hidden, csv, constant)
}
random_discrete("d06", 2006, 12, 0.3, 2:3, 2500)
random_discrete("d07", 2007, 12, 0.2, 2, 2500)   # sparse and binary: pcalg's tests stay at |S| <= 4

writeLines(c("id\tkind\tsource\tn\tp\thidden\tconstant_dropped\tfile\tbytes", index), file.path(out, "datasets.tsv"))
cat(paste(index, collapse = "\n"), "\n")
