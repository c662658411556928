#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Driver of scripts/bench/cmiknn_gpu.sh (read that script's header for the knobs): runs
cmiknn_bench (GPU and CPU), cmiknn_tigramite.py and `cudag pc` over the settings of the
GPU-CMIknn paper's Tables 1-4 and 10 (shared/seeds/DIGEST.md §2.7) and prints the tables.
Standard library only; the paper's numbers are data below, copied from the digest.
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

# ---- the paper's numbers (DIGEST.md §2.7; seconds, A40 GPU, tigramite 5.0 on one core) ----
T1_K = [7, 10, 20, 30, 40, 50, 75, 100, 250, 500]
T1_GPU = [0.005, 0.01, 0.01, 0.01, 0.02, 0.02, 0.07, 0.13, 0.52, 1.15]
T1_CPU = [1.76, 1.79, 1.84, 1.85, 1.9, 1.96, 1.94, 2.02, 2.31, 2.69]
T2_B = [50, 100, 250, 500, 1000]
T2_GPU = {7: [0.004, 0.01, 0.01, 0.02, 0.04], 20: [0.01, 0.01, 0.01, 0.03, 0.05],
          200: [0.2, 0.39, 0.93, 1.83, 3.65]}
T2_CPU = {200: [1.18, 2.39, 5.98, 12.47, 24.61]}
T3_S = [1, 2, 3, 4, 5]
T3_GPU = {7: [0.005, 0.01, 0.01, 0.01, 0.01], 20: [0.01] * 5, 200: [0.39, 0.39, 0.39, 0.38, 0.38]}
T3_CPU = {200: [2.43, 2.9, 3.28, 3.56, 4.02]}
T4_T = [100, 250, 500, 1000, 2500, 5000, 10000]
T4_GPU = {"7": [0.002, 0.002, 0.003, 0.005, 0.01, 0.04, 0.13],
          "20": [0.002, 0.002, 0.004, 0.01, 0.02, 0.05, 0.17],
          "0.2": [0.002, 0.004, 0.04, 0.39, 5.7, 44.88, 355.77]}
T4_CPU = {"7": [0.43, 0.65, 1.02, 1.79, 4.76, 9.82, 20.62],
          "20": [0.43, 0.67, 1.05, 1.85, 4.89, 10.19, 21.64],
          "0.2": [0.46, 0.67, 1.12, 2.31, 6.86, 17.96, 55.07]}
T10_N = [100, 250, 500, 750, 1000]
T10_PARALLEL = [14.4, 74.7, 281, 637, 1088]
T10_CPU8 = [1399, 5425, 17586, 40762, 62967]
PAPER_SHUFFLE = 15


def env(name, default):
    v = os.environ.get(name, "")
    return v if v != "" else default


BUILD = sys.argv[1]
CUDAG = os.path.join(BUILD, "cudag")
BENCH = os.path.join(BUILD, "cmiknn_bench")
HERE = os.path.dirname(os.path.abspath(__file__))
TIG = os.path.join(HERE, "cmiknn_tigramite.py")
WORK = os.environ["CMI_WORK"]      # data, tests and JSON (cmiknn_gpu.sh makes it)
TABLES = env("TABLES", "1 2 3 4 10").split()
REPEAT = int(env("REPEAT", "3"))
MAX_T = int(env("MAX_T", "10000"))
ADAPTIVE_MAX_T = int(env("ADAPTIVE_MAX_T", "5000"))
NTESTS = int(env("NTESTS", "20"))
VARS = int(env("VARS", "20"))
DENSITY = float(env("DENSITY", "0.2"))
SEED = int(env("SEED", "1"))
GPU_LIMIT = int(env("GPU_LIMIT", "300"))
CPU_SKIP = env("CPU_SKIP", "") not in ("", "0")
CPU_MAX_T = int(env("CPU_MAX_T", "2500"))
CPU_THREADS = int(env("CPU_THREADS", "0"))
CPU_LIMIT = int(env("CPU_LIMIT", "120"))
CPU_TABLES = env("CPU_TABLES", "1 2 3 4").split()
TIG_MAX_T = int(env("TIG_MAX_T", "2500"))
TIG_LIMIT = int(env("TIG_LIMIT", "120"))
TIG_ALL = env("TIG_ALL", "") not in ("", "0")
TIG_TESTS = int(env("TIG_TESTS", "3"))
TIG_MAX_B = int(env("TIG_MAX_B", "250"))
GPU_SINGLE = env("GPU_SINGLE", "1") not in ("", "0")
TIG_PYTHON = env("TIG_PYTHON", "python3")
PC_VARS = [int(n) for n in env("PC_VARS", " ".join(map(str, T10_N))).split()]
PC_LIMIT = int(env("PC_LIMIT", "240"))
PC_CPU_MAX_N = int(env("PC_CPU_MAX_N", "100"))
PC_CPU_LIMIT = int(env("PC_CPU_LIMIT", "150"))
HAVE_GPU = os.environ.get("CMI_HAVE_GPU") == "1"
HAVE_TIG = os.environ.get("CMI_HAVE_TIG") == "1"
LOG = open(os.path.join(WORK, "runs.log"), "a")


