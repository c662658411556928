#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs tigramite's own tests of ParCorr and of PCMCI with ParCorr against cudag's faces.

    run_tigramite_tests.py TESTS_DIR [--group parcorr|pcmci|construction|all] [--tigramite]
                           [-- PYTEST_ARGS...]

TESTS_DIR holds tigramite's test files (tests/ of tigramite's source at the installed
version, 5.2.10.1: test_independence_tests.py, test_pcmci_calculations.py,
test_pcmci_construction.py); they are run where they are, never copied into cudag. Before
pytest imports them, ``tigramite.independence_tests.parcorr.ParCorr``, ``tigramite.pcmci.PCMCI``
and ``tigramite.data_processing.DataFrame`` are replaced by ``cudag.compat.tigramite``'s
ParCorr, PCMCI and DataFrame (tigramite itself stays importable: the tests take their data
generators, toy models and OracleCI from it). Each test module is checked to hold cudag's
classes after collection. Run it with a Python that has tigramite, pytest and scipy, and
cudag importable (PYTHONPATH=python:build-cpu/python). Without tigramite it prints a
SKIP line and exits 0.

Groups (tigramite's test functions):
  parcorr       test_independence_tests.py: the ParCorr tests (not ParCorrWLS, RobustParCorr)
  pcmci         test_pcmci_calculations.py: test_pc_stable, test_mci, test_pcmci,
                test_order_independence_pcmciplus (test_pcmciplus runs OracleCI, not ParCorr)
  construction  test_pcmci_construction.py (PCMCI's private helpers, with ParCorr)
--tigramite runs the same tests on tigramite's own classes (the baseline).
Prints one line per group: passed, failed, skipped (and errors), then the failed tests."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter, defaultdict
from pathlib import Path

GROUPS = {
    "parcorr": ("test_independence_tests.py",
                ["test_get_array_parcorr", "test_run_test_parcorr", "test_get_measure_parcorr",
                 "test_get_confidence_parcorr", "test_shuffle_sig_parcorr", "test_parcorr_residuals",
                 "test_parcorr"]),
    "pcmci": ("test_pcmci_calculations.py",
              ["test_pc_stable", "test_mci", "test_pcmci", "test_order_independence_pcmciplus"]),
    "construction": ("test_pcmci_construction.py", None),
}
# tigramite's test modules import every test class; those whose optional dependencies (dcor,
# torch, gpytorch) are missing get a stand-in module whose classes refuse to be built (their
# tests are not among the groups).
OPTIONAL = ["tigramite.independence_tests.gpdc", "tigramite.independence_tests.gpdc_torch"]
SWAPS = [("tigramite.independence_tests.parcorr", "ParCorr"), ("tigramite.pcmci", "PCMCI"),
         ("tigramite.data_processing", "DataFrame")]


def _stand_in(module: str, why: str):
    import types

    stand_in = types.ModuleType(module)

    def missing(name):
        def refuse(*args, **kwargs):
            raise ImportError(f"{module}.{name} is not importable here: {why}")

        return type(name, (), {"__init__": refuse})

    stand_in.__getattr__ = missing
    return stand_in


class CudagFaces:
    """pytest plugin: puts cudag's faces in tigramite's modules before collection, checks
    every collected module took them, and counts outcomes per group."""

    def __init__(self, group_of_file: dict[str, str], swap: bool = True):
        import cudag.compat.tigramite as face

        self.face = face if swap else None
        self.group_of_file = group_of_file
        self.counts: dict[str, Counter] = defaultdict(Counter)
        self.failed: dict[str, list[str]] = defaultdict(list)
        for module in OPTIONAL:
            try:
                importlib.import_module(module)
            except ImportError as e:
                sys.modules[module] = _stand_in(module, str(e))
        if swap:
            for module, name in SWAPS:
                setattr(importlib.import_module(module), name, getattr(face, name))

    def pytest_collection_modifyitems(self, session, config, items):
        if self.face is None:
            return
        for item in items:
            mod = item.module
            for name in ("ParCorr", "PCMCI"):
                if name in vars(mod) and vars(mod)[name] is not getattr(self.face, name):
                    raise RuntimeError(f"{mod.__name__}.{name} is not cudag's face: the swap did not take")
            pp = vars(mod).get("pp")
            if pp is not None and pp.DataFrame is not self.face.DataFrame:
                raise RuntimeError(f"{mod.__name__}: tigramite.data_processing.DataFrame is not cudag's face")

    def pytest_runtest_logreport(self, report):
        group = self.group_of_file.get(Path(report.fspath).name, "other")
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            outcome = report.outcome
            if report.when == "setup" and report.outcome == "failed":
                outcome = "error"
            self.counts[group][outcome] += 1
            if outcome in ("failed", "error"):
                self.failed[group].append(f"{outcome.upper()} {report.nodeid}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tests_dir", type=Path, help="tigramite's tests/ (of the installed version)")
    ap.add_argument("--group", choices=[*GROUPS, "all"], default="all")
    ap.add_argument("--tigramite", action="store_true",
                    help="run tigramite's own classes (no swap): the baseline the counts compare with")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    try:
        import tigramite
    except ImportError:
        print("SKIP: tigramite is not installed in this Python; tigramite's tests need it")
        return 0
    import pytest

    version = getattr(tigramite, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("tigramite")
    if version != "5.2.10.1":
        print(f"note: tigramite {version} is installed; cudag's faces follow 5.2.10.1")
    groups = list(GROUPS) if args.group == "all" else [args.group]
    targets, group_of_file = [], {}
    for g in groups:
        name, functions = GROUPS[g]
        path = args.tests_dir / name
        if not path.is_file():
            print(f"run_tigramite_tests.py: {path} is not a file (give tigramite's tests/ directory)",
                  file=sys.stderr)
            return 2
        group_of_file[name] = g
        targets += [str(path)] if functions is None else [f"{path}::{f}" for f in functions]
    plugin = CudagFaces(group_of_file, swap=not args.tigramite)
    rc = pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", *targets,
                      *extra], plugins=[plugin])
    for g in groups:
        c = plugin.counts[g]
        print(f"{g}: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped, {c['error']} errors")
        for line in plugin.failed[g]:
            print(f"  {line}")
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
