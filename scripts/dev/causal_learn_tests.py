# SPDX-License-Identifier: Apache-2.0
"""Runs causal-learn's own test files, unchanged, against cudag's face
(cudag.compat.causallearn), the import swapped at run time: causal-learn's ``pc``,
``skeleton_discovery`` and ``CIT`` are replaced by the face's before a test file is
executed, and every assert statement and self.assertX call is counted (a failing one does
not stop its test), so each assertion reached is reported as passed or failed.

The test files are not part of cudag and are never copied into it. They are read from
causal-learn's repository: a bare git mirror (default /work/.mirror/py-why+causal-learn/repo,
or CUDAG_CAUSAL_LEARN_GIT) or a checkout (a folder with tests/). A bare mirror is written to
a temporary folder for the run (and removed after it); its data files that the mirror lacks
(large blobs) are taken from the shared copy of causal-learn's tests/TestData
(CUDAG_SHARED_DATA/causal-learn, default /work/shared/data/causal-learn) when it has them,
else left as empty files (the test that reads one fails, and the run says which). Run in an
environment with causal-learn installed (its other code, SHD, txt2generalgraph,
BackgroundKnowledge, ..., is what the tests use around pc):

  PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag \\
      python scripts/dev/causal_learn_tests.py [--source GIT_OR_CHECKOUT] [--peer] \\
      [--skip TEST ...] [TestPC ...|TestPC.test_name ...]

Default files: TestPC TestBackgroundKnowledge TestSkeletonDiscovery TestCIT. ``--peer`` runs
them on causal-learn itself (no swap): the baseline each count is read against. ``--skip``
leaves tests out by name (causal-learn's kci tests take ~20 minutes on causal-learn itself).
Each file runs in the folder where the relative paths it opens exist (the repository's root
for TestPC's "tests/TestData/...", tests/ for TestBackgroundKnowledge's "data_linear_10.txt").

Prints one line per test (passed / failed with the error), per assertion (file:line,
pass/FAIL, how often reached), per file (assert statements, reached, passed) and the totals.
"""
import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import unittest

DEFAULT_FILES = ["TestPC", "TestBackgroundKnowledge", "TestSkeletonDiscovery", "TestCIT"]
MIRROR = os.environ.get("CUDAG_CAUSAL_LEARN_GIT", "/work/.mirror/py-why+causal-learn/repo")
SHARED = os.path.join(os.environ.get("CUDAG_SHARED_DATA", "/work/shared/data"), "causal-learn")

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--source", default=None, help="causal-learn's git mirror (bare) or a checkout")
parser.add_argument("--peer", action="store_true", help="run on causal-learn itself (no swap)")
parser.add_argument("--skip", nargs="*", default=[], help="test names to leave out")
parser.add_argument("files", nargs="*", default=DEFAULT_FILES)
args = parser.parse_args()


def git(gitdir, *cmd, **kw):
    return subprocess.run(["git", "--git-dir", gitdir, *cmd], check=True, capture_output=True, **kw).stdout


def materialize(gitdir: str) -> tuple:
    """tests/ of the mirror's HEAD written under a temporary folder: (folder, [paths left empty])."""
    root = tempfile.mkdtemp(prefix="cudag-cl-tests-")
    empty = []
    listing = git(gitdir, "ls-tree", "-r", "-z", "HEAD", "tests/").split(b"\0")
    objects = [(line.split(b"\t", 1)[0].split()[2].decode(), line.split(b"\t", 1)[1].decode())
               for line in listing if line]
    for sha, path in objects:
        target = os.path.join(root, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if subprocess.run(["git", "--git-dir", gitdir, "cat-file", "-e", sha], capture_output=True).returncode == 0:
            with open(target, "wb") as f:
                f.write(git(gitdir, "cat-file", "blob", sha))
            continue
        rel = path.split("TestData/", 1)[1] if "TestData/" in path else os.path.basename(path)
        copy = os.path.join(SHARED, rel)
        if os.path.isfile(copy):
            shutil.copyfile(copy, target)
        else:
            open(target, "wb").close()
            empty.append(path)
    return root, empty


source = args.source or MIRROR
cleanup = None
if os.path.isdir(os.path.join(source, "tests")):
    checkout, empty = os.path.abspath(source), []
elif os.path.isfile(os.path.join(source, "HEAD")) and os.path.isdir(os.path.join(source, "objects")):
    checkout, empty = materialize(source)
    cleanup = checkout
else:
    sys.exit(f"--source {source}: neither a causal-learn checkout (with tests/) nor a bare git mirror")
for path in empty:
    print(f"NOTE {path}: not in the mirror nor in {SHARED}; left empty", flush=True)
sys.path.insert(0, checkout)

import causallearn.search.ConstraintBased.PC as cl_pc_module  # noqa: E402
import causallearn.utils.cit as cl_cit_module  # noqa: E402
from causallearn.utils.PCUtils import SkeletonDiscovery as cl_skeleton_module  # noqa: E402

if not args.peer:
    import cudag.compat.causallearn as face

    # the swap: `from causallearn.search.ConstraintBased.PC import pc` (and `from
    # causallearn.utils.cit import CIT`, `SkeletonDiscovery.skeleton_discovery`) get cudag's
    cl_pc_module.pc = face.pc
    cl_cit_module.CIT = face.CIT
    cl_skeleton_module.skeleton_discovery = face.skeleton_discovery

records = {}  # (file, line) -> [passed, failed]
current = {"file": "", "path": ""}


def record(line, ok):
    r = records.setdefault((current["file"], line), [0, 0])
    r[0 if ok else 1] += 1


def _assert(line, thunk):
    try:
        ok = bool(thunk())
    except Exception:  # an error inside the asserted expression counts as a failure
        ok = False
    record(line, ok)


class Counted(ast.NodeTransformer):
    """assert T, M  ->  _cudag_assert_(line, lambda: T)"""

    def visit_Assert(self, node):
        call = ast.Expr(ast.Call(ast.Name("_cudag_assert_", ast.Load()),
                                 [ast.Constant(node.lineno), ast.Lambda(ast.arguments([], [], None, [], [], None, []),
                                                                        node.test)], []))
        return ast.copy_location(call, node)


def counting(method):
    original = getattr(unittest.TestCase, method)

    def wrapper(self, *a, **kw):
        frame = sys._getframe(1)
        mine = frame.f_code.co_filename == current["path"]  # not unittest's own nested asserts
        try:
            original(self, *a, **kw)
            ok = True
        except self.failureException:
            if not mine:
                raise
            ok = False
        if mine:
            record(frame.f_lineno, ok)

    return wrapper


for m in ("assertEqual", "assertTrue", "assertFalse", "assertAlmostEqual", "assertIsNone", "assertIsNotNone",
          "assertIn", "assertNotIn", "assertGreater", "assertLess", "assertSetEqual", "assertListEqual"):
    setattr(unittest.TestCase, m, counting(m))


def run_folder(tree, root: str) -> str:
    """The folder (root or root/tests) where most relative file paths the test opens exist."""
    paths = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and "\n" not in n.value and n.value.endswith((".txt", ".csv", ".json", ".pk"))}
    score = {d: sum(os.path.exists(os.path.join(d, p)) for p in paths) for d in (root, os.path.join(root, "tests"))}
    return max(score, key=lambda d: (score[d], d == root))