def say(msg):
    print(msg, flush=True)
    LOG.write(msg + "\n")
    LOG.flush()


def run(cmd, limit, out=None):
    """Runs cmd with a time limit; returns (rc, stdout, seconds, last stderr line)."""
    LOG.write("+ " + " ".join(cmd) + "\n")
    LOG.flush()
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return 124, "", time.perf_counter() - t0, f"over {limit} s"
    wall = time.perf_counter() - t0
    LOG.write(p.stderr)
    if out is not None and p.returncode == 0:
        with open(out, "w") as f:
            f.write(p.stdout)
    err = p.stderr.strip().splitlines()
    return p.returncode, p.stdout, wall, (err[-1] if err else "")


# ---- data and tests ----------------------------------------------------------------------
def data_file(t):
    path = os.path.join(WORK, f"data_T{t}.csv")
    if not os.path.exists(path):
        rc, _, _, err = run([CUDAG, "simulate", "nonlinear", "--overwrite", "--vars", str(VARS), "--samples",
                             str(t), "--density", str(DENSITY), "--seed", str(SEED), "--out", path],
                            600)
        if rc != 0:
            raise SystemExit(f"cudag simulate nonlinear failed: {err}")
    return path


def tests_file(s, n=None):
    """The first n (default NTESTS) of NTESTS random tests x, y | S with |S| = s among VARS
    variables; the same for every T."""
    n = NTESTS if n is None else min(n, NTESTS)
    path = os.path.join(WORK, f"tests_S{s}_n{n}.tsv")
    if not os.path.exists(path):
        rng = random.Random(1000 * SEED + s)
        with open(path, "w") as f:
            for i in range(NTESTS):
                cols = rng.sample(range(VARS), s + 2)
                if i < n:
                    f.write(f"{cols[0]}\t{cols[1]}\t{','.join(map(str, sorted(cols[2:])))}\n")
    return path


# ---- one cell: GPU, CPU and tigramite timings of NTESTS tests ----------------------------
class Cell:
    """One setting (T, |S|, k, B). Runs: gpu (all tests in one CmiKnnGpu::run), gpu1 (one
    run() per test), cpu (ci::CmiKnn, one test after another), tig (tigramite, the first
    TIG_TESTS tests); each a parsed JSON, or a string saying why there is none."""
    def __init__(self, t, s, k, b):
        self.t, self.s, self.k, self.b = t, s, str(k), b
        self.key = f"T{t}_S{s}_k{self.k}_B{b}"
        self.r = {}

    def get(self, what):
        return self.r.get(what)

    def args(self, n=None):
        return ["--data", data_file(self.t), "--tests", tests_file(self.s, n), "--knn", self.k,
                "--shuffle-neighbors", str(PAPER_SHUFFLE), "--permutations", str(self.b),
                "--seed", str(SEED)]

    def _run(self, what, cmd, limit):
        rc, out, _, err = run(cmd, limit, os.path.join(WORK, f"{self.key}.{what}.json"))
        if rc == 0:
            r = json.loads(out)
            say(f"  {self.key} {what}: {r['seconds_per_test']:.4g} s/test, {r['seconds']:.4g} s "
                f"in all (setup {r['setup_seconds']:.3g} s)")
            self.r[what] = r
        else:
            self.r[what] = "timeout" if rc == 124 else "failed"
            say(f"  {self.key} {what}: {self.r[what]} (rc {rc}): {err}")

    def run(self, what):
        if what in self.r:
            return
        if what.startswith("gpu"):
            if not HAVE_GPU:
                self.r[what] = "n/a"
            elif what == "gpu1" and not GPU_SINGLE:
                self.r[what] = "skip"
            else:
                self._run(what, [BENCH, *self.args(), "--backend", "cuda", "--repeat", str(REPEAT)]
                          + (["--single"] if what == "gpu1" else []), GPU_LIMIT)
        elif what == "cpu":
            if CPU_SKIP or self.t > CPU_MAX_T:
                self.r[what] = "skip"
            else:
                self._run(what, [BENCH, *self.args(), "--backend", "cpu", "--threads",
                                 str(CPU_THREADS), "--repeat", "1"], CPU_LIMIT)
        elif what == "tig":
            if not HAVE_TIG:
                self.r[what] = "n/a"
            elif self.t > TIG_MAX_T or self.b > TIG_MAX_B:
                self.r[what] = "skip"
            else:
                self._run(what, [TIG_PYTHON, TIG, *self.args(TIG_TESTS), "--repeat", "1"],
                          TIG_LIMIT)


