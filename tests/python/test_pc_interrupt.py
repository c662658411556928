# SPDX-License-Identifier: Apache-2.0
"""Ctrl-C inside a PC skeleton level (issue 57): cudag.pc looks at Python's signals inside a
level (core/interrupt.hpp's poll, every ~50 ms on the calling thread), not only between
levels. A subprocess runs a χ² search whose level 1 takes seconds on one thread (every pair of
60 variables stays dependent: 205,320 tests); on level 0's callback a timer sends SIGINT 50 ms
later, inside level 1. The call must end with KeyboardInterrupt raised inside level 1 (the
signal handler runs in the frame that called into C++, not at the start of level 1's
callback, as when the signal is looked at only between levels), leave no thread running and
no result file, and keep level 0's checkpoint intact: a resumed run gives the uninterrupted
run's answer."""

import json
import os
import subprocess
import sys

SCRIPT = r"""
import json, os, signal, sys, threading
import numpy as np
import cudag

rng = np.random.default_rng(7)
n, p = 2000, 60
z = rng.standard_normal((n, 1))
x = np.digitize(z + 0.8 * rng.standard_normal((n, p)), [-0.5, 0.5])  # one common cause
out, ck = sys.argv[1], sys.argv[2]
tasks = lambda: len(os.listdir("/proc/self/task"))
cudag.pc(x[:, :5], "g-square", threads=2)  # the process's first call (its lasting threads)
before = tasks()
seen, where = [], []
def on_sigint(signum, frame):  # Python's own handler, noting the frames it runs in
    stack = []
    while frame is not None:
        stack.append(frame.f_code.co_name)
        frame = frame.f_back
    where.append(stack)
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, on_sigint)
def progress(d):
    seen.append(d["level"])
    if d["level"] == 0:
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
raised = "nothing"
try:
    cudag.pc(x, "g-square", threads=1, max_level=1, progress=progress, out=out, checkpoint=ck)
except KeyboardInterrupt:
    raised = "KeyboardInterrupt"
threading.Event().wait(0.2)  # the timer thread ends
after = tasks()
files = sorted(os.listdir(os.path.dirname(out)))  # before the resumed run (which removes the checkpoint)
resumed = cudag.pc(x, "g-square", threads=2, max_level=1, checkpoint=ck, resume=True)
whole = cudag.pc(x, "g-square", threads=2, max_level=1)
same = (all(np.array_equal(getattr(resumed, k), getattr(whole, k)) for k in ("edge_array", "skeleton_pairs", "pmax_pairs"))
        and resumed.sepsets == whole.sepsets)
print(json.dumps({"raised": raised, "seen": seen, "where": where, "before": before, "after": after,
                  "python_threads": threading.active_count(), "out_exists": os.path.exists(out),
                  "dir": files, "same_after_resume": same}), flush=True)
"""


def test_sigint_inside_a_skeleton_level_raises_keyboard_interrupt(tmp_path):
    out, ck = tmp_path / "r.h5", tmp_path / "ck.h5"
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(out), str(ck)], capture_output=True, text=True,
                       timeout=300, env=os.environ)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout.splitlines()[-1])
    assert d["raised"] == "KeyboardInterrupt", d
    assert d["seen"] == [0], d
    # Raised inside level 1, from C++: the handler ran in the frame that called into cudag's
    # C++ (_run_learner), with no callback frame active. Looked at only between levels, it ran
    # as level 1's callback began (in cudag's progress wrapper, __call__).
    assert len(d["where"]) == 1 and d["where"][0][0] == "_run_learner", d
    assert "__call__" not in d["where"][0] and "progress" not in d["where"][0], d
    assert d["after"] <= d["before"], d  # no thread left running
    assert d["python_threads"] == 1, d
    assert not d["out_exists"], d  # no result file, partial or whole
    assert d["dir"] == ["ck.h5"], d  # no temporaries beside level 0's checkpoint
    assert d["same_after_resume"], d  # the checkpoint intact: the resumed run's answer is the whole run's