total_tests = passed_tests = 0
summary = []
try:
    for spec in args.files:
        name, _, only = spec.partition(".")  # TestPC, or TestPC.test_x for one test
        path = os.path.join(checkout, "tests", name + ".py")
        current["file"], current["path"] = name, path
        with open(path) as f:
            source_text = f.read()
        plain = ast.parse(source_text, path)
        static = sum(1 for n in ast.walk(plain) if isinstance(n, ast.Assert)) + sum(
            1 for n in ast.walk(plain) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr.startswith("assert") and isinstance(n.func.value, ast.Name) and n.func.value.id == "self")
        os.chdir(run_folder(plain, checkout))
        tree = Counted().visit(ast.parse(source_text, path))
        ast.fix_missing_locations(tree)
        module = type(sys)("tests." + name)
        module.__file__ = path
        module.__package__ = "tests"
        module.__dict__["_cudag_assert_"] = _assert
        sys.modules[module.__name__] = module
        exec(compile(tree, path, "exec"), module.__dict__)
        tests_here = passed_here = 0
        for cls in [v for v in module.__dict__.values() if isinstance(v, type) and issubclass(v, unittest.TestCase)
                    and v.__module__ == module.__name__]:
            for test in sorted(t for t in dir(cls) if t.startswith("test") and (not only or t == only)):
                if test in args.skip:
                    print(f"TEST {name}.{test}: skipped (--skip)", flush=True)
                    continue
                tests_here += 1
                before = sum(r[1] for r in records.values())
                try:
                    getattr(cls(test), test)()
                    err = None
                except Exception as e:  # noqa: BLE001
                    err = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                    tb = traceback.extract_tb(e.__traceback__)
                    where = next((f"{os.path.basename(t.filename)}:{t.lineno}" for t in reversed(tb)
                                  if t.filename == path), "")
                    err += f" (at {where})" if where else ""
                failed = sum(r[1] for r in records.values()) - before
                ok = err is None and failed == 0
                passed_here += ok
                print(f"TEST {name}.{test}: {'passed' if ok else 'FAILED'}"
                      f"{'' if err is None else ' - ' + err}{'' if not failed else f' - {failed} assertion(s) failed'}",
                      flush=True)
        total_tests += tests_here
        passed_tests += passed_here
        reached = {k: v for k, v in records.items() if k[0] == name}
        for (f, line), (p, q) in sorted(reached.items()):
            print(f"  ASSERT {f}:{line}: {'pass' if q == 0 else 'FAIL'} ({p} passed, {q} failed)")
        line = (f"{name}: tests {passed_here} of {tests_here} passed; {static} assertion statements, "
                f"{len(reached)} reached, {sum(1 for v in reached.values() if v[1] == 0)} reached and always "
                f"passed; {sum(v[0] for v in reached.values())} evaluations passed, "
                f"{sum(v[1] for v in reached.values())} failed")
        summary.append(line)
        print(line, flush=True)
finally:
    if cleanup:
        shutil.rmtree(cleanup, ignore_errors=True)
print(f"== {'causal-learn itself' if args.peer else 'cudag face'}")
for line in summary:
    print(line)
print(f"tests: {passed_tests} of {total_tests} passed")