CELLS = {}


def cell(t, s, k, b):
    c = Cell(t, s, k, b)
    return CELLS.setdefault(c.key, c)


def ok(r):
    return isinstance(r, dict)


def per_test(r):
    return r["seconds_per_test"] if ok(r) else None


def same_results(a, b):
    """'same' when two runs' statistics and p-values are identical (the JSON text is %.17g)."""
    if not (ok(a) and ok(b)):
        return "-"
    pairs = zip(a["results"], b["results"])
    return "same" if all(x["statistic"] == y["statistic"] and x["p"] == y["p"]
                         for x, y in pairs) else "DIFFER"


def cuda_vs_cpu(c):
    """same / DIFFER over both GPU runs that exist, against the CPU run."""
    v = [same_results(c.get(g), c.get("cpu")) for g in ("gpu", "gpu1")]
    v = [x for x in v if x != "-"]
    return "-" if not v else ("DIFFER" if "DIFFER" in v else "same")


def max_stat_diff(a, b):
    if not (ok(a) and ok(b)):
        return None
    return max(abs(x["statistic"] - y["statistic"]) for x, y in zip(a["results"], b["results"]))


def goal(paper, ours):
    """The issue's goal: 10x the paper where it took >= 0.1 s, else 3x."""
    need = 10.0 if paper >= 0.1 else 3.0
    return paper / ours >= need, need


def fmt_s(r):
    if ok(r):
        v = r["seconds_per_test"]
        return f"{v:.3g}" if v >= 0.001 else f"{v:.2e}"
    return r or "-"


def fmt_x(a, b):
    return f"{a / b:.3g}x" if a and b and b > 0 else "-"


def ratio(a, b):
    """a / b of two runs' seconds per test, formatted, or '-'."""
    return fmt_x(per_test(a), per_test(b)) if ok(a) and ok(b) else "-"


# ---- tables ------------------------------------------------------------------------------
SUMMARY = []


