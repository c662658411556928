#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PCMCI speed (issue 56), side by side in one run: `cudag pcmci` on the GPU and on the CPU's
threads against tigramite 5.2.10.1's PCMCI.run_pcmci, with the results compared.

Data: a stable sparse VAR process (numpy only; --seed): each series depends on itself at lag 1
and on about `density`·N·tau_max other (series, lag) pairs, coefficients scaled so that the
process is stable, Gaussian noise (ParCorr cases) or a nonlinear transform of the parents
(CMIknn cases: tanh and squares), written with 8 significant digits.

Cases (each skipped when --skip names it):
  cmiknn-check  N = 5, T = 300, tau_max 2, 100 shuffles: cudag on the CPU's threads and on the
          GPU, results compared (val, p, graph: the same bits).
  cmiknn  --cmi-method (pcmciplus: the issue's case) with CMIknn at tigramite's defaults (knn 0.2,
          5 shuffle neighbours, 500 shuffles, ranks), N = --cmi-vars (10), T = --cmi-samples
          (1000), tau_max 3: cudag on the GPU (and the CPU with --cmi-cpu: about 15 min on 16
          threads). tigramite times --tigramite-tests tests (CMIknn.run_test on MCI-style X, Y, Z
          built from cudag's parents, the heavier kind of a run's tests) and its whole run is
          extrapolated as (all the tests cudag's run made, from its summary line) x (tigramite's
          mean time a test); cudag's statistics are checked against tigramite's on those tests
          (the MCI statistics of run_pcmci; for pcmciplus only the timing is used). `--tigramite-from DIR`
          does that part alone, on this machine, from a DIR a GPU run wrote (tigramite needs
          numba, which the GPU machine may lack).
  parcorr-small  N = 20, T = 1000, tau_max 3: cudag CPU/GPU against tigramite's whole run_pcmci
          (ParCorr), val/p/graph compared.
  parcorr-large  run_pcmciplus with ParCorr, N = --large-vars (1000), T = 2000, tau_max 5: cudag
          on the GPU (and the CPU when --large-cpu), the issue's "under 60 s" (--large-timeout).
  ranks   run_pcmciplus with ParCorr, N = --rank-vars (200), T = 2000, tau_max 5 on 1, 2, 4 MPI
          ranks (--ranks-backend cpu: 16/K threads a rank; cuda when several GPUs are visible),
          results compared byte for byte with one rank's.

    scripts/bench/pcmci_speed.py --cudag build/cudag [--out DIR] [--no-tigramite] [--no-gpu]
        [--cmi-vars 10] [--cmi-samples 1000] [--tigramite-tests 20] [--large-vars 1000] [--large-cpu]
Prints a table last.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np


def var_process(n, t, tau_max, density, seed, nonlinear=False):
    rng = np.random.default_rng(seed)
    coef = np.zeros((n, n, tau_max + 1))  # coef[j, i, lag]: (i, -lag) -> j
    for j in range(n):
        coef[j, j, 1] = rng.uniform(0.3, 0.6)
        k = max(1, int(round(density * n * tau_max)))
        for _ in range(k):
            i, lag = int(rng.integers(n)), int(rng.integers(1, tau_max + 1))
            if i == j and lag == 1:
                continue
            coef[j, i, lag] = rng.choice([-1, 1]) * rng.uniform(0.2, 0.5)
        s = np.abs(coef[j]).sum()
        if s > 0.9:
            coef[j] *= 0.9 / s
    burn = 200
    x = np.zeros((t + burn, n))
    noise = rng.standard_normal((t + burn, n))
    for step in range(tau_max, t + burn):
        past = x[step - np.arange(0, tau_max + 1)]  # past[lag, i]
        drive = np.einsum("jil,li->j", coef[:, :, 1:], past[1:])
        x[step] = (np.tanh(drive) + 0.3 * drive ** 2 / (1 + drive ** 2) if nonlinear else drive) + noise[step]
    return x[burn:]


def write_csv(path, x):
    np.savetxt(path, x, delimiter=",", fmt="%.8g", header=",".join(f"X{i}" for i in range(x.shape[1])),
               comments="")
    return np.loadtxt(path, delimiter=",", skiprows=1)


def run_cudag(cudag, args, out_h5, launcher=(), timeout=None):
    t0 = time.perf_counter()
    try:
        p = subprocess.run([*launcher, cudag, "pcmci", *args, "--out", out_h5, "--format", "json"],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"did not finish in {timeout} s"
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"cudag pcmci {' '.join(args)} failed: {p.stderr.strip()}")
    with open(out_h5[:-3] + ".json") as f:
        res = json.load(f)
    return secs, res, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


def test_count(summary):
    """The tests a run made, from its summary line ("... N condition-selection and M MCI ... tests")."""
    m = re.search(r"(\d+) condition-selection and (\d+) MCI", summary)
    return int(m.group(1)) + int(m.group(2)) if m else 0


def same_result(a, b):
    return a["graph"] == b["graph"] and a["val_matrix"] == b["val_matrix"] and a["p_matrix"] == b["p_matrix"]


def mci_tests(res, tau_min=0):
    """The MCI tests of a cudag result (its parents), as tigramite's _iter_indep_conds makes them."""
    names = res["variables"]
    index = {v: k for k, v in enumerate(names)}
    parents = {index[j]: [(index[i], lag) for i, lag in ps] for j, ps in res["parents"].items()}
    n, tau_max = len(names), res["tau_max"]
    for j in range(n):
        for i in range(n):
            for tau in range(tau_min, tau_max + 1):
                if i == j and tau == 0:
                    continue
                x = (i, -tau)
                z = [node for node in parents[j] if node != x]
                z += [(k, -tau + lag) for k, lag in parents[i] if (k, -tau + lag) not in z]
                yield x, (j, 0), z


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudag", default="build/cudag")
    ap.add_argument("--out", default="/tmp/pcmci_speed")
    ap.add_argument("--no-tigramite", action="store_true")
    ap.add_argument("--no-gpu", action="store_true")
    ap.add_argument("--cmi-vars", type=int, default=10)
    ap.add_argument("--cmi-samples", type=int, default=1000)
    ap.add_argument("--tigramite-tests", type=int, default=20)
    ap.add_argument("--large-vars", type=int, default=1000)
    ap.add_argument("--large-cpu", action="store_true")
    ap.add_argument("--cmi-cpu", action="store_true")
    ap.add_argument("--cmi-method", default="pcmciplus", choices=["pcmci", "pcmciplus"])
    ap.add_argument("--large-timeout", type=int, default=300)
    ap.add_argument("--rank-vars", type=int, default=200)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--ranks-backend", default="cpu")
    ap.add_argument("--mpiexec", default="mpiexec --allow-run-as-root --oversubscribe")
    ap.add_argument("--tigramite-from", default="", help="time tigramite on a cmiknn case a GPU run wrote there")
    ap.add_argument("--skip", default="", help="comma-separated cases to skip: cmiknn-check,cmiknn,parcorr-small,parcorr-large,ranks")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    skip = set(filter(None, a.skip.split(",")))
    rows = []
    backends = ["cpu"] + ([] if a.no_gpu else ["cuda"])

    tg = None
    if not a.no_tigramite:
        try:
            from tigramite import data_processing as pp
            from tigramite.pcmci import PCMCI
            from tigramite.independence_tests.parcorr import ParCorr
            from tigramite.independence_tests.cmiknn import CMIknn
            tg = (pp, PCMCI, ParCorr, CMIknn)
        except ImportError as e:
            print(f"tigramite not available ({e}): cudag only", file=sys.stderr)

    if "cmiknn-check" not in skip and not a.tigramite_from:
        write_csv(f"{a.out}/cmi_check.csv", var_process(5, 300, 2, 0.1, 4, nonlinear=True))
        args = ["--data", f"{a.out}/cmi_check.csv", "--tau-max", "2", "--test", "cmiknn", "--permutations", "100", "-q"]
        results = {}
        for b in backends:
            secs, res, _ = run_cudag(a.cudag, args + ["--backend", b], f"{a.out}/cmic_{b}.h5")
            results[b] = res
            rows.append(("pcmci cmiknn N=5 T=300 tau_max=2 B=100", f"cudag {b}", f"{secs:.2f} s", ""))
        if len(results) == 2:
            rows.append(("", "cpu == cuda (val, p, graph)", str(same_result(results["cpu"], results["cuda"])), ""))

    if "cmiknn" not in skip:
        src = a.tigramite_from or a.out
        cmi_csv = f"{src}/cmi.csv"
        if not a.tigramite_from:
            write_csv(cmi_csv, var_process(a.cmi_vars, a.cmi_samples, 3, 0.1, 1, nonlinear=True))
            args = ["--data", cmi_csv, "--tau-max", "3", "--test", "cmiknn", "--method", a.cmi_method]
            for b in (["cpu"] if a.cmi_cpu or a.no_gpu else []) + ([] if a.no_gpu else ["cuda"]):
                secs, res, summary = run_cudag(a.cudag, args + ["--backend", b], f"{a.out}/cmi_{b}.h5")
                rows.append((f"{a.cmi_method} cmiknn N={a.cmi_vars} T={a.cmi_samples} tau_max=3 (tigramite's defaults)",
                             f"cudag {b}", f"{secs:.2f} s", f"{test_count(summary)} tests"))
                with open(f"{a.out}/cmi_seconds_{b}.txt", "w") as f:
                    f.write(f"{secs}\n{test_count(summary)}\n{a.cmi_method}\n")
        if tg:
            pp, PCMCI, ParCorr, CMIknn = tg
            b = "cuda" if os.path.exists(f"{src}/cmi_cuda.json") else "cpu"
            with open(f"{src}/cmi_{b}.json") as f:
                res = json.load(f)
            with open(f"{src}/cmi_seconds_{b}.txt") as f:
                lines = f.read().split()
            secs_cudag, run_tests, method = float(lines[0]), int(lines[1]), lines[2]
            x = np.loadtxt(cmi_csv, delimiter=",", skiprows=1)
            tests = list(mci_tests(res))
            total = len(tests)
            cmi = CMIknn()
            cmi.set_dataframe(pp.DataFrame(x))  # (PCMCI would set it on a copy of the test)
            rng = np.random.default_rng(3)
            pick = rng.choice(len(tests), size=min(a.tigramite_tests, len(tests)), replace=False)
            t0 = time.perf_counter()
            worst = 0.0
            for k in pick:
                X, Y, Z = tests[k]
                val, p = cmi.run_test([X], [Y], Z=Z, tau_max=3)
                worst = max(worst, abs(val - res["val_matrix"][X[0]][Y[0]][-X[1]]))
            per = (time.perf_counter() - t0) / len(pick)
            rows.append(("", f"tigramite CMIknn.run_test, {len(pick)} MCI-style tests of {total}",
                         f"{per:.2f} s a test", f"whole {method} run ~{per * run_tests:.0f} s "
                                                f"({run_tests} tests, extrapolated)"))
            if method == "pcmci":
                rows.append(("", "max |cudag - tigramite| MCI statistic on those tests", f"{worst:.1e}", ""))
            rows.append(("", f"tigramite's run (extrapolated) / cudag {b}'s whole run",
                         f"{per * run_tests / secs_cudag:.0f}x", ""))

    if a.tigramite_from:
        skip |= {"parcorr-small", "parcorr-large"}
    if "parcorr-small" not in skip:
        x = write_csv(f"{a.out}/pc_small.csv", var_process(20, 1000, 3, 0.05, 2))
        args = ["--data", f"{a.out}/pc_small.csv", "--tau-max", "3", "-q"]
        results = {}
        for b in backends:
            secs, res, _ = run_cudag(a.cudag, args + ["--backend", b], f"{a.out}/pcs_{b}.h5")
            results[b] = (secs, res)
            rows.append(("pcmci parcorr N=20 T=1000 tau_max=3", f"cudag {b}", f"{secs:.2f} s", ""))
        if len(results) == 2:
            rows.append(("", "cpu == cuda (val, p, graph)", str(same_result(results["cpu"][1], results["cuda"][1])), ""))
        if tg:
            pp, PCMCI, ParCorr, CMIknn = tg
            t0 = time.perf_counter()
            ref = PCMCI(pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0).run_pcmci(tau_max=3)
            secs_tg = time.perf_counter() - t0
            res = results["cpu"][1]
            val = np.array(res["val_matrix"])
            pv = np.array(res["p_matrix"])
            dv = np.max(np.abs(val - ref["val_matrix"]) / np.maximum(np.abs(ref["val_matrix"]), 1e-300))
            graph_same = np.array(res["graph"]).tolist() == ref["graph"].tolist()
            rows.append(("", "tigramite run_pcmci (ParCorr)", f"{secs_tg:.2f} s",
                         f"{secs_tg / results['cpu'][0]:.0f}x cudag cpu; graph equal {graph_same}, val rel {dv:.1e}"))

    if "parcorr-large" not in skip:
        n = a.large_vars
        write_csv(f"{a.out}/pc_large.csv", var_process(n, 2000, 5, 1.0 / n, 3))
        args = ["--data", f"{a.out}/pc_large.csv", "--tau-max", "5", "--method", "pcmciplus"]
        results = {}
        for b in (["cuda"] if not a.no_gpu else []) + (["cpu"] if a.large_cpu or a.no_gpu else []):
            secs, res, summary = run_cudag(a.cudag, args + ["--backend", b], f"{a.out}/pcl_{b}.h5",
                                           timeout=a.large_timeout)
            if res is None:
                rows.append((f"pcmciplus parcorr N={n} T=2000 tau_max=5", f"cudag {b}", summary, ""))
                continue
            results[b] = res
            links = sum(1 for i in res["graph"] for j in i for g in j if g)
            rows.append((f"pcmciplus parcorr N={n} T=2000 tau_max=5", f"cudag {b}", f"{secs:.2f} s",
                         f"{test_count(summary)} tests, {links} link marks"))
        if len(results) == 2:
            rows.append(("", "cpu == cuda (val, p, graph)", str(same_result(results["cpu"], results["cuda"])), ""))

    if "ranks" not in skip:
        n = a.rank_vars
        write_csv(f"{a.out}/pc_ranks.csv", var_process(n, 2000, 5, 1.0 / n, 5))
        ranks = [int(k) for k in a.ranks.split(",")]
        first = None
        base = None
        for k in ranks:
            args = ["--data", f"{a.out}/pc_ranks.csv", "--tau-max", "5", "--method", "pcmciplus",
                    "--backend", a.ranks_backend]
            if a.ranks_backend == "cpu":
                args += ["--threads", str(max(1, (os.cpu_count() or 1) // k))]
            secs, res, summary = run_cudag(a.cudag, args, f"{a.out}/pcr_{k}.h5", launcher=a.mpiexec.split() +
                                           ["-n", str(k)], timeout=a.large_timeout)
            if res is None:
                rows.append((f"pcmciplus parcorr N={n} T=2000 tau_max=5, {k} ranks", a.ranks_backend, summary, ""))
                continue
            base = base or secs
            if first is None:
                first = res
            rows.append((f"pcmciplus parcorr N={n} T=2000 tau_max=5, {k} ranks ({a.ranks_backend})",
                         f"cudag {k} rank(s)", f"{secs:.2f} s",
                         f"{base / secs:.2f}x 1 rank; same result as 1 rank: {same_result(first, res)}"))

    print("\ncase\twhat\ttime\tnote")
    for r in rows:
        print("\t".join(r))


if __name__ == "__main__":
    main()
