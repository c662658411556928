#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random cases of PCMCI+ against tigramite 5.2.10.1 (not a test: a developer's check beside
the fixed reference cases of scripts/dev/pcmciplus_reference.py).

Each case: a process from tigramite's toy generator (N 3..7, T 150..400, many contemporaneous
links), random run_pcmciplus settings (tau_min, tau_max 1..3, pc_alpha, every collider rule,
conflict resolution, reset_lagged_links, fdr_bh, the condition caps) and, in 40% of the cases,
random link assumptions ('-->' and '-?>' lagged links, '-->', '-?>', 'o?o' and absent
contemporaneous ones); tigramite's run_pcmciplus and cudag.pcmci(method="pcmciplus") on the
same float64 data; "ok" when the graphs are equal and val/p agree to 1e-9 relative.

Usage: PYTHONPATH=python:build-cpu/python /work/main/.peers/py/bin/python \
           scripts/dev/pcmciplus_fuzz.py [SEED] [CASES]
"""
import sys

import numpy as np

import cudag
from tigramite import data_processing as pp
from tigramite.independence_tests.parcorr import ParCorr
from tigramite.pcmci import PCMCI
from tigramite.toymodels import structural_causal_processes as toys


def lin(x):
    return x


def process(rng, n, t):
    """A stationary process of tigramite's generator: autodependencies at lag 1, lag-0 links
    from lower-numbered variables (probability 0.4), lagged ones (0.1)."""
    for _ in range(100):
        links = {}
        for j in range(n):
            links[j] = [((j, -1), float(rng.uniform(0.3, 0.7)), lin)]
            for i in range(n):
                for lag in range(0, 3):
                    if (i == j and lag <= 1) or (lag == 0 and i >= j):
                        continue
                    if rng.random() < (0.4 if lag == 0 else 0.1):
                        c = float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.6))
                        links[j].append(((i, -lag), c, lin))
        with np.errstate(over="ignore", invalid="ignore"):
            data, nonstat = toys.structural_causal_process(links, T=t, seed=int(rng.integers(1 << 30)))
        if not nonstat and np.all(np.isfinite(data)) and np.abs(data).max() < 100:
            # float64 as cudag computes (the generator's array may be float32).
            return np.round(np.asarray(data, dtype=np.float64), 8)
    raise SystemExit("no stationary process in 100 draws")


def settings(rng, n):
    kw = dict(tau_max=int(rng.integers(1, 4)), pc_alpha=float(rng.choice([0.01, 0.05, 0.1, 0.2, 0.3])),
              contemp_collider_rule=str(rng.choice(["majority", "conservative", "none"])),
              conflict_resolution=bool(rng.random() < 0.6), reset_lagged_links=bool(rng.random() < 0.3),
              fdr_method=str(rng.choice(["none", "fdr_bh"])))
    for key, low, high, share in (("tau_min", 0, 2, 0.3), ("max_conds_dim", 0, 3, 0.2),
                                  ("max_combinations", 1, 4, 0.2), ("max_conds_py", 0, 3, 0.2),
                                  ("max_conds_px", 0, 3, 0.2), ("max_conds_px_lagged", 0, 3, 0.2)):
        if rng.random() < share:
            kw[key] = int(rng.integers(low, high))
    if rng.random() < 0.4:
        la = {j: {} for j in range(n)}
        for j in range(n):
            for i in range(n):
                for lag in range(kw.get("tau_min", 0), kw["tau_max"] + 1):
                    r = rng.random()
                    if r < 0.15 or (lag == 0 and i >= j):  # absent (lag 0: i < j given, the reverse implied)
                        continue
                    if lag == 0:
                        la[j][(i, 0)] = "-->" if r < 0.2 else ("-?>" if r < 0.3 else "o?o")
                    else:
                        la[j][(i, -lag)] = "-->" if r < 0.2 else "-?>"
        kw["link_assumptions"] = la
    return kw


def main():
    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    bad = 0
    for case in range(cases):
        n, t = int(rng.integers(3, 8)), int(rng.integers(150, 400))
        data = process(rng, n, t)
        kw = settings(rng, n)
        shown = {k: v for k, v in kw.items() if k != "link_assumptions"}
        ref = PCMCI(pp.DataFrame(data), ParCorr(significance="analytic"), verbosity=0).run_pcmciplus(**kw)
        mine = dict(kw)
        tau_max, la = mine.pop("tau_max"), mine.pop("link_assumptions", None)
        res = cudag.pcmci(data, tau_max, method="pcmciplus", link_assumptions=la, threads=2, quiet=True, **mine)
        same = (np.array_equal(res["graph"], ref["graph"])
                and np.allclose(res["val_matrix"], ref["val_matrix"], rtol=1e-9, atol=1e-14)
                and np.allclose(res["p_matrix"], ref["p_matrix"], rtol=1e-9, atol=1e-300))
        lag0 = {k: int((ref["graph"][:, :, 0] == k).sum()) for k in ("o-o", "-->", "x-x")}
        print(case, "ok" if same else "MISMATCH", n, t, lag0, shown, "with link assumptions" if la else "")
        bad += not same
    print("mismatches:", bad, "of", cases)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
