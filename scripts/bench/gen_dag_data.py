#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Linear-Gaussian data from a random DAG, written as CSV: a generator independent of
`cudag simulate` (numpy only), for benchmarks that should not run on cudag's own data.

Graphs (mean degree D = 2 * edges / nodes):
  er  Erdos-Renyi: each pair an edge with probability D / (n - 1), oriented along a random
      topological order.
  sf  preferential attachment (Barabasi-Albert, scale-free, hubs): the nodes arrive one by
      one, each attaching to about D / 2 earlier nodes drawn with probability proportional
      to their degree + 1; edges point from the earlier node to the newer, so the hubs are
      causes of many (like transcription factors).
Weights: mixed sign, magnitudes uniform in [0.25, 1]. Nodes are generated in topological
order: x = sum(w * parent) + sigma * noise, then rescaled to mean 0 and unit variance, so
every parent enters in standardized units (no variance growing along paths). The noise
standard deviation sigma is max(1, sqrt(var(signal) / SNR)): no node's signal-to-noise ratio
exceeds --max-snr (a node with many parents would otherwise be almost deterministic).
Columns are written in a shuffled order and named V0, V1, ... in the file's order, so
neither the order nor the names say anything about the causal order.

    gen_dag_data.py --graph sf --vars 10000 --samples 1000 --degree 6 --seed 1 --out d.csv
        [--truth truth.tsv] [--max-snr 4] [--noise gaussian|uniform]
"""
import argparse
import sys

import numpy as np


def er_edges(n, degree, rng):
    """(parents, children) of an ER DAG over positions 0..n-1 (parent position < child)."""
    pairs = n * (n - 1) // 2
    p = min(1.0, degree / max(1, n - 1))
    count = int(rng.binomial(pairs, p))
    # Distinct pair indices: draw with replacement, keep the unique ones, top up.
    chosen = np.unique(rng.integers(0, pairs, size=count, dtype=np.int64))
    while chosen.size < count:
        more = rng.integers(0, pairs, size=count - chosen.size, dtype=np.int64)
        chosen = np.unique(np.concatenate([chosen, more]))
    # Pair index k -> (i, j), i < j, in the order (0,1), (0,2), (1,2), (0,3), ... (by j).
    j = np.floor((1 + np.sqrt(1 + 8 * chosen.astype(np.float64))) / 2).astype(np.int64)
    j -= (j * (j - 1) // 2 > chosen)  # float rounding at large k
    j += ((j + 1) * j // 2 <= chosen)
    i = chosen - j * (j - 1) // 2
    return i, j


def sf_edges(n, degree, rng):
    """Preferential attachment: node t attaches to ~degree/2 distinct earlier nodes."""
    half = degree / 2.0
    lo = int(np.floor(half))
    frac = half - lo
    # Each node appears in `bag` once per edge end plus once for itself (degree + 1).
    bag = np.empty(n + 2 * int(np.ceil(half) + 1) * n, dtype=np.int64)
    size = 0
    parents, children = [], []
    for t in range(n):
        k = lo + (1 if rng.random() < frac else 0)
        k = min(k, t)
        if k > 0:
            picked = set()
            while len(picked) < k:
                picked.add(int(bag[rng.integers(0, size)]))
            for s in picked:
                parents.append(s)
                children.append(t)
                bag[size] = s
                size += 1
            bag[size:size + k] = t
            size += k
        bag[size] = t
        size += 1
    return np.asarray(parents, dtype=np.int64), np.asarray(children, dtype=np.int64)


def simulate(parents, children, n, m, max_snr, noise, rng):
    """The data, one column per node in generation order (parents come first)."""
    weights = rng.uniform(0.25, 1.0, size=parents.size) * rng.choice([-1.0, 1.0], size=parents.size)
    order = np.argsort(children, kind="stable")
    parents, children, weights = parents[order], children[order], weights[order]
    starts = np.searchsorted(children, np.arange(n + 1))
    x = np.empty((m, n), dtype=np.float64)
    for v in range(n):
        a, b = starts[v], starts[v + 1]
        e = rng.standard_normal(m) if noise == "gaussian" else rng.uniform(-np.sqrt(3), np.sqrt(3), m)
        if b > a:
            s = x[:, parents[a:b]] @ weights[a:b]
            sigma = max(1.0, float(np.sqrt(np.var(s) / max_snr)))
            col = s + sigma * e
        else:
            col = e
        col = col - col.mean()
        sd = col.std()
        x[:, v] = col / sd if sd > 0 else col
    return x, parents, children, weights


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", choices=["er", "sf"], required=True)
    ap.add_argument("--vars", type=int, required=True)
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--degree", type=float, required=True, help="mean degree (2 * edges / nodes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-snr", type=float, default=4.0,
                    help="largest signal-to-noise variance ratio of a node (default 4)")
    ap.add_argument("--noise", choices=["gaussian", "uniform"], default="gaussian")
    ap.add_argument("--out", required=True, help="CSV file (header row of names)")
    ap.add_argument("--truth", help="true DAG as a TSV edge list (source, target, weight)")
    a = ap.parse_args(argv)
    if a.vars < 2 or a.samples < 2 or a.degree < 0 or a.max_snr <= 0:
        ap.error("need --vars >= 2, --samples >= 2, --degree >= 0, --max-snr > 0")
    rng = np.random.default_rng(a.seed)
    n, m = a.vars, a.samples
    pa, ch = (er_edges if a.graph == "er" else sf_edges)(n, a.degree, rng)
    x, pa, ch, w = simulate(pa, ch, n, m, a.max_snr, a.noise, rng)
    # File column c, named V<c>, holds generated node cols[c]: neither the column order nor
    # the names follow the causal order.
    cols = rng.permutation(n)
    names = np.empty(n, dtype=object)
    names[cols] = [f"V{c}" for c in range(n)]
    with open(a.out, "w") as f:
        f.write(",".join(f"V{c}" for c in range(n)) + "\n")
        np.savetxt(f, x[:, cols], fmt="%.6g", delimiter=",")
    if a.truth:
        with open(a.truth, "w") as f:
            f.write("source\ttarget\tweight\n")
            for s, t, wt in zip(pa, ch, w):
                f.write(f"{names[s]}\t{names[t]}\t{wt:.6g}\n")
    degree = 2.0 * pa.size / n
    top = np.bincount(np.concatenate([pa, ch]), minlength=n).max() if pa.size else 0
    print(f"{a.graph}: {n} variables x {m} samples, {pa.size} edges, mean degree {degree:.2f}, "
          f"largest degree {top}, seed {a.seed} -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