def block(title, head, cols, cells, paper_gpu, paper_cpu, tig_row):
    """Prints one block: a row of settings (head, cols), one column per cell."""
    def line(label, vals):
        print(f"  {label:<18}" + "".join(f"{v:>10}" for v in vals))
    print(f" {title}")
    line(head, [str(c) for c in cols])
    line("GPU s/test single", [fmt_s(c.get("gpu1")) for c in cells])
    line("GPU s/test batch", [fmt_s(c.get("gpu")) for c in cells])
    line("paper A40 s/test", [f"{p:g}" for p in paper_gpu])
    line("paper/GPU single", [fmt_x(p, per_test(c.get("gpu1"))) if ok(c.get("gpu1")) else "-"
                              for p, c in zip(paper_gpu, cells)])
    line("paper/GPU batch", [fmt_x(p, per_test(c.get("gpu"))) if ok(c.get("gpu")) else "-"
                             for p, c in zip(paper_gpu, cells)])
    gl = []
    for p, c in zip(paper_gpu, cells):
        v = [("yes" if goal(p, per_test(c.get(g)))[0] else "NO") if ok(c.get(g)) else "-"
             for g in ("gpu1", "gpu")]
        gl.append("/".join(v) if v != ["-", "-"] else "-")
    line("goal single/batch", gl)
    line("CPU s/test", [fmt_s(c.get("cpu")) for c in cells])
    line("CPU/GPU single", [ratio(c.get("cpu"), c.get("gpu1")) for c in cells])
    line("CUDA==CPU", [cuda_vs_cpu(c) for c in cells])
    if tig_row:
        line("tigramite s/test", [fmt_s(c.get("tig")) for c in cells])
        line("tigramite/GPU sgl", [ratio(c.get("tig"), c.get("gpu1")) for c in cells])
        line("tigramite/CPU", [ratio(c.get("tig"), c.get("cpu")) for c in cells])
        if paper_cpu:
            line("paper CPU s/test", [f"{p:g}" for p in paper_cpu])
    for c, p in zip(cells, paper_gpu):
        SUMMARY.append((title.split(":")[0], c, p))


T_MICRO = min(1000, MAX_T)  # Tables 1-3 are at T = 1000; MAX_T below that is a smoke test


def columns(cols, *series, t=T_MICRO):
    """The columns (and the matching entries of each series) whose k is below T."""
    keep = [i for i, c in enumerate(cols) if float(c) < t or float(c) < 1]
    return [cols[i] for i in keep], [[s[i] for i in keep] if s else None for s in series]


def table_cells(tno):
    """[(row title, head, cols, cells, paper_gpu, paper_cpu, tigramite_row)] of table tno."""
    rows, t = [], T_MICRO
    if tno == "1":
        ks, (pg, pc) = columns(T1_K, T1_GPU, T1_CPU)
        rows.append(("k sweep", "k_CMI", ks, [cell(t, 1, k, 100) for k in ks], pg, pc, True))
    elif tno == "2":
        for k in (7, 20, 200):
            if k < t:
                rows.append((f"k_CMI={k}", "B", T2_B, [cell(t, 1, k, b) for b in T2_B],
                             T2_GPU[k], T2_CPU.get(k), TIG_ALL or k in T2_CPU))
    elif tno == "3":
        for k in (7, 20, 200):
            if k < t:
                rows.append((f"k_CMI={k}", "|S|", T3_S, [cell(t, s, k, 100) for s in T3_S],
                             T3_GPU[k], T3_CPU.get(k), TIG_ALL or k in T3_CPU))
    elif tno == "4":
        for k in ("7", "20", "0.2"):
            lim = min(MAX_T, ADAPTIVE_MAX_T if k == "0.2" else MAX_T)
            ts = [x for x in T4_T if x <= lim and (k == "0.2" or int(k) < x)]
            idx = [T4_T.index(x) for x in ts]
            rows.append((f"k_CMI={'adaptive 0.2T' if k == '0.2' else k}", "T", ts,
                         [cell(x, 1, k, 100) for x in ts], [T4_GPU[k][i] for i in idx],
                         [T4_CPU[k][i] for i in idx], True))
    return rows


TITLES = {
    "1": f"Table 1: {NTESTS} CI tests, T={T_MICRO}, B=100, |S|=1, 15 shuffle neighbours; scaling k_CMI",
    "2": f"Table 2: {NTESTS} CI tests, T={T_MICRO}, |S|=1; scaling permutations B",
    "3": f"Table 3: {NTESTS} CI tests, T={T_MICRO}, B=100; scaling |S|",
    "4": f"Table 4: {NTESTS} CI tests, |S|=1, B=100; scaling T (adaptive: k_CMI = 0.2 T)",
}


def micro_tables():
    plan = {t: table_cells(t) for t in TABLES if t in TITLES}
    # Run every distinct cell once (the tables share T=1000, B=100, |S|=1 cells).
    for tno, rows in plan.items():
        say(f"== {TITLES[tno]}")
        for (_, _, _, cells, _, _, tig_row) in rows:
            for c in cells:
                c.run("gpu")
                c.run("gpu1")
                if tno in CPU_TABLES:
                    c.run("cpu")
                if tig_row:
                    c.run("tig")
    return plan


