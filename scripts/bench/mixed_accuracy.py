#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PC on mixed discrete/continuous data with a known DAG: cudag pc four ways on the same
samples, skeleton and CPDAG scores against the truth (`cudag compare`), mean over seeds.

Methods (each one `cudag pc` run on the same samples):
  cg-lrt      the mixed CSV (discrete columns as labels "L0", "L1", ...), the default test
  regression  the same CSV, --test regression (tigramite's RegressionCI)
  fisher-z    discrete columns written as integer codes, every column Gaussian (--test fisher-z)
  chi-square  continuous columns cut into --bins quantile bins, every column discrete
              (--test chi-square)
  (bnlearn only) chi-square on the original all-discrete sample, as a reference

Generator (numpy only, seeded): a random topological order of p nodes, a fraction --discrete
of them discrete with 2-4 levels (uniform); an Erdos-Renyi DAG of mean degree --degree over
the pairs a conditional-Gaussian model allows (no continuous parent of a discrete node: the
edge probability is set so that the expected mean degree is --degree over those pairs).
Discrete node: a categorical CPT per configuration of its (discrete) parents, each row drawn
from Dirichlet(1, ..., 1). Continuous node: sum of w * (standardised continuous parent), w
of random sign and magnitude U(0.5, 1), plus a mean shift per configuration of its discrete
parents drawn from N(0, 1), plus N(0, 1) noise; then standardised. Column names V0, V1, ... in
a shuffled order (neither names nor order follow the causal order).

bnlearn part: `cudag simulate bif` samples a network; each variable with >= 3 states becomes
continuous (its state index in the BIF's order + N(0, --bif-noise^2) noise; ordinal only where
the network's states are), the others stay labels. That violates the conditional-Gaussian model
(continuous parents of discrete children, non-Gaussian continuous nodes): a robustness check.

Scores: `cudag compare --truth DAG --estimate CPDAG`: skeleton F1 and skeleton SHD (false +
missing adjacencies), and SHD between the estimated CPDAG and the true DAG's CPDAG. Seconds:
the learner's time of `cudag pc -v`'s summary line (skeleton and orientation, not reading).

    scripts/bench/mixed_accuracy.py [--cudag build/cudag] [--vars 20,50] [--samples 500,2000,5000]
        [--seeds 1,2,3] [--discrete 0.4] [--degree 2.5] [--bins 4] [--alpha 0.01]
        [--methods cg-lrt,regression,fisher-z,chi-square] [--bif .../alarm.bif.gz --bif-samples 2000,5000]
        [--threads 0] [--backend cpu|cuda|auto] [--timeout 600] [--work DIR]
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


# ---------------------------------------------------------------------------------- generator
def mixed_dag(p, frac_discrete, degree, seed):
    """A conditional-Gaussian DAG: (order, discrete mask, levels, parents lists, edge list)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(p)  # order[k] is the k-th node in causal order
    rank = np.empty(p, int)
    rank[order] = np.arange(p)
    n_disc = int(round(frac_discrete * p))
    discrete = np.zeros(p, bool)
    discrete[rng.choice(p, n_disc, replace=False)] = True
    levels = np.where(discrete, rng.integers(2, 5, size=p), 0)
    allowed = [(a, b) for a in range(p) for b in range(p)
               if rank[a] < rank[b] and not (discrete[b] and not discrete[a])]
    prob = min(1.0, degree * p / 2 / max(1, len(allowed)))
    keep = rng.uniform(size=len(allowed)) < prob
    edges = [e for e, k in zip(allowed, keep) if k]
    parents = [[] for _ in range(p)]
    for a, b in edges:
        parents[b].append(a)
    return order, discrete, levels, parents, edges


def sample_mixed(p, n, frac_discrete, degree, seed):
    """Samples (n x p; discrete as codes), the model; a second stream for the parameters."""
    order, discrete, levels, parents, edges = mixed_dag(p, frac_discrete, degree, seed)
    rng = np.random.default_rng([seed, 1])
    x = np.zeros((n, p))
    for v in order:
        dpa = [u for u in parents[v] if discrete[u]]
        cpa = [u for u in parents[v] if not discrete[u]]
        config = np.zeros(n, int)  # mixed-radix index of the discrete parents' configuration
        n_config = 1
        for u in dpa:
            config = config * levels[u] + x[:, u].astype(int)
            n_config *= levels[u]
        if discrete[v]:
            cpt = rng.dirichlet(np.ones(levels[v]), size=n_config)
            cum = np.cumsum(cpt[config], axis=1)
            x[:, v] = (rng.uniform(size=(n, 1)) > cum).sum(axis=1).clip(max=levels[v] - 1)
        else:
            w = rng.choice([-1.0, 1.0], size=len(cpa)) * rng.uniform(0.5, 1.0, size=len(cpa))
            shift = rng.normal(size=n_config) if dpa else np.zeros(1)
            val = x[:, cpa] @ w + shift[config] + rng.normal(size=n)
            x[:, v] = (val - val.mean()) / val.std()
    return x, discrete, levels, edges


def write_csv(path, names, columns):
    """columns: list of string arrays (already formatted), written in `names` order."""
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in zip(*columns):
            f.write(",".join(row) + "\n")


def fmt_cont(v):
    return np.char.mod("%.6g", v)


def fmt_label(v):
    return np.char.add("L", v.astype(int).astype(str))


def fmt_code(v):
    return v.astype(int).astype(str)


def quantile_bins(v, bins):
    cuts = np.quantile(v, np.linspace(0, 1, bins + 1)[1:-1])
    return np.searchsorted(cuts, v, side="right")


def write_truth(path, names, edges):
    with open(path, "w") as f:
        f.write("source\ttarget\tmark\n")
        for a, b in edges:
            f.write(f"{names[a]}\t{names[b]}\t-->\n")


# --------------------------------------------------------------------------------- cudag runs
SUMMARY = re.compile(r"cudag pc: \d+ variables, \d+ samples, .*?: (\d+) edges .* ([0-9.e+-]+) s(?:;|\s*$)")


def run_pc(a, csv, test, est):
    cmd = [a.cudag, "pc", "--data", csv, "--alpha", str(a.alpha), "--threads", str(a.threads),
           "--backend", a.backend, "--out", est, "-v"]
    if test:
        cmd += ["--test", test]
    if a.max_level >= 0:
        cmd += ["--max-level", str(a.max_level)]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-500:]}")
    learner = None
    for line in r.stderr.splitlines():
        m = SUMMARY.search(line)
        if m:
            learner = float(m.group(2))
    return learner if learner is not None else wall, wall


def compare(a, truth, est):
    r = subprocess.run([a.cudag, "compare", "--truth", truth, "--estimate", est, "--json", "-"],
                       capture_output=True, text=True, check=True)
    j = json.loads(r.stdout)
    return {"f1": j["f1"], "skel_shd": j["fp"] + j["fn"], "shd": j["shd"], "edges": j["n_est_edges"],
            "true_edges": j["n_true_edges"]}


def score(a, method, csv, test, truth, tag, rows, key):
    est = os.path.join(a.work, f"{tag}-{method.replace(' ', '_').replace(',', '')}.h5")
    try:
        learner, wall = run_pc(a, csv, test, est)
        s = compare(a, truth, est)
        s.update(seconds=learner, wall=wall)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"  {tag} {method}: {str(e)[:300]}", file=sys.stderr)
        s = None
    rows.setdefault(key + (method,), []).append(s)
    if s:
        print(f"  {tag} {method}: F1 {s['f1']:.3f}, skeleton SHD {s['skel_shd']}, CPDAG SHD {s['shd']}, "
              f"{s['seconds']:.3f} s", file=sys.stderr)


def synthetic(a, rows):
    for p in a.vars:
        for n in a.samples:
            for seed in a.seeds:
                x, discrete, levels, edges = sample_mixed(p, n, a.discrete, a.degree, seed)
                perm = np.random.default_rng([seed, 2]).permutation(p)  # file column c holds node perm[c]
                names = [""] * p
                for c, v in enumerate(perm):
                    names[v] = f"V{c}"
                cols = [names[v] for v in perm]
                tag = f"p{p}-n{n}-s{seed}"
                truth = os.path.join(a.work, f"{tag}.truth.tsv")
                write_truth(truth, names, edges)
                mixed = os.path.join(a.work, f"{tag}.mixed.csv")
                write_csv(mixed, cols, [fmt_label(x[:, v]) if discrete[v] else fmt_cont(x[:, v]) for v in perm])
                codes = os.path.join(a.work, f"{tag}.codes.csv")
                write_csv(codes, cols, [fmt_code(x[:, v]) if discrete[v] else fmt_cont(x[:, v]) for v in perm])
                binned = os.path.join(a.work, f"{tag}.binned.csv")
                write_csv(binned, cols, [fmt_code(x[:, v]) if discrete[v] else fmt_code(quantile_bins(x[:, v], a.bins))
                                         for v in perm])
                files = {"cg-lrt": (mixed, None), "regression": (mixed, "regression"),
                         "fisher-z": (codes, "fisher-z"), "chi-square": (binned, "chi-square")}
                print(f"{tag}: {len(edges)} true edges, {int(discrete.sum())} discrete", file=sys.stderr)
                for m in a.methods:
                    score(a, m, files[m][0], files[m][1], truth, tag, rows, (f"synthetic p={p}", n))


# ------------------------------------------------------------------------------------ bnlearn
def bif_states(path):
    text = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read()
    out = {}
    for m in re.finditer(r"variable\s+(\S+)\s*\{[^}]*?\{([^}]*)\}", text):
        out[m.group(1)] = [s.strip() for s in m.group(2).split(",")]
    return text, out


def bnlearn(a, rows):
    text, states = bif_states(a.bif)
    net = os.path.basename(a.bif).split(".")[0]
    bif = os.path.join(a.work, net + ".bif")
    with open(bif, "w") as f:
        f.write(text)
    for n in a.bif_samples:
        for seed in a.seeds:
            tag = f"{net}-n{n}-s{seed}"
            raw = os.path.join(a.work, f"{tag}.csv")
            truth = os.path.join(a.work, f"{tag}.truth.tsv")
            subprocess.run([a.cudag, "simulate", "-q", "bif", "--bif", bif, "--samples", str(n), "--seed", str(seed),
                            "--out", raw, "--truth", truth, "--overwrite"], check=True)
            with open(raw) as f:
                names = f.readline().strip().split(",")
                cells = np.array([line.strip().split(",") for line in f])
            rng = np.random.default_rng([seed, 3])
            idx = {v: np.array([states[v].index(s) for s in cells[:, j]]) for j, v in enumerate(names)}
            cont = {v: len(states[v]) >= 3 for v in names}
            value = {v: idx[v] + a.bif_noise * rng.normal(size=n) if cont[v] else idx[v] for v in names}
            mixed = os.path.join(a.work, f"{tag}.mixed.csv")
            write_csv(mixed, names, [fmt_cont(value[v]) if cont[v] else fmt_label(value[v]) for v in names])
            codes = os.path.join(a.work, f"{tag}.codes.csv")
            write_csv(codes, names, [fmt_cont(value[v]) if cont[v] else fmt_code(value[v]) for v in names])
            binned = os.path.join(a.work, f"{tag}.binned.csv")
            write_csv(binned, names, [fmt_code(quantile_bins(value[v], a.bins)) if cont[v] else fmt_code(value[v])
                                      for v in names])
            files = {"cg-lrt": (mixed, None), "regression": (mixed, "regression"),
                     "fisher-z": (codes, "fisher-z"), "chi-square": (binned, "chi-square")}
            print(f"{tag}: {sum(cont.values())} of {len(names)} variables continuous", file=sys.stderr)
            for m in a.methods:
                score(a, m, files[m][0], files[m][1], truth, tag, rows, (f"{net} (mixed)", n))
            score(a, "chi-square, all discrete", raw, "chi-square", truth, tag, rows, (f"{net} (mixed)", n))


# -------------------------------------------------------------------------------------- main
def ints(s):
    return [int(v) for v in s.split(",") if v]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cudag", default="build/cudag")
    ap.add_argument("--vars", type=ints, default=[20, 50])
    ap.add_argument("--samples", type=ints, default=[500, 2000, 5000])
    ap.add_argument("--seeds", type=ints, default=[1, 2, 3])
    ap.add_argument("--discrete", type=float, default=0.4, help="fraction of discrete nodes")
    ap.add_argument("--degree", type=float, default=2.5, help="expected mean degree")
    ap.add_argument("--bins", type=int, default=4, help="quantile bins for the chi-square variant")
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--methods", default="cg-lrt,regression,fisher-z,chi-square")
    ap.add_argument("--bif", default="", help="a bnlearn BIF (.bif or .bif.gz); empty: none")
    ap.add_argument("--bif-samples", type=ints, default=[2000, 5000])
    ap.add_argument("--bif-noise", type=float, default=0.5, help="sd of the noise added to a state index")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--backend", default="cpu", help="cudag pc --backend (cpu, cuda, auto)")
    ap.add_argument("--max-level", type=int, default=-1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--work", default="", help="directory for the generated files (default: a temporary one)")
    a = ap.parse_args()
    a.methods = [m for m in a.methods.split(",") if m]
    tmp = None
    if not a.work:
        tmp = tempfile.TemporaryDirectory()
        a.work = tmp.name
    os.makedirs(a.work, exist_ok=True)
    rows = {}
    t0 = time.perf_counter()
    if a.vars and a.samples:
        synthetic(a, rows)
    if a.bif:
        bnlearn(a, rows)
    print(f"\nmixed_accuracy: alpha {a.alpha}, seeds {','.join(map(str, a.seeds))}, discrete fraction {a.discrete}, "
          f"mean degree {a.degree}, {a.bins} quantile bins, backend {a.backend}, threads {a.threads or os.cpu_count()}; "
          f"{time.perf_counter() - t0:.0f} s in all")
    print("\n| data | n | method | true edges | est. edges | skeleton F1 | skeleton SHD | CPDAG SHD | seconds |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for (data, n, method), ss in rows.items():
        ok = [s for s in ss if s]
        if not ok:
            print(f"| {data} | {n} | {method} | | | failed | | | |")
            continue
        mean = {k: float(np.mean([s[k] for s in ok])) for k in ok[0]}
        note = "" if len(ok) == len(ss) else f" ({len(ss) - len(ok)} of {len(ss)} failed)"
        print(f"| {data} | {n} | {method}{note} | {mean['true_edges']:.1f} | {mean['edges']:.1f} | {mean['f1']:.3f} | "
              f"{mean['skel_shd']:.1f} | {mean['shd']:.1f} | {mean['seconds']:.3f} |")


if __name__ == "__main__":
    main()
