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
