#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mixed-data CI tests: tests a second of cudag's cg-lrt and regression (`cudag citest
--queries`, on 1 thread and on all) against tigramite's RegressionCI().run_test_raw on the same
queries, with cudag's regression p-values checked against tigramite's; then `cudag pc` on a
large mixed data set with its level breakdown.

Data: scripts/bench/mixed_accuracy.py's conditional-Gaussian generator (numpy only), --vars
variables, a fraction --discrete of them discrete (labels "L0", "L1", ... in the CSV),
continuous values written with 6 significant digits (tigramite is given the same rounded
values, discrete ones as their codes). Queries: x != y and a set S of 0..--max-set other
variables, uniform; the first --tigramite-queries of them go to tigramite.

Timing: cudag, the whole `cudag citest` process (reading the CSV, the tests, writing), and the
tests a second are net of the same command's time on a single query, Q / (t_Q - t_1); tigramite,
the loop of run_test_raw calls alone (arrays ready, in this process). tigramite runs
scikit-learn's logistic fits for discrete-discrete pairs and numpy least squares otherwise.

    scripts/bench/mixed_tests_speed.py [--cudag build/cudag] [--samples 1000,5000] [--vars 30]
        [--queries 20000] [--tigramite-queries 300] [--max-set 2] [--tests cg-lrt,regression]
        [--threads 0] [--backend cpu|cuda] [--no-tigramite]
        [--pc-vars 1000 --pc-samples 5000 --pc-max-level -1 --pc-timeout 600] [--work DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mixed_accuracy import fmt_cont, fmt_label, sample_mixed, write_csv  # noqa: E402


def make_data(p, n, frac, degree, seed, path):
    """Writes the mixed CSV; returns (values as the CSV holds them, discrete mask, names)."""
    x, discrete, _, _ = sample_mixed(p, n, frac, degree, seed)
    cols = [fmt_label(x[:, v]) if discrete[v] else fmt_cont(x[:, v]) for v in range(p)]
    names = [f"V{v}" for v in range(p)]
    write_csv(path, names, cols)
    rounded = np.column_stack([x[:, v] if discrete[v] else cols[v].astype(float) for v in range(p)])
    return rounded, discrete, names


def make_queries(p, q, max_set, seed):
    rng = np.random.default_rng([seed, 7])
    out = []
    for _ in range(q):
        x, y, *s = rng.choice(p, 2 + max_set, replace=False)
        out.append((int(x), int(y), [int(v) for v in s[:rng.integers(0, max_set + 1)]]))
    return out


def write_queries(path, names, queries):
    with open(path, "w") as f:
        f.write("x\ty\tgiven\n")
        for x, y, s in queries:
            f.write(f"{names[x]}\t{names[y]}\t{','.join(names[v] for v in s)}\n")


def citest(a, data, queries, test, threads):
    cmd = [a.cudag, "citest", "-q", "--data", data, "--test", test, "--queries", queries, "--backend", a.backend,
           "--threads", str(threads)]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()[-400:]}")
    lines = r.stdout.strip().split("\n")[1:]
    return dt, [(float(l.split("\t")[-2]), float(l.split("\t")[-1])) for l in lines]


def tigramite(x, discrete, queries):
    import warnings
    from tigramite.independence_tests.regressionCI import RegressionCI
    test = RegressionCI()
    n = x.shape[0]
    out = []
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, j, s in queries:
            xt = np.full((n, 1), int(discrete[i]))
            yt = np.full((n, 1), int(discrete[j]))
            z = x[:, s] if s else None
            zt = np.tile(discrete[s].astype(int), (n, 1)) if s else None
            out.append(test.run_test_raw(x[:, [i]], x[:, [j]], z, x_type=xt, y_type=yt, z_type=zt))
    return time.perf_counter() - t0, out


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


LEVEL = re.compile(r"level (\d+): (\d+) tests, (\d+) removed, (\d+) edges left, ([0-9.]+) s")
SUMMARY = re.compile(r"cudag pc: (\d+) variables, (\d+) samples, (.*?): (\d+) edges .*, ([0-9.e+-]+) s(?:;|\s*$)")


def pc_scale(a):
    data = os.path.join(a.work, f"pc-{a.pc_vars}x{a.pc_samples}.csv")
    _, discrete, _ = make_data(a.pc_vars, a.pc_samples, a.discrete, a.degree, a.seed, data)
    cmd = [a.cudag, "pc", "--data", data, "--threads", str(a.threads), "--backend", a.backend, "-v",
           "--out", os.path.join(a.work, "pc.h5")]
    if a.pc_max_level >= 0:
        cmd += ["--max-level", str(a.pc_max_level)]
    print(" ".join(cmd), file=sys.stderr)
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.pc_timeout)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        print(f"cudag pc stopped after {a.pc_timeout:.0f} s; levels done:\n{err}", file=sys.stderr)
        return None
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-500:])
    print("\n".join(l for l in r.stderr.splitlines() if "column types" not in l), file=sys.stderr)
    levels = [m.groups() for m in map(LEVEL.search, r.stderr.splitlines()) if m]
    summary = [m.groups() for m in map(SUMMARY.search, r.stderr.splitlines()) if m]
    return int(discrete.sum()), levels, summary[-1] if summary else None, wall


def ints(s):
    return [int(v) for v in s.split(",") if v]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cudag", default="build/cudag")
    ap.add_argument("--samples", type=ints, default=[1000, 5000])
    ap.add_argument("--vars", type=int, default=30)
    ap.add_argument("--discrete", type=float, default=0.4)
    ap.add_argument("--degree", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--tigramite-queries", type=int, default=300)
    ap.add_argument("--no-tigramite", action="store_true")
    ap.add_argument("--max-set", type=int, default=2)
    ap.add_argument("--tests", default="cg-lrt,regression")
    ap.add_argument("--threads", type=int, default=0, help="the 'all threads' run's --threads (0: all)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--pc-vars", type=int, default=1000, help="0: no pc run")
    ap.add_argument("--pc-samples", type=int, default=5000)
    ap.add_argument("--pc-max-level", type=int, default=-1)
    ap.add_argument("--pc-timeout", type=float, default=600)
    ap.add_argument("--work", default="")
    a = ap.parse_args()
    tmp = None
    if not a.work:
        tmp = tempfile.TemporaryDirectory()
        a.work = tmp.name
    os.makedirs(a.work, exist_ok=True)
    all_threads = a.threads or os.cpu_count()
    rows, checks = [], []
    for n in a.samples:
        data = os.path.join(a.work, f"mixed-{a.vars}x{n}.csv")
        x, discrete, names = make_data(a.vars, n, a.discrete, a.degree, a.seed, data)
        queries = make_queries(a.vars, a.queries, a.max_set, a.seed)
        qfile = os.path.join(a.work, f"queries-{n}.tsv")
        write_queries(qfile, names, queries)
        one = os.path.join(a.work, f"one-{n}.tsv")
        write_queries(one, names, queries[:1])
        cudag_reg = None
        for test in a.tests.split(","):
            for threads in sorted({1, all_threads}):
                t1, _ = citest(a, data, one, test, threads)
                tq, res = citest(a, data, qfile, test, threads)
                if test == "regression":
                    cudag_reg = res
                rate = len(queries) / max(tq - t1, 1e-9)
                rows.append((n, f"cudag {test}", f"{threads} thread{'s' if threads > 1 else ''}", len(queries),
                             tq, rate))
                print(f"n {n}: cudag {test}, {threads} threads: {len(queries)} queries {tq:.2f} s "
                      f"(1 query {t1:.2f} s): {rate:.0f} tests/s", file=sys.stderr)
        if not a.no_tigramite:
            tq = queries[:a.tigramite_queries]
            dt, res = tigramite(x, discrete, tq)
            rows.append((n, "tigramite RegressionCI", "1 thread (Python)", len(tq), dt, len(tq) / dt))
            print(f"n {n}: tigramite {len(tq)} queries {dt:.2f} s", file=sys.stderr)
            if cudag_reg:
                ds = [rel(c[0], t[0]) for c, t in zip(cudag_reg, res)]
                dp = [rel(c[1], t[1]) for c, t in zip(cudag_reg, res) if max(c[1], t[1]) > 1e-300]
                kinds = [("logistic" if discrete[i] and discrete[j] else "linear") for i, j, _ in tq]
                checks.append((n, len(tq), max(ds), max(dp) if dp else 0.0, len(dp),
                               sum(d > 1e-6 for d in dp), kinds.count("logistic")))
    print(f"\nmixed_tests_speed: {a.vars} variables ({a.discrete:.0%} discrete), |S| 0..{a.max_set}, "
          f"backend {a.backend}, {os.cpu_count()} hardware threads")
    if rows:
        print("\n| n | implementation | threads | queries | seconds | tests/s |")
        print("|---:|---|---|---:|---:|---:|")
    for n, impl, th, q, s, rate in rows:
        print(f"| {n} | {impl} | {th} | {q} | {s:.2f} | {rate:,.0f} |")
    if checks:
        print("\n| n | queries compared | logistic fits among them | max rel. diff statistic | max rel. diff p "
              "(p > 1e-300) | p compared | p off by > 1e-6 |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n, q, ds, dp, k, bad, lg in checks:
            print(f"| {n} | {q} | {lg} | {ds:.1e} | {dp:.1e} | {k} | {bad} |")
    if a.pc_vars > 0:
        res = pc_scale(a)
        ml = "no cap" if a.pc_max_level < 0 else str(a.pc_max_level)
        if res is None:
            print(f"\ncudag pc, {a.pc_vars} x {a.pc_samples}, max level {ml}: not finished in {a.pc_timeout:.0f} s")
        else:
            nd, levels, summary, wall = res
            print(f"\ncudag pc, {a.pc_vars} variables ({nd} discrete) x {a.pc_samples} samples, test "
                  f"{summary[2] if summary else '?'}, max level {ml}, {all_threads} threads, backend {a.backend}: "
                  f"{summary[3] if summary else '?'} edges, learner {summary[4] if summary else '?'} s, "
                  f"process {wall:.1f} s")
            print("\n| level | tests | removed | edges left | seconds | tests/s |")
            print("|---:|---:|---:|---:|---:|---:|")
            for lv, t, rm, left, s in levels:
                rate = f"{int(t) / float(s):,.0f}" if float(s) > 0 else ""
                print(f"| {lv} | {int(t):,} | {int(rm):,} | {int(left):,} | {float(s):.2f} | {rate} |")


if __name__ == "__main__":
    main()
