#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PCMCI+ with ParCorr, cudag against tigramite 5.2.10.1 in one run (docs/performance.md,
"PCMCI+ on the dev machine"): a process of tigramite's generator (N series, T steps, an
autodependency at lag 1, about two contemporaneous parents and one lag-2 parent per series),
run_pcmciplus(tau_max, pc_alpha=0.01) by tigramite, then cudag.pcmci(method="pcmciplus") on 1
and 2 CPU threads; wall times, the tests cudag ran, whether the graphs are equal and the
largest relative difference of val_matrix.

Usage: PYTHONPATH=python:build-cpu/python /work/main/.peers/py/bin/python \\
           scripts/bench/pcmciplus_vs_tigramite.py N T TAU_MAX
"""
import sys
import time

import numpy as np

import cudag
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI
from tigramite.toymodels import structural_causal_processes as toys


def lin(x):
    return x


def main():
    n, t, tau = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(3)
    links = {j: [((j, -1), 0.5, lin)] for j in range(n)}
    for j in range(n):
        for i in range(j):
            if rng.random() < 2.0 / n:
                links[j].append(((i, 0), float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.5)), lin))
        for i in range(n):
            if rng.random() < 1.0 / n:
                links[j].append(((i, -2), float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.4)), lin))
    data, _ = toys.structural_causal_process(links, T=t, seed=5)
    data = np.asarray(data, dtype=np.float64)
    start = time.perf_counter()
    ref = PCMCI(pp.DataFrame(data), ParCorr(), verbosity=0).run_pcmciplus(tau_max=tau, pc_alpha=0.01)
    tigramite_s = time.perf_counter() - start
    for threads in (1, 2):
        start = time.perf_counter()
        res = cudag.pcmci(data, tau, method="pcmciplus", threads=threads, quiet=True)
        cudag_s = time.perf_counter() - start
        diff = np.max(np.abs(res["val_matrix"] - ref["val_matrix"]) / np.maximum(np.abs(ref["val_matrix"]), 1e-300))
        print(f"N={n} T={t} tau_max={tau}: tigramite {tigramite_s:.2f} s, cudag ({threads} threads) {cudag_s:.3f} s; "
              f"tests {res['condition_selection_tests']} + {res['mci_tests']}; "
              f"graph equal {np.array_equal(res['graph'], ref['graph'])}, val within {diff:.1e}")


if __name__ == "__main__":
    main()
