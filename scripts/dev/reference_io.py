# SPDX-License-Identifier: Apache-2.0
"""What the tigramite reference scripts (cmiknn_reference.py, parcorr_reference.py) share:
the version check and the data file written at full precision and read back."""
import os

import numpy as np


def fmt(v):
    return repr(float(v))


def require_tigramite(wanted="5.2.10.1"):
    from importlib.metadata import version
    if version("tigramite") != wanted:
        raise SystemExit(f"tigramite {version('tigramite')} found; the reference is {wanted}")


def write_data(out, data, name="data.csv", fmt="%.17g"):
    """data as out/name (header v0..v{n-1}, 17 significant digits unless `fmt` says
    otherwise), read back, so that the references are computed on exactly the values the
    tests read."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    np.savetxt(path, data, delimiter=",", fmt=fmt,
               header=",".join(f"v{i}" for i in range(data.shape[1])), comments="")
    return np.loadtxt(path, delimiter=",", skiprows=1)


# ---- PCMCI's references (pcmci_reference.py, pcmciplus_reference.py) --------------------

def write_pcmci_case(path, args, parents, res, extra=()):
    """A PCMCI reference file: "# settings", key<TAB>value lines (pc_alpha a list as
    "0.05,0.1", None as "None"), "parents<TAB>j<TAB>i,lag;..." lines, the `extra` lines, then
    i<TAB>j<TAB>lag<TAB>val_matrix<TAB>p_matrix<TAB>graph ('.' for none) for every cell."""
    n, tau_max = res["graph"].shape[0], args["tau_max"]
    with open(path, "w") as f:
        f.write("# settings\n")
        for k, v in args.items():
            if k == "pc_alpha" and (v is None or isinstance(v, (list, tuple))):
                v = "None" if v is None else ",".join(repr(float(a)) for a in v)
            f.write(f"{k}\t{v}\n")
        for j in range(n):
            f.write(f"parents\t{j}\t" + ";".join(f"{i},{-lag}" for i, lag in parents[j]) + "\n")
        for line in extra:
            f.write(line + "\n")


def write_pcmci_result(path, parents, res, settings, n, tau_max):
    """A PCMCI/PCMCI+ reference file: "# settings", key<TAB>value lines, then
    "parents<TAB>j<TAB>i,lag;..." (tigramite's order) and one line per (i, j, lag):
    i<TAB>j<TAB>lag<TAB>val_matrix<TAB>p_matrix<TAB>graph (empty graph as '.')."""
    with open(path, "w") as f:
        f.write("# settings\n")
        for k, v in settings.items():
            f.write(f"{k}\t{v}\n")
        for j in range(n):
            f.write(f"parents\t{j}\t" + ";".join(f"{i},{-lag}" for i, lag in parents[j]) + "\n")
        for i in range(n):
            for j in range(n):
                for lag in range(tau_max + 1):
                    g = res["graph"][i, j, lag] or "."
                    f.write(f"{i}\t{j}\t{lag}\t{fmt(res['val_matrix'][i, j, lag])}\t"
                            f"{fmt(res['p_matrix'][i, j, lag])}\t{g}\n")


def record_scores(pcmci):
    """Every call of pcmci's get_model_selection_criterion as (j, parents, score), in order
    (the list fills as tigramite runs), by wrapping the method of PCMCI's own test object."""
    calls = []
    test = pcmci.cond_ind_test  # PCMCI's deep copy of the test it was given
    scorer = test.get_model_selection_criterion

    def recorded(j, parents, tau_max=0):
        score = scorer(j, parents, tau_max)
        calls.append((j, [(int(i), int(lag)) for i, lag in parents], score))
        return score

    test.get_model_selection_criterion = recorded
    return calls


def score_lines(calls, key):
    """"score<TAB>a<TAB>b<TAB>score<TAB>i,lag;..." lines, (a, b) = key(call index, j)."""
    return [f"score\t{a}\t{b}\t{fmt(score)}\t" + ";".join(f"{i},{-lag}" for i, lag in parents)
            for q, (j, parents, score) in enumerate(calls) for a, b in [key(q, j)]]


def toy_series(path, seed, t, draw_links):
    """A series from tigramite's own generator (structural_causal_process, noise seeded by
    `seed`) on links drawn by draw_links(rng), rng numpy's default_rng(seed), drawn again
    until the process is stationary and bounded (tigramite's check looks at the transient; an
    explosive process can pass it, and correlations of an exploding series are ±1 to
    rounding); written to `path` (header v0..v{n-1}, 10 significant digits) and read back.
    Returns the values read back and the number of draws."""
    from tigramite.toymodels import structural_causal_processes as toys
    rng = np.random.default_rng(seed)
    for attempt in range(100):
        links = draw_links(rng)
        with np.errstate(over="ignore", invalid="ignore"):
            data, nonstat = toys.structural_causal_process(links, T=t, seed=seed)
        if not nonstat and np.all(np.isfinite(data)) and np.abs(data).max() < 100:
            break
    else:
        raise SystemExit(f"{path}: no stationary process in 100 draws")
    np.savetxt(path, data, delimiter=",", fmt="%.10g",
               header=",".join(f"v{i}" for i in range(data.shape[1])), comments="")
    return np.loadtxt(path, delimiter=",", skiprows=1), attempt + 1
