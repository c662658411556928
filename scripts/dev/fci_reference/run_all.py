#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs pcalg's fci/rfci and causal-learn's fci on every data set of tests/data/fci/datasets/
(made by make_datasets.R) and writes tests/data/fci/pcalg_fci/, pcalg_fci_fixS/ (discrete data
sets, disCItest with |S| >= 5 done right: run_pcalg.R) and causal_learn_fci/ (file formats in
tests/data/fci/README.md).

Peers (never committed or built by the project; install them once, in ignored folders):
  bash ../shared/peers/install_r_peers.sh          # R, pcalg 2.7-12, bnlearn 4.9 (as root)
  python3 -m venv .peers/py && .peers/py/bin/pip install causal-learn numpy pandas
Usage (from the repository root; every run is one `nice` process at a time, each in a fresh
Rscript / Python process, killed after --limit seconds):
  python3 scripts/dev/fci_reference/run_all.py [--python .peers/py/bin/python] [--limit 120]
      [--peer pcalg|pcalg-fixS|causal-learn|both] [--datasets g01,d02,...]
A partial run replaces the manifest lines of the runs it makes and keeps the others.
"""
import argparse
import csv
import os
import pathlib
import signal
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DATA = ROOT / "tests" / "data" / "fci"
ALPHAS = ["0.01", "0.05"]
PCALG_ALGOS = ["fci", "rfci", "fci-conservative", "fci-majrule", "fci-nopdsep"]
HEADER = "dataset\talgo\toptions\talpha\ttest\tseconds"
PCALG_HEADER = HEADER + ("\tmax_ord\tmax_ord_pdsep\tn_tests\tn_tests_pdsep\tci_calls\tmax_set"
                         "\tci_calls_set_ge5\tstatus")
CL_HEADER = HEADER + "\tstatus"


def default_python():
    """.peers/py of this checkout, else of the main worktree (a `git worktree` has no .peers)."""
    here = ROOT / ".peers" / "py" / "bin" / "python"
    if here.exists():
        return str(here)
    common = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute",
                             "--git-common-dir"], capture_output=True, text=True).stdout.strip()
    return str(pathlib.Path(common).parent / ".peers" / "py" / "bin" / "python") if common else str(here)


def run(cmd, limit):
    t0 = time.monotonic()
    proc = subprocess.Popen(["nice"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the run's own process group only
        proc.communicate()
        return None, f"timeout (killed after {limit} s)", time.monotonic() - t0
    if proc.returncode != 0:
        return None, "error: " + (err.strip().splitlines() or ["?"])[-1], time.monotonic() - t0
    return out.strip().splitlines()[-1], "ok", time.monotonic() - t0


def update_manifest(path, header, lines, order):
    old = {}
    if path.exists():
        for ln in path.read_text().splitlines()[1:]:
            f = ln.split("\t")
            old[(f[0], f[1], f[3])] = ln
    old.update(lines)
    keys = sorted(old, key=order)
    path.write_text(header + "\n" + "".join(old[k] + "\n" for k in keys))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("--peer", default="both", choices=["pcalg", "pcalg-fixS", "causal-learn", "both"])
    ap.add_argument("--datasets", default="")
    args = ap.parse_args()

    with open(DATA / "datasets" / "datasets.tsv") as f:
        sets = [(r["id"], r["kind"]) for r in csv.DictReader(f, delimiter="\t")]
    ids = [s for s, _ in sets]
    if args.datasets:
        want = args.datasets.split(",")
        sets = [s for s in sets if s[0] in want]

    def order(key, algos):
        ds, algo, alpha = key
        return (ids.index(ds) if ds in ids else 99, algos.index(algo) if algo in algos else 99, alpha)

    def pcalg(folder, discrete_only, extra):
        out = DATA / folder
        out.mkdir(exist_ok=True)
        lines = {}
        for ds, kind in sets:
            if discrete_only and kind != "discrete":
                continue
            for algo in PCALG_ALGOS:
                for alpha in ALPHAS:
                    prefix = out / f"{ds}__{algo}__{alpha}"
                    for ext in (".amat", ".sepsets"):
                        prefix.with_name(prefix.name + ext).unlink(missing_ok=True)
                    line, status, wall = run(["Rscript", str(HERE / "run_pcalg.R"),
                                              str(DATA / "datasets" / f"{ds}.csv"), kind, algo, alpha,
                                              str(prefix)] + extra, args.limit + 5)
                    if line is None:
                        test = "gaussCItest" if kind == "gaussian" else "disCItest(adaptDF=FALSE)"
                        line = f"{ds}\t{algo}\t-\t{alpha}\t{test}\t>{wall:.0f}\t-\t-\t-\t-\t-\t-\t-"
                    lines[(ds, algo, alpha)] = line + "\t" + status
                    print(folder, lines[(ds, algo, alpha)], flush=True)
        if lines:
            update_manifest(out / "manifest.tsv", PCALG_HEADER, lines, lambda k: order(k, PCALG_ALGOS))

    if args.peer in ("pcalg", "both"):
        pcalg("pcalg_fci", False, [])
    if args.peer in ("pcalg-fixS", "both"):
        pcalg("pcalg_fci_fixS", True, ["fixS"])

    if args.peer in ("causal-learn", "both"):
        out = DATA / "causal_learn_fci"
        out.mkdir(exist_ok=True)
        lines = {}
        for ds, kind in sets:
            tests = ["fisherz"] if kind == "gaussian" else ["chisq", "gsq"]
            for test in tests:
                algo = "fci" if test in ("fisherz", "chisq") else f"fci-{test}"
                for alpha in ALPHAS:
                    prefix = out / f"{ds}__{algo}__{alpha}"
                    for ext in (".amat", ".edges"):
                        prefix.with_name(prefix.name + ext).unlink(missing_ok=True)
                    line, status, wall = run([args.python, str(HERE / "run_causal_learn.py"),
                                              str(DATA / "datasets" / f"{ds}.csv"), test, alpha,
                                              str(prefix)], args.limit + 5)
                    if line is None:
                        line = f"{ds}\t{algo}\t-\t{alpha}\t{test}\t>{wall:.0f}"
                    lines[(ds, algo, alpha)] = line + "\t" + status
                    print("causal-learn", lines[(ds, algo, alpha)], flush=True)
        update_manifest(out / "manifest.tsv", CL_HEADER, lines,
                        lambda k: order(k, ["fci", "fci-gsq"]))


if __name__ == "__main__":
    sys.exit(main())
