# SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the Python tests: the cudag binary (CUDAG_BINARY, set by ctest; else
the first build folder holding one), the peer reference data (CUDAG_SHARED_DATA, else
../shared/data beside the checkout, as tests/support/paths.hpp finds it), and readers
for what the command line writes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def cudag_binary() -> str:
    env = os.environ.get("CUDAG_BINARY")
    if env:
        return env
    for b in ("build", "build-cpu", "build-release"):
        p = ROOT / b / "cudag"
        if p.is_file():
            return str(p)
    found = shutil.which("cudag")
    if found:
        return found
    pytest.skip("no cudag binary: set CUDAG_BINARY or build the cudag target", allow_module_level=True)


def shared_data() -> Path | None:
    for p in (os.environ.get("CUDAG_SHARED_DATA"), ROOT.parent / "shared" / "data", "/work/shared/data"):
        if p and (Path(p) / "causal-learn").is_dir():
            return Path(p)
    return None


def run_cli(*args, check=True) -> subprocess.CompletedProcess:
    """`cudag args...`; with check, a non-zero exit fails the test with its stderr."""
    r = subprocess.run([cudag_binary(), *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"cudag {' '.join(map(str, args))} exited {r.returncode}: {r.stderr}")
    return r


def cli_error(*args) -> str:
    """The message of the one line `cudag args...` prints on failure (after 'cudag: error: '),
    in the Python module's words: the command's options that are keywords written as the
    keywords ("--max-level" -> "max_level="), as the module's errors give them."""
    r = run_cli(*args, check=False)
    assert r.returncode != 0, f"cudag {args} succeeded"
    lines = r.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("cudag: error: "), r.stderr
    import cudag
    return cudag._in_python_words(lines[-1][len("cudag: error: "):], str(args[0]))


def read_csv(path) -> tuple[np.ndarray, list[str]]:
    """A numeric CSV with a header row (as `cudag simulate` writes it)."""
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2), names


def h5(path, dataset: str) -> np.ndarray:
    """One dataset of an HDF5 file through h5dump (hdf5-tools; h5py is not a dependency)."""
    if shutil.which("h5dump") is None:
        pytest.skip("h5dump (hdf5-tools) is not installed")
    r = subprocess.run(["h5dump", "-y", "-w", "0", "-m", "%.17g", "-d", dataset, str(path)],
                       capture_output=True, text=True, check=True)
    text = r.stdout
    dims = text.split("DATASPACE", 1)[1].split("\n", 1)[0]
    body = text.split("DATA {", 1)[1].split("}", 1)[0]
    values = [float(v) for v in body.replace(",", " ").split()]
    if "NULL" in dims or "( 0" in dims:
        return np.zeros(0)
    shape = [int(s) for s in dims.split("(", 1)[1].split(")", 1)[0].split(",")]
    return np.array(values).reshape(shape)


@pytest.fixture(scope="session")
def gaussian_csv(tmp_path_factory):
    """30 variables x 500 samples of a sparse linear Gaussian network."""
    d = tmp_path_factory.mktemp("gauss")
    path = d / "g.csv"
    run_cli("simulate", "gaussian", "--vars", 30, "--samples", 500, "--density", 0.12, "--seed", 7,
            "--out", path)
    return path


@pytest.fixture(scope="session")
def discrete_csv(tmp_path_factory):
    """12 discrete variables (3 states) x 2000 samples, integer codes."""
    d = tmp_path_factory.mktemp("disc")
    path = d / "d.csv"
    run_cli("simulate", "discrete", "--vars", 12, "--samples", 2000, "--density", 0.2, "--states", 3,
            "--seed", 5, "--out", path)
    return path


def gaussian_chain(seed: int, n: int, k: int, weight: float) -> np.ndarray:
    """n samples of a linear Gaussian chain X1 -> X2 -> ... -> Xk (each adds `weight` times
    its parent to standard normal noise)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k))
    for j in range(1, k):
        x[:, j] += weight * x[:, j - 1]
    return x
