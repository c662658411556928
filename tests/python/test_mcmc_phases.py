# SPDX-License-Identifier: Apache-2.0
"""cudag.mcmc that a user cannot get lost in (issue 57): SIGINT in each phase (the PC
skeleton of the search space, the score table, the iterative space's chains, the chains,
the result) ends the call with KeyboardInterrupt and leaves no thread running; the table's
estimate warns (CudagWarning) when it is above a minute; the default space (auto) picks the
whole space for a small table and pc for a large one; a checkpoint resumes with the space
it recorded (an old one without a record: tests/regression/test_cli_mcmc.cpp)."""

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cudag

# One subprocess runs every case (a KeyboardInterrupt is the process's own): for each, a call
# whose progress callback, on the first update of the case's phase, sends SIGINT to the
# process, either from the callback itself ("inside": the handler raises there) or from a
# timer thread 50 ms later while the call runs on in C++ ("timer": the next check raises).
# It prints one JSON line per case: what was raised, the phases seen, and the threads of the
# process (/proc/self/task) before and after.
SCRIPT = r"""
import json, os, signal, sys, threading, time
import numpy as np
import cudag

rng = np.random.default_rng(5)
small = rng.standard_normal((400, 8))
small[:, 1] += small[:, 0]
big = rng.standard_normal((500, 40))           # 40 x C(39, <= 4) = 3.7 million sets
chain = rng.integers(0, 3, size=(300, 30))     # 30 discrete variables: auto picks pc
chain[:, 1] = (chain[:, 0] + (rng.random(300) < 0.2)) % 3

cases = {
    "pc skeleton": ("inside", big, "bge", dict(space="pc", iterations=50)),
    "local-score table": ("timer", big, "bge", dict(space="all", threads=1, iterations=10)),
    "search space chains": ("timer", chain, "bdeu", dict(space="iterative", iterations=3000000, chains=1)),
    "chains": ("timer", small, "bge", dict(space="all", iterations=30000000, chains=2)),
    "result": ("inside", small, "bge", dict(iterations=200)),
}
tasks = lambda: len(os.listdir("/proc/self/task"))
cudag.mcmc(small, "bge", iterations=50, threads=2)  # the process's first call (its lasting threads)
for phase, (how, data, score, opts) in cases.items():
    seen, sent = [], []
    def progress(d, phase=phase, how=how, seen=seen, sent=sent):
        seen.append(d["phase"])
        if d["phase"] == phase and not sent:
            sent.append(time.monotonic())
            if how == "inside":
                signal.raise_signal(signal.SIGINT)
            else:
                threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
    before = tasks()
    raised = "nothing"
    try:
        cudag.mcmc(data, score, progress=progress, **{"threads": 2, "seed": 1, **opts})
    except KeyboardInterrupt:
        raised = "KeyboardInterrupt"
    latency = time.monotonic() - sent[0] if sent else -1.0
    time.sleep(0.1)  # the timer thread ends
    after = tasks()
    print(json.dumps({"phase": phase, "raised": raised, "last": seen[-1] if seen else "", "before": before,
                      "after": after, "python_threads": threading.active_count(), "latency": latency}), flush=True)
"""


@pytest.fixture(scope="module")
def interrupted():
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, env=os.environ)
    assert p.returncode == 0, p.stderr
    return {d["phase"]: d for d in map(json.loads, p.stdout.splitlines())}


@pytest.mark.parametrize("phase", ["pc skeleton", "local-score table", "search space chains", "chains", "result"])
def test_sigint_in_each_phase_raises_keyboard_interrupt(interrupted, phase):
    d = interrupted[phase]
    assert d["raised"] == "KeyboardInterrupt", d
    assert d["last"] == phase, d  # raised in that phase, not after it
    # Nothing left running: the process has the threads it had before the call, and only
    # its main Python thread.
    assert d["after"] <= d["before"], d
    assert d["python_threads"] == 1, d


def test_the_estimate_warns_above_a_minute():
    # 60 discrete variables, 4,000 rows, every set of at most 4 parents: 60 x C(59, <= 4) =
    # 29 million BDeu scores, many minutes on one thread. Turned into an error, the warning
    # ends the call before the table (the test takes the calibration's milliseconds).
    x = np.random.default_rng(1).integers(0, 3, size=(4000, 60))
    with warnings.catch_warnings():
        warnings.simplefilter("error", cudag.CudagWarning)
        with pytest.raises(cudag.CudagWarning,
                           match=r"cudag.mcmc: the local-score table \(29364360 parent sets, 0.219 GiB\) will take "
                                 r"about [0-9.]+ s at most on 1 thread"):
            cudag.mcmc(x, "bdeu", space="all", threads=1, iterations=10)


def test_auto_space_by_the_table_size():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 6))
    x[:, 1] += x[:, 0]
    r = cudag.mcmc(x, "bge", iterations=200, seed=1)
    explicit = cudag.mcmc(x, "bge", iterations=200, seed=1, space="all")
    # 6 x C(5, <= 4) = 186 sets: the whole space, the same chains as space="all".
    np.testing.assert_array_equal(r.traces, explicit.traces)
    np.testing.assert_array_equal(r.edge_prob, explicit.edge_prob)
    # 25 variables at --max-parents 4 (25 x 12,951 sets): pc, as space="pc" gives it.
    y = rng.standard_normal((300, 25))
    y[:, 1] += y[:, 0]
    a = cudag.mcmc(y, "bge", iterations=200, seed=1)
    pc = cudag.mcmc(y, "bge", iterations=200, seed=1, space="pc")
    np.testing.assert_array_equal(a.traces, pc.traces)
    assert a.config["space"] == pc.config["space"] and a.config["space"].startswith("pc (")
    # alpha= with the default space is pc's.
    b = cudag.mcmc(x, "bge", iterations=200, seed=1, alpha=0.01)
    c = cudag.mcmc(x, "bge", iterations=200, seed=1, alpha=0.01, space="pc")
    np.testing.assert_array_equal(b.traces, c.traces)


def test_checkpoint_resumes_with_its_recorded_space(tmp_path):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((200, 25))
    x[:, 1] += x[:, 0]
    opts = dict(iterations=400, chains=2, seed=3)
    whole = cudag.mcmc(x, "bge", space="iterative", **opts)
    opts["checkpoint_every"] = "100"
    ck = tmp_path / "c.h5"
    with pytest.raises(cudag.Error, match="stopped after a checkpoint"):
        cudag.mcmc(x, "bge", space="iterative", checkpoint=str(ck), stop_after=200, **opts)
    resumed = cudag.mcmc(x, "bge", checkpoint=str(ck), resume=True, keep_checkpoint=True, **opts)
    np.testing.assert_array_equal(resumed.traces, whole.traces)
    # A space given that is not the checkpoint's is refused, naming the space.
    with pytest.raises(cudag.InputError, match=r"the search space \(space=.*differ from the checkpoint's"):
        cudag.mcmc(x, "bge", space="all", checkpoint=str(ck), resume=True, **opts)
