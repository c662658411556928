# SPDX-License-Identifier: Apache-2.0
# pcalg's true PAG (dag2pag with dsepTest) of each DAG in a file written by oracle_pags.py.
# Peers: bash ../shared/peers/install_r_peers.sh (R, pcalg 2.7-12; never committed or built here).
#   Rscript oracle_pcalg.R DAGS_IN PAGS_OUT
# DAGS_IN blocks: "dag ID" / "nodes N1 N2 ..." (all nodes, the graph's node order) /
# "latent L1 L2 ..." or "latent -" / "edge A B" lines / "end".
# PAGS_OUT lines: "ID:row1;row2;..." (amat.pag over the non-latent nodes in the "nodes" order).
# dag2pag needs the graph's nodes in a topological order (its ancTS reads parents of node i
# among nodes 1..i-1 only; man page: "The graph must be topological sorted"): the graph is
# built in a topological order (Kahn's, ties broken by the "nodes" order) and the PAG's rows
# and columns are put back into the "nodes" order afterwards.
suppressPackageStartupMessages({ library(pcalg); library(graph); library(RBGL) })
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[1])
out <- file(args[2], "w")
id <- NA; nodes <- NULL; latent <- NULL; from <- character(0); to <- character(0)
for (ln in lines) {
  tok <- strsplit(ln, " ", fixed = TRUE)[[1]]
  switch(tok[1],
    dag = { id <- tok[2]; from <- character(0); to <- character(0) },
    nodes = { nodes <- tok[-1] },
    latent = { latent <- if (identical(tok[2], "-")) character(0) else tok[-1] },
    edge = { from <- c(from, tok[2]); to <- c(to, tok[3]) },
    end = {
      topo <- character(0); left <- nodes; f <- from; t <- to
      while (length(left) > 0) {
        v <- left[!(left %in% t)][1]           # first node (in "nodes" order) without parents left
        topo <- c(topo, v); left <- setdiff(left, v)
        keep <- f != v; f <- f[keep]; t <- t[keep]
      }
      g <- new("graphNEL", nodes = topo, edgemode = "directed")
      g <- addEdge(from, to, g)
      L <- match(latent, topo)
      suff <- list(g = g, jp = RBGL::johnson.all.pairs.sp(g))
      pag <- suppressWarnings(  # RBGL::bfs warns on graphs that are not connected
        dag2pag(suffStat = suff, indepTest = dsepTest, graph = g, L = L, alpha = 0.5))
      obs.topo <- topo[setdiff(seq_along(topo), L)]   # dag2pag's row order
      obs <- nodes[!(nodes %in% latent)]
      amat <- pag@amat
      stopifnot(nrow(amat) == length(obs))
      o <- match(obs, obs.topo)
      amat <- amat[o, o, drop = FALSE]
      rows <- apply(amat, 1, function(r) paste(as.integer(r), collapse = " "))
      writeLines(paste0(id, ":", paste(rows, collapse = ";")), out)
    })
}
close(out)
