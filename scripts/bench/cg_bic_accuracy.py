#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Order MCMC on mixed data with a known DAG: `cudag mcmc` three ways on the same samples,
the MAP DAG's skeleton and CPDAG against the truth (`cudag compare`), mean over seeds; and
the time to build a cg-bic score table.

Methods (each one `cudag mcmc --space all|pc --max-parents S` run on the same samples; --space
pc runs PC with the score's test: cg-lrt, chi-square, Fisher-z):
  cg-bic  the mixed CSV (discrete columns as labels "L0", "L1", ...), --score cg-bic
  bdeu    continuous columns cut into --bins quantile bins, every column discrete (--score bdeu)
  bge     discrete columns written as integer codes, every column Gaussian (--score bge)

Data: scripts/bench/mixed_accuracy.py's generators (imported): a random conditional-Gaussian
DAG (no continuous parent of a discrete node), and a bnlearn network sampled by
`cudag simulate bif` whose variables with >= 3 states become continuous (state index +
N(0, --bif-noise^2)), the others staying labels (not a conditional-Gaussian model: continuous
parents of discrete children, non-Gaussian continuous nodes).

Scores: `cudag compare --truth DAG --estimate <the MAP DAG's edges>`: skeleton F1, skeleton
SHD (false + missing adjacencies), SHD between the CPDAGs (the MAP DAG from the result file). Seconds: the table's and the
chains' times of `cudag mcmc`'s summary line.

Table timing (--table-vars V --table-samples N): the cg-bic table of a synthetic mixed data
set (--discrete fraction) with --max-parents, --space all, at each --table-threads.

    scripts/bench/cg_bic_accuracy.py [--cudag build/cudag] [--vars 20] [--samples 500,2000]
        [--seeds 1,2,3] [--bif .../alarm.bif.gz --bif-samples 2000] [--max-parents 3]
        [--iterations 20000] [--chains 2] [--table-vars 20 --table-samples 2000 --table-threads 1,0]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mixed_accuracy import (bif_states, fmt_code, fmt_cont, fmt_label, quantile_bins,  # noqa: E402
                            sample_mixed, write_csv, write_truth)

SUMMARY = re.compile(r"table ([0-9.e+-]+) s.*chains ([0-9.e+-]+) s")


def run_mcmc(a, csv, score, tag, threads=None):
    stem = os.path.join(a.work, f"{tag}-{score}")
    space = "all" if threads is not None else a.space  # the table timing scores every set
    cmd = ["/usr/bin/time", "-f", "cpu %U %S", a.cudag, "mcmc", "--data", csv, "--score", score, "--space", space,
           "--max-parents", str(a.max_parents),
           "--chains", str(a.chains), "--iterations", str(a.iterations), "--seed", "1",
           "--threads", str(a.threads if threads is None else threads), "--backend", a.backend,
           "--out", stem + ".h5", "--format", "edges"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-500:]}")
    table = chains = cpu = None
    for line in r.stderr.splitlines():
        m = SUMMARY.search(line)
        if m:
            table, chains = float(m.group(1)), float(m.group(2))
        if line.startswith("cpu "):
            cpu = sum(float(v) for v in line.split()[1:])
    # The result file, not the edge list: it names every variable (an isolated one too).
    return stem + ".h5", table, chains, (wall, cpu)


def compare(a, truth, est):
    r = subprocess.run([a.cudag, "compare", "--truth", truth, "--estimate", est, "--json", "-"],
                       capture_output=True, text=True, check=True)
    j = json.loads(r.stdout)
    return {"f1": j["f1"], "skel_shd": j["fp"] + j["fn"], "shd": j["shd"], "edges": j["n_est_edges"],
            "true_edges": j["n_true_edges"]}


def score(a, method, csv, truth, tag, rows, key):
    try:
        est, table, chains, wall = run_mcmc(a, csv, method, tag)
        s = compare(a, truth, est)
        s.update(table=table, chains=chains, wall=wall[0])
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"  {tag} {method}: {str(e)[:300]}", file=sys.stderr)
        s = None
    rows.setdefault(key + (method,), []).append(s)
    if s:
        print(f"  {tag} {method}: F1 {s['f1']:.3f}, skeleton SHD {s['skel_shd']}, CPDAG SHD {s['shd']}, "
              f"table {s['table']} s, chains {s['chains']} s", file=sys.stderr)


def files_for(a, tag, names, columns, discrete):
    """The three CSVs of one sample: mixed (labels), binned (all codes), codes (all numbers)."""
    mixed = os.path.join(a.work, f"{tag}.mixed.csv")
    write_csv(mixed, names, [fmt_label(c) if d else fmt_cont(c) for c, d in zip(columns, discrete)])
    binned = os.path.join(a.work, f"{tag}.binned.csv")
    write_csv(binned, names, [fmt_code(c) if d else fmt_code(quantile_bins(c, a.bins)) for c, d in zip(columns, discrete)])
    codes = os.path.join(a.work, f"{tag}.codes.csv")
    write_csv(codes, names, [fmt_code(c) if d else fmt_cont(c) for c, d in zip(columns, discrete)])
    return {"cg-bic": mixed, "bdeu": binned, "bge": codes}


