# SPDX-License-Identifier: Apache-2.0
"""Ctrl-C inside cudag.mcmc's score-table phase (issue 53 item 7): the phase calls none of
the caller's callbacks, and still the call ends with KeyboardInterrupt, as Python code does."""

import os
import signal
import subprocess
import sys
import time

SCRIPT = r"""
import sys
import numpy as np
import cudag
x = np.random.default_rng(3).standard_normal((500, 55))
print("start", flush=True)
try:
    # 19 million local scores on one thread: seconds on any CPU.
    cudag.mcmc(x, "bge", max_parents=4, chains=1, iterations=10, threads=1, backend="cpu", verbose=True,
               space="all")
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(7)
print("finished", flush=True)
"""


def test_ctrl_c_in_the_score_table_raises_keyboard_interrupt():
    p = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=os.environ)
    assert p.stdout.readline().strip() == "start"
    time.sleep(0.7)  # inside the table (it runs seconds; the data pass takes milliseconds)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert "finished" not in out, "the run ended before the signal: " + err
    assert p.returncode == 7, (out, err)
    assert "interrupted" in out
    # Inside the table: the data were read (verbose lines on stderr), the table's closing
    # line never came.
    assert "read <array>: 500 samples x 55 continuous variables" in err, err
    assert "18839755 entries (55 nodes" not in err, "interrupted only after the table: " + err
