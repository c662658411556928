# SPDX-License-Identifier: Apache-2.0
"""Single CI tests, side by side in one process: causal-learn's CIT(X, "fisherz") against
cudag.compat.causallearn.CIT (cudag's tester by column index behind a native table keyed as
causal-learn's result cache), on three shapes (samples x variables): set-up, the first 3,000
random tests (|S| = 3; cudag's session moves to the correlation matrix among them, which
causal-learn computes in its set-up), 3,000 more new ones, then the 6,000 repeated (five
passes back to back), and set-up plus the 6,000 new ones per test; p-values compared, and each repeated
answer checked to be the first bit for bit.

Each column is the median of --repeats runs (a fresh CIT each, the two libraries taking turns;
the repeated column the median of all its passes), and each ratio the ratio of the medians
(the repeated column's also the lowest and highest ratio of the passes paired in order).
Times are CPU times of this process (time.process_time: the machine may be shared), single-
threaded but the set-up; the calls are made from a function, as a search makes them (a loop at
a script's top level adds a dictionary store per name to every call on both sides). Needs
causal-learn and cudag importable, e.g. beside causal-learn's venv:
PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag python scripts/bench/tester_vs_causal_learn.py
"""
import argparse
import os
import statistics
import time

import numpy as np
from causallearn.utils.cit import CIT as ClCIT

from cudag.compat.causallearn import CIT as CudagCIT

PASSES = 5  # passes over the 6,000 repeated keys in each run


def ask(t, calls) -> list:
    return [t(a, b, s) for a, b, s in calls]


def one_run(make, calls) -> tuple:
    """(set-up s, ms a test: first 3,000, next 3,000, repeated, set-up + 6,000 new), the
    p-values of the first pass."""
    clock = time.process_time
    t0 = clock()
    t = make()
    t1 = clock()
    ps = ask(t, calls[:3000])
    t2 = clock()
    ps += ask(t, calls[3000:])
    t3 = clock()
    repeated, answers = [], []
    for _ in range(PASSES):  # back to back, checked after
        r0 = clock()
        answers.append(ask(t, calls))
        repeated.append(1e3 * (clock() - r0) / len(calls))
    for again in answers:
        if any(p.hex() != q.hex() for p, q in zip(map(float, ps), map(float, again))):
            raise SystemExit("tester_vs_causal_learn: a repeated key answered another p-value")
    times = (t1 - t0, 1e3 * (t2 - t1) / 3000, 1e3 * (t3 - t2) / 3000, 1e3 * (t3 - t0) / 6000)
    return times, repeated, ps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per shape and library (the median is shown)")
    args = ap.parse_args()
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs; "
          f"median of {args.repeats} runs")
    print("| shape (m x n) | library | set-up s | first 3,000 ms/test | next 3,000 new ms/test | repeated ms/test | "
          "set-up + 6,000 new ms/test |")
    print("|---|---|---|---|---|---|---|")
    for m, n in [(1000, 50), (5000, 500), (20000, 200)]:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(m, n))
        for j in range(1, n):
            x[:, j] += 0.3 * x[:, j - 1]
        calls = [(int(a), int(b), [int(v) for v in s]) for a, b, *s in (rng.choice(n, 5, replace=False)
                                                                         for _ in range(6000))]
        libs = [("causal-learn", lambda: ClCIT(x, "fisherz")), ("cudag", lambda: CudagCIT(x, "fisherz"))]
        runs = {name: [] for name, _ in libs}
        repeated = {name: [] for name, _ in libs}
        res = {}
        for _ in range(args.repeats):
            for name, make in libs:
                times, rep, res[name] = one_run(make, calls)
                runs[name].append(times)
                repeated[name] += rep
        rows = {}
        for name, _ in libs:
            med = [statistics.median(col) for col in zip(*runs[name])]
            rows[name] = (med[0], med[1], med[2], statistics.median(repeated[name]), med[3])
            r = rows[name]
            print(f"| {m} x {n} | {name} | {r[0]:.3f} | {r[1]:.4f} | {r[2]:.4f} | {r[3]:.5f} | {r[4]:.4f} |")
        c, d = rows["causal-learn"], rows["cudag"]
        paired = [a / b for a, b in zip(repeated["causal-learn"], repeated["cudag"])]  # pass k of run r on each side
        lo, hi = min(paired), max(paired)
        print(f"| {m} x {n} | causal-learn / cudag | | {c[1] / d[1]:.1f}x | {c[2] / d[2]:.1f}x | {c[3] / d[3]:.1f}x "
              f"({lo:.1f}-{hi:.1f}) | {c[4] / d[4]:.1f}x |")
        print(f"|   max abs p difference {max(abs(p - q) for p, q in zip(res['cudag'], res['causal-learn'])):.2e} |")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
