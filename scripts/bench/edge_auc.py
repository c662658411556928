#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""AUC of edge scores against a true skeleton, over every pair of variables.

  edge_auc.py TRUTH.tsv freq FREQ.tsv N       bootstrap adjacency frequencies (cudag pc
                                              --bootstrap --format freq); unlisted pairs 0
  edge_auc.py TRUTH.tsv pmax RESULT.h5        one run's p-values: score 1 - pMax from the
                                              result's /pmax/matrix (h5py or h5dump; n <= 4096)

TRUTH.tsv is `cudag simulate --truth`'s edge list (source, target, ...). Ties count half
(the Mann-Whitney statistic). Prints the AUC.
"""
import csv
import sys


def truth_pairs(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    return {frozenset((r[0], r[1])) for r in rows[1:] if len(r) >= 2}


def auc(scored, n_pairs, positives):
    """scored: {pair: score} (others score 0); positives: set of true pairs."""
    pos_total = len(positives)
    neg_total = n_pairs - pos_total
    groups = {}
    for pair, s in scored.items():
        g = groups.setdefault(s, [0, 0])
        g[0 if pair in positives else 1] += 1
    listed_pos = sum(g[0] for g in groups.values())
    listed_neg = sum(g[1] for g in groups.values())
    g0 = groups.setdefault(0.0, [0, 0])
    g0[0] += pos_total - listed_pos
    g0[1] += neg_total - listed_neg
    # Walk scores upwards: a positive beats every negative below it, ties half.
    below_neg, wins = 0, 0.0
    for s in sorted(groups):
        p, q = groups[s]
        wins += p * (below_neg + 0.5 * q)
        below_neg += q
    return wins / (pos_total * neg_total)


def read_pmax(path):
    """The variable names and the n x n pMax matrix (row-major list) of a result file:
    through h5py, else through HDF5's h5dump tool."""
    try:
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:
        with h5py.File(path, "r") as f:
            names = [x.decode() if isinstance(x, bytes) else x for x in f["variables/names"][()]]
            return names, [float(x) for x in f["pmax/matrix"][()].ravel()]
    import array
    import os
    import re
    import subprocess
    import tempfile

    text = subprocess.run(["h5dump", "-y", "-w", "0", "-d", "/variables/names", path], check=True,
                          capture_output=True, text=True).stdout
    names = re.findall(r'"((?:[^"\\]|\\.)*)"', text.split("DATA {", 1)[1])
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "pmax.bin")
        subprocess.run(["h5dump", "-d", "/pmax/matrix", "-b", "LE", "-o", raw, path], check=True,
                       capture_output=True)
        values = array.array("d")
        with open(raw, "rb") as f:
            values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    return names, list(values)


def main():
    truth, kind, path = sys.argv[1], sys.argv[2], sys.argv[3]
    positives = truth_pairs(truth)
    if kind == "freq":
        n = int(sys.argv[4])
        scored = {}
        with open(path, newline="") as f:
            rows = list(csv.reader(f, delimiter="\t"))
        for r in rows[1:]:
            scored[frozenset((r[0], r[1]))] = float(r[2])
        print(f"{auc(scored, n * (n - 1) // 2, positives):.4f}")
    elif kind == "pmax":
        names, pm = read_pmax(path)
        n = len(names)
        scored = {}
        for i in range(n):
            for j in range(i + 1, n):
                p = pm[i * n + j]
                scored[frozenset((names[i], names[j]))] = 1.0 - (p if p == p else 1.0)
        print(f"{auc(scored, n * (n - 1) // 2, positives):.4f}")
    else:
        sys.exit("usage: edge_auc.py TRUTH.tsv freq FREQ.tsv N | pmax RESULT.h5")


if __name__ == "__main__":
    main()
