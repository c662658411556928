# SPDX-License-Identifier: Apache-2.0
"""Ctrl-C while verbose=True's log writer runs. The progress lines of verbose=True go to the
logger "cudag" from inside the search; a SIGINT that arrives while a handler of that logger
runs makes Python raise KeyboardInterrupt inside the handler. That exception used to be
reported as unraisable and dropped, and the call went on to its end. Now the call ends with
it at its next look at Ctrl-C (core/interrupt.hpp's poll, every ~50 ms, or the next level
callback), leaves no thread running, and the module works afterwards. An Exception raised by
the writer still only warns (unraisable) and the run goes on. Also: Ctrl-C while a
bootstrap's replicates run on workers (the caller waiting for them) ends the call, where it
used to be seen only at the end; so does Ctrl-C while PCMCI's tests run.

Each case runs in a subprocess: on a chosen line the writer prints a marker and sleeps, the
parent sends SIGINT on the marker (so the signal arrives inside the writer), and the child
reports what it saw: whether KeyboardInterrupt came, and before the run's last line; the
threads before and after; then the same call again, verbose, against the answer the child
got before the interrupt. The latency (the signal handler's time to the except clause) is
printed, not asserted."""

import json
import logging
import os
import signal
import subprocess
import sys

import numpy as np

import cudag

SCRIPT = r"""
import json, logging, os, signal, sys, threading, time
import numpy as np
import cudag

case = sys.argv[1]
tasks = lambda: len(os.listdir("/proc/self/task"))
in_writer = not case.endswith("-outside")  # else the signal comes while the search runs
if case == "pc":  # the line of level 0, then level 1 (seconds on one thread)
    rng = np.random.default_rng(7)
    z = rng.standard_normal((2000, 1))
    x = np.digitize(z + 0.8 * rng.standard_normal((2000, 40)), [-0.5, 0.5])  # one common cause
    run = lambda **kw: cudag.pc(x, "g-square", threads=1, max_level=1, **kw)
    trigger, last = ": level 0: ", ": level 1: "
    answer = lambda r: (r.skeleton_pairs.tolist(), r.edge_array.tolist(), r.sepsets)
elif case.startswith("pc-bootstrap"):  # replicates run by two workers, the caller waiting
    rng = np.random.default_rng(7)
    z = rng.standard_normal((800, 1))
    x = np.digitize(z + 0.8 * rng.standard_normal((800, 16)), [-0.5, 0.5])
    run = lambda **kw: cudag.pc(x, "g-square", threads=2, max_level=2, bootstrap=24, seed=3, **kw)
    # the first "bootstrap: k of 24 replicates" line (k: the first round's)
    trigger, last = " of 24 replicates,", "bootstrap: 24 of 24 replicates"
    answer = lambda r: (r.pairs.tolist(), r.counts.tolist(), r.edge_array.tolist())
elif case.startswith("pcmci"):  # CMIknn's tests in slices; the caller runs them (one thread)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((200, 5))
    for t in range(1, 200):
        x[t] += 0.5 * x[t - 1]
    run = lambda **kw: cudag.pcmci(x, test="cmiknn", tau_max=1, threads=1, seed=1, permutations=20, **kw)
    trigger, last = "condition selection: 16 of", ": MCI: "
    answer = lambda r: (r["p_matrix"].tolist(), r["graph"].tolist())
else:  # mcmc: lines from inside the local-score table phase
    x = np.random.default_rng(3).standard_normal((500, 40))
    run = lambda **kw: cudag.mcmc(x, "bge", max_parents=4, chains=1, iterations=200, threads=1, backend="cpu",
                                  space="all", seed=5, **kw)
    trigger, last = "local-score table: ", "score-sorted parent sets"
    answer = lambda r: (r.best_dag_score, r.best_dag_edges.tolist(), r.edge_prob.tolist())

expected = answer(run())  # without the writer: the answer to compare the later call with
before = tasks()

lines = []
class Writer(logging.Handler):
    def emit(self, record):
        line = record.getMessage()
        lines.append(line)
        if trigger in line and not sigint_at:
            print("TRIGGER", flush=True)  # the parent sends SIGINT now
            if in_writer:
                time.sleep(30)  # KeyboardInterrupt is raised in here
log = logging.getLogger("cudag")
log.addHandler(Writer())
log.setLevel(logging.INFO)
sigint_at = []
def on_sigint(signum, frame):
    sigint_at.append(time.perf_counter())
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, on_sigint)
raised, latency = "nothing", None
try:
    run(verbose=True)
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
    latency = time.perf_counter() - sigint_at[0]
seen = list(lines)
after = tasks()
lines.clear()
again = run(verbose=True)  # the module usable, the writer too
print(json.dumps({"raised": raised, "latency": latency, "trigger_seen": any(trigger in l for l in seen),
                  "last_seen": any(last in l for l in seen), "before": before, "after": after,
                  "python_threads": threading.active_count(), "same": answer(again) == expected,
                  "lines_again": len(lines), "last_again": any(last in l for l in lines)}), flush=True)
"""


