#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PCMCI with ParCorr on stationary and on trending series, side by side in one process:
cudag.pcmci (CPU threads, best of --repeat) against tigramite 5.2.10.1's run_pcmci, with the
graphs and val_matrix compared. The trending set adds e^(rate·t) (a scale per series) to the
first half of the series: their lags are nearly collinear, and cudag tests what touches them
by least squares on the rows (pcmci::ParCorrBatch) instead of from the correlation matrix.

Data: a stable VAR(1) (numpy only): each series 0.4 on itself and two others at ±0.2..0.4.
Run:  PYTHONPATH=python:build/python python scripts/bench/pcmci_trend_vs_tigramite.py
(tigramite and numpy installed in that Python; not part of the tests)."""

import argparse
import time
import warnings

import numpy as np

import cudag


def series(n: int, t: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = np.zeros((n, n))
    for j in range(n):
        a[j, j] = 0.4
        for i in rng.choice(n, 2, replace=False):
            if i != j:
                a[j, i] = rng.choice([-1, 1]) * rng.uniform(0.2, 0.4)
    x = np.zeros((t, n))
    for k in range(1, t):
        x[k] = a @ x[k - 1] + rng.standard_normal(n)
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vars", type=int, default=20)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--tau-max", type=int, default=2)
    ap.add_argument("--rate", type=float, default=0.006)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    from tigramite import data_processing as pp
    from tigramite.independence_tests.parcorr import ParCorr
    from tigramite.pcmci import PCMCI

    x = series(args.vars, args.samples, args.seed)
    trend = x.copy()
    half = args.vars // 2
    scale = np.random.default_rng(args.seed + 1).uniform(0.5, 2.0, half)
    trend[:, :half] += np.exp(args.rate * np.arange(args.samples))[:, None] * scale
    for name, data in (("stationary", x), ("trending", trend)):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            r = cudag.pcmci(data, args.tau_max, pc_alpha=0.2, threads=args.threads)
            times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        tg = PCMCI(pp.DataFrame(data.copy()), ParCorr()).run_pcmci(tau_max=args.tau_max, pc_alpha=0.2)
        tt = time.perf_counter() - t0
        dv = np.abs(r["val_matrix"] - tg["val_matrix"]).max()
        print(f"{name}: cudag {min(times):.4f} s (best of {args.repeat}), tigramite {tt:.2f} s, "
              f"{tt / min(times):.0f}x, graph equal {np.array_equal(r['graph'], tg['graph'])}, "
              f"max |val - tigramite's| {dv:.2e}", flush=True)


if __name__ == "__main__":
    main()