def synthetic(a, rows):
    for n in a.samples:
        for seed in a.seeds:
            x, discrete, levels, edges = sample_mixed(a.vars, n, a.discrete, a.degree, seed)
            names = [f"V{v}" for v in range(a.vars)]
            tag = f"p{a.vars}-n{n}-s{seed}"
            truth = os.path.join(a.work, f"{tag}.truth.tsv")
            write_truth(truth, names, edges)
            files = files_for(a, tag, names, [x[:, v] for v in range(a.vars)], list(discrete))
            print(f"{tag}: {len(edges)} true edges, {int(discrete.sum())} discrete", file=sys.stderr)
            for m in a.methods:
                score(a, m, files[m], truth, tag, rows, (f"synthetic CG p={a.vars}", n))


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
            value = [idx[v] + a.bif_noise * rng.normal(size=n) if cont[v] else idx[v] for v in names]
            files = files_for(a, tag, names, value, [not cont[v] for v in names])
            print(f"{tag}: {sum(cont.values())} of {len(names)} variables continuous", file=sys.stderr)
            for m in a.methods:
                score(a, m, files[m], truth, tag, rows, (f"{net} (mixed)", n))
            score(a, "bdeu", raw, truth, tag + "-alldiscrete", rows, (f"{net} (original, all discrete)", n))


def table_timing(a):
    x, discrete, levels, edges = sample_mixed(a.table_vars, a.table_samples, a.discrete, a.degree, 7)
    names = [f"V{v}" for v in range(a.table_vars)]
    files = files_for(a, "table", names, [x[:, v] for v in range(a.table_vars)], list(discrete))
    out = []
    for threads in a.table_threads:
        best = None
        for _ in range(a.repeats):
            _, table, _, (wall, cpu) = run_mcmc(a, files["cg-bic"], "cg-bic", f"table-t{threads}", threads)
            if best is None or table < best[0]:
                best = (table, cpu)
        out.append((threads, best))
    return out


def ints(s):
    return [int(v) for v in s.split(",") if v]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cudag", default="build/cudag")
    ap.add_argument("--vars", type=int, default=20)
    ap.add_argument("--samples", type=ints, default=[500, 2000])
    ap.add_argument("--seeds", type=ints, default=[1, 2, 3])
    ap.add_argument("--discrete", type=float, default=0.4, help="fraction of discrete nodes")
    ap.add_argument("--degree", type=float, default=2.0, help="expected mean degree")
    ap.add_argument("--bins", type=int, default=4, help="quantile bins for the bdeu variant")
    ap.add_argument("--methods", default="cg-bic,bdeu,bge")
    ap.add_argument("--bif", default="", help="a bnlearn BIF (.bif or .bif.gz); empty: none")
    ap.add_argument("--bif-samples", type=ints, default=[2000])
    ap.add_argument("--bif-noise", type=float, default=0.5, help="sd of the noise added to a state index")
    ap.add_argument("--max-parents", type=int, default=3)
    ap.add_argument("--space", default="all", help="cudag mcmc --space of the accuracy runs (all, pc)")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--table-vars", type=int, default=20)
    ap.add_argument("--table-samples", type=int, default=2000)
    ap.add_argument("--table-threads", type=ints, default=[1, 0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=1200)
    ap.add_argument("--work", default="")
    a = ap.parse_args()
    a.methods = [m for m in a.methods.split(",") if m]
    tmp = None
    if not a.work:
        tmp = tempfile.TemporaryDirectory()
        a.work = tmp.name
    os.makedirs(a.work, exist_ok=True)
    t0 = time.perf_counter()
    timing = table_timing(a) if a.table_vars > 0 else []
    rows = {}
    if a.vars > 0 and a.samples:
        synthetic(a, rows)
    if a.bif:
        bnlearn(a, rows)
    print(f"\ncg_bic_accuracy: max parents {a.max_parents}, {a.chains} chains x {a.iterations} iterations (max mode), "
          f"space {a.space}, seeds {','.join(map(str, a.seeds))}, backend {a.backend}, {os.cpu_count()} CPUs; "
          f"{time.perf_counter() - t0:.0f} s in all")
    load = os.getloadavg()[0]
    for threads, (t, cpu) in timing:
        print(f"cg-bic table, {a.table_vars} variables ({a.discrete:.0%} discrete) x {a.table_samples} rows, "
              f"max parents {a.max_parents}, space all: {t:.3f} s wall with --threads {threads} (best of {a.repeats}); "
              f"the whole run's CPU time {cpu:.1f} s; load average {load:.1f}")
    print("\n| data | n | score | true edges | MAP edges | skeleton F1 | skeleton SHD | CPDAG SHD | table s | chains s |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for (data, n, method), ss in rows.items():
        ok = [s for s in ss if s]
        if not ok:
            print(f"| {data} | {n} | {method} | | | failed | | | | |")
            continue
        mean = {k: float(np.mean([s[k] for s in ok])) for k in ok[0]}
        note = "" if len(ok) == len(ss) else f" ({len(ss) - len(ok)} of {len(ss)} failed)"
        print(f"| {data} | {n} | {method}{note} | {mean['true_edges']:.1f} | {mean['edges']:.1f} | {mean['f1']:.3f} | "
              f"{mean['skel_shd']:.1f} | {mean['shd']:.1f} | {mean['table']:.3f} | {mean['chains']:.3f} |")


if __name__ == "__main__":
    main()