def print_micro(plan):
    for tno, rows in plan.items():
        print()
        print(TITLES[tno] + "; seconds per test (the paper: median of single tests)")
        for (title, head, cols, cells, pg, pc, tig_row) in rows:
            block(f"Table {tno}: {title}", head, cols, cells, pg, pc, tig_row)


def table10():
    say("== Table 10: cudag pc --test cmiknn (k 7, 15 shuffle neighbours, B 100, alpha 0.01)")
    rows = []
    for n in PC_VARS:
        path = os.path.join(WORK, f"pc_N{n}.csv")
        dens = 1.5 / (n - 1)  # each pair j < i is an edge with probability d: degree d (N-1)
        rc, _, _, err = run([CUDAG, "simulate", "nonlinear", "--overwrite", "--vars", str(n), "--samples", "1000",
                             "--density", f"{dens:.6g}", "--seed", str(SEED), "--out", path], 600)
        if rc != 0:
            say(f"  N={n}: simulate failed: {err}")
            continue
        res = {}
        for backend in ("cuda", "cpu"):
            if backend == "cuda" and not HAVE_GPU:
                res[backend] = "n/a"
                continue
            if backend == "cpu" and (CPU_SKIP or n > PC_CPU_MAX_N):
                res[backend] = "skip"
                continue
            out = os.path.join(WORK, f"pc_N{n}.{backend}.h5")
            cmd = [CUDAG, "pc", "--data", path, "--test", "cmiknn", "--knn", "7",
                   "--shuffle-neighbors", "15", "--permutations", "100", "--alpha", "0.01",
                   "--backend", backend, "--out", out, "--format", "edges", "-q"]
            if backend == "cpu":
                cmd += ["--threads", str(CPU_THREADS)]
            rc, _, wall, err = run(cmd, PC_LIMIT if backend == "cuda" else PC_CPU_LIMIT)
            if rc == 0:
                res[backend] = wall
                say(f"  N={n} {backend}: {wall:.3g} s")
            else:
                res[backend] = "timeout" if rc == 124 else "failed"
                say(f"  N={n} {backend}: {res[backend]}: {err}")
        edges = "-"
        if isinstance(res.get("cuda"), float) and isinstance(res.get("cpu"), float):
            a = open(os.path.join(WORK, f"pc_N{n}.cuda.edges.tsv"), "rb").read()
            b = open(os.path.join(WORK, f"pc_N{n}.cpu.edges.tsv"), "rb").read()
            edges = "same" if a == b else "DIFFER"
        rows.append((n, res, edges))
        os.remove(path)  # N = 1000 is 20 MB of text; the edge lists stay
        for f in os.listdir(WORK):
            if f.startswith(f"pc_N{n}.") and f.endswith(".h5"):
                os.remove(os.path.join(WORK, f))
    return rows


