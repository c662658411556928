#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 57: cudag.mcmc at its defaults on bnlearn networks (5,000 rows sampled from the BIF
by `cudag simulate bif`): the time, the SHD of the best DAG against the true DAG (as
`cudag compare` counts it, CPDAG against CPDAG), the space the default picked, and the
Ctrl-C latency per phase: a child process runs the same call, and on the first progress
update of a phase a timer thread sends SIGINT to it; the latency is from the signal to the
KeyboardInterrupt in the caller (measured, not asserted), with the phase the call was in
when it was raised. Not run in CI.

    PYTHONPATH=python:build-cpu/python python3 scripts/bench/mcmc_defaults.py \
        [--binary build-cpu/cudag] [--networks hepar2,pathfinder] [--rows 5000] [--runs 3]
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, os, signal, sys, threading, time
import numpy as np
import cudag
data, names, phase, delay = sys.argv[1], None, sys.argv[2], float(sys.argv[3])
import csv
with open(data) as f:
    rows = list(csv.reader(f))
names, x = rows[0], np.array(rows[1:], dtype=object)
sent, seen = [], []
def progress(d):
    seen.append(d["phase"])
    if d["phase"] == phase and not sent:
        sent.append(None)
        def kill():
            sent[0] = time.monotonic()
            os.kill(os.getpid(), signal.SIGINT)
        threading.Timer(delay, kill).start()
raised = "nothing"
try:
    cudag.mcmc(x, "bdeu", names=names, progress=progress)
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
t = time.monotonic()
time.sleep(0.05)
print(json.dumps({"raised": raised, "latency": t - sent[0] if sent and sent[0] else None,
                  "raised_in": seen[-1] if seen else "", "threads_after": threading.active_count()}))
"""

PHASES = ["pc skeleton", "local-score table", "score-sorted lists", "chains", "result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.environ.get("CUDAG_BINARY", "build-cpu/cudag"))
    ap.add_argument("--networks", default="hepar2,pathfinder")
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bnlearn", default=os.path.join(os.path.dirname(__file__), "../../../shared/data/bnlearn"))
    a = ap.parse_args()
    import numpy as np
    import cudag
    work = tempfile.mkdtemp(prefix="mcmc_defaults_")
    print("| network | vars | rows | default space | seconds (min of runs) | SHD | true arcs | estimated arcs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    latencies = []
    for net in a.networks.split(","):
        bif = os.path.join(work, net + ".bif")
        with gzip.open(os.path.join(a.bnlearn, net + ".bif.gz"), "rb") as f, open(bif, "wb") as g:
            g.write(f.read())
        csv_path, truth = os.path.join(work, net + ".csv"), os.path.join(work, net + ".truth.tsv")
        subprocess.run([a.binary, "simulate", "bif", "-q", "--bif", bif, "--samples", str(a.rows), "--seed", "1",
                        "--out", csv_path, "--truth", truth], check=True)
        import csv
        with open(csv_path) as f:
            rows = list(csv.reader(f))
        names, x = rows[0], np.array(rows[1:], dtype=object)
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            r = cudag.mcmc(x, "bdeu", names=names)
            times.append(time.perf_counter() - t0)
        c = cudag.compare(truth, r)
        print(f"| {net} | {len(names)} | {a.rows} | {r.config.get('space', '?')[:60]} | {min(times):.2f} | "
              f"{c['shd']} | {c['n_true_edges']} | {c['n_est_edges']} |", flush=True)
        for phase in PHASES:
            for delay in (0.0, 0.1):
                p = subprocess.run([sys.executable, "-c", CHILD, csv_path, phase, str(delay)], capture_output=True,
                                   text=True, timeout=600, env=os.environ)
                d = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr[-300:]}
                latencies.append((net, phase, delay, d))
    print()
    print("| network | phase entered | signal after | raised | raised in phase | latency | Python threads after |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for net, phase, delay, d in latencies:
        if "error" in d:
            print(f"| {net} | {phase} | {delay:.2f} s | error: {d['error']!r} | | | |")
            continue
        lat = "-" if d["latency"] is None else f"{1000 * d['latency']:.1f} ms"
        print(f"| {net} | {phase} | {delay:.2f} s | {d['raised']} | {d['raised_in']} | {lat} | {d['threads_after']} |")


if __name__ == "__main__":
    main()