def run_case(case: str) -> dict:
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, case], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=os.environ)
    try:
        marker = p.stdout.readline().strip()
        assert marker == "TRIGGER", (marker, p.stderr.read() if p.poll() is not None else "")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    d = json.loads(out.splitlines()[-1])
    print(f"{case}: KeyboardInterrupt {d['latency']:.4f} s after the handler ran" if d["latency"] is not None
          else f"{case}: no KeyboardInterrupt")
    return d


def check(d: dict):
    assert d["raised"] == "KeyboardInterrupt", d
    assert d["trigger_seen"], d
    assert not d["last_seen"], d  # ended inside the run, not after it went on to its end
    assert d["after"] <= d["before"], d  # no thread left running
    assert d["python_threads"] == 1, d
    assert d["same"], d  # the next call's answer is the one before the interrupt
    assert d["lines_again"] > 0 and d["last_again"], d  # its lines reach the writer


def test_sigint_inside_the_log_writer_ends_pc():
    check(run_case("pc"))


def test_sigint_inside_the_log_writer_ends_a_pc_bootstrap():
    check(run_case("pc-bootstrap"))


def test_sigint_inside_the_log_writer_ends_the_mcmc_score_table():
    check(run_case("mcmc"))


def test_sigint_while_bootstrap_workers_run_ends_the_call():
    # Not inside the writer: the caller waits for the replicates' workers, and looks at
    # Ctrl-C while it waits (bootstrap/pipeline.hpp's take).
    check(run_case("pc-bootstrap-outside"))


def test_sigint_while_pcmci_tests_run_ends_the_call():
    # Not inside the writer: CMIknn's tests of a slice run on the caller's thread, which looks
    # at Ctrl-C between queries and surrogates (ci/batch.cpp, ci/cmi_knn.cpp); it used to be
    # seen only when the call ended.
    check(run_case("pcmci-outside"))


def test_an_exception_in_the_log_writer_does_not_end_the_run(monkeypatch, caplog):
    # A filter of the logger that raises: the Exception leaves logging (a handler's would be
    # handled by logging.Handler.handleError) and reaches cudag's writer.
    rng = np.random.default_rng(11)
    z = rng.standard_normal((400, 1))
    x = z + 0.5 * rng.standard_normal((400, 6))
    expected = cudag.pc(x, "fisher-z")
    reports = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reports.append((u.exc_type, u.object)))
    caplog.set_level(logging.INFO, logger="cudag")  # pytest's handlers: cudag's level stays as set

    def broken(record):
        raise ValueError("broken filter")

    log = cudag._log
    log.addFilter(broken)
    try:
        got = cudag.pc(x, "fisher-z", verbose=True)
    finally:
        log.removeFilter(broken)
    assert np.array_equal(got.skeleton_pairs, expected.skeleton_pairs)
    assert np.array_equal(got.edge_array, expected.edge_array)
    assert reports and all(t is ValueError for t, _ in reports), reports
    assert "cudag's log line" in reports[0][1], reports