def print_table10(rows):
    print()
    print("Table 10: PC adjacency search, T=1000, average degree 1.5, k_CMI=7, 15 shuffle "
          "neighbours, B=100, alpha=0.01; wall seconds of `cudag pc`")
    print(f"  {'N':<8}{'cudag GPU':>10}{'paper Par.':>11}{'paper/cudag':>12}{'cudag CPU':>10}"
          f"{'CPU/GPU':>9}{'paper CPU-8':>12}{'edges':>8}")
    for n, res, edges in rows:
        i = T10_N.index(n) if n in T10_N else None
        par = T10_PARALLEL[i] if i is not None else None
        g, c = res.get("cuda"), res.get("cpu")
        gs = f"{g:.3g}" if isinstance(g, float) else str(g)
        cs = f"{c:.3g}" if isinstance(c, float) else str(c)
        print(f"  {n:<8}{gs:>10}{(f'{par:g}' if par else '-'):>11}"
              f"{(fmt_x(par, g) if par and isinstance(g, float) else '-'):>12}{cs:>10}"
              f"{(fmt_x(c, g) if isinstance(c, float) and isinstance(g, float) else '-'):>9}"
              f"{(f'{T10_CPU8[i]:g}' if i is not None else '-'):>12}{edges:>8}")
    for n, res, edges in rows:
        if n == 1000:
            g = res.get("cuda")
            verdict = ("yes" if g < 60 else "NO") if isinstance(g, float) else "-"
            print(f"  goal N=1000 under 60 s: {verdict}")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def print_summary(t10):
    print()
    print("== cmiknn summary")
    print(f"{'table':<6}{'cells':>6}{'GPU':>5}{'goal single':>12}{'goal batch':>11}"
          f"{'CUDA==CPU':>10}{'paper/GPU1':>11}{'paper/GPUb':>11}{'CPU/GPU1':>9}{'tig/GPU1':>9}"
          f"{'tig/CPU':>9}{'max|dstat|':>11}")
    by = {}
    for name, c, p in SUMMARY:
        by.setdefault(name.split()[1], {})[c.key] = (c, p)
    f = lambda v: f"{v:.3g}x" if v else "-"  # noqa: E731
    for tno, items in by.items():
        cs = list(items.values())

        def met(g):
            runs = [(c, p) for c, p in cs if ok(c.get(g))]
            return f"{sum(goal(p, per_test(c.get(g)))[0] for c, p in runs)}/{len(runs)}"

        def gm(a, b):
            return f(geomean([per_test(c.get(a)) / per_test(c.get(b)) for c, _ in cs
                              if ok(c.get(a)) and ok(c.get(b))]))

        n_gpu = sum(ok(c.get("gpu")) or ok(c.get("gpu1")) for c, _ in cs)
        same = [cuda_vs_cpu(c) for c, _ in cs]
        n_cmp = sum(x != "-" for x in same)
        n_same = same.count("same")
        pg = {g: f(geomean([p / per_test(c.get(g)) for c, p in cs if ok(c.get(g))]))
              for g in ("gpu1", "gpu")}
        diffs = [d for d in (max_stat_diff(c.get("cpu"), c.get("tig")) for c, _ in cs)
                 if d is not None]
        print(f"{'T' + tno:<6}{len(cs):>6}{n_gpu:>5}{met('gpu1'):>12}{met('gpu'):>11}"
              f"{f'{n_same}/{n_cmp}':>10}{pg['gpu1']:>11}{pg['gpu']:>11}{gm('cpu', 'gpu1'):>9}"
              f"{gm('tig', 'gpu1'):>9}{gm('tig', 'cpu'):>9}"
              f"{(f'{max(diffs):.2g}' if diffs else '-'):>11}")
    if t10 is not None:
        for n, res, edges in t10:
            g, c = res.get("cuda"), res.get("cpu")
            if n in T10_N:
                par = T10_PARALLEL[T10_N.index(n)]
                gs = f"{g:.3g} s" if isinstance(g, float) else str(g)
                cs = f"{c:.3g} s" if isinstance(c, float) else str(c)
                print(f"T10 N={n:<5} cudag GPU {gs:>9}  paper {par:g} s  "
                      f"paper/cudag {fmt_x(par, g) if isinstance(g, float) else '-'}  "
                      f"CPU {cs}  edges {edges}" + ("  goal <60 s: " + (
                          ("yes" if g < 60 else "NO") if isinstance(g, float) else "-")
                          if n == 1000 else ""))
    print("(seconds per test; GPU1: one test per CmiKnnGpu::run call, GPUb: the NTESTS tests "
          "as one batch; ratios: geometric means over the table's cells; goal: >=10x the "
          "paper where it took >=0.1 s per test, else >=3x; max|dstat|: largest statistic "
          "difference cudag CPU vs tigramite, same parameters)")
    print(f"GPU: {'yes' if HAVE_GPU else 'no (GPU columns skipped)'}; tigramite: "
          f"{'yes' if HAVE_TIG else 'no'}; CPU threads: {CPU_THREADS or os.cpu_count()}; "
          f"VARS={VARS} DENSITY={DENSITY} SEED={SEED} NTESTS={NTESTS} TIG_TESTS={TIG_TESTS} "
          f"REPEAT={REPEAT}")


def main():
    plan = micro_tables()
    t10 = table10() if "10" in TABLES else None
    print()
    print("== cmiknn tables")
    print_micro(plan)
    if t10 is not None:
        print_table10(t10)
    print_summary(t10)


if __name__ == "__main__":
    main()
