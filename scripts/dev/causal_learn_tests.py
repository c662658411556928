# SPDX-License-Identifier: Apache-2.0
"""Runs causal-learn's own test files against cudag's face (cudag.compat.causallearn), the
import swapped: causal-learn's pc (and CIT, where a file imports it) are replaced by cudag's
before the file is imported, and every assert statement and assertX call is counted (and
does not stop its test), so each assertion reached is reported as passed or failed.

The test files are not part of cudag: give a causal-learn checkout (git clone
https://github.com/py-why/causal-learn; its tests/ folder and tests/TestData are used from
there, in place) and run in an environment with causal-learn installed (its other code, SHD,
txt2generalgraph, ..., is what the tests use around pc):

  PYTHONPATH=python:build/python CUDAG_BINARY=build/cudag \\
      python scripts/dev/causal_learn_tests.py CHECKOUT [TestPC ...|TestPC.test_name ...]

Prints one line per assertion (file:line, pass/FAIL, how often reached), one per test
(passed / failed with the error) and the totals.
"""
import ast
import os
import sys
import traceback
import unittest

checkout = os.path.abspath(sys.argv[1])
files = sys.argv[2:] or ["TestPC"]
os.chdir(checkout)  # the tests open "tests/TestData/..."
sys.path.insert(0, checkout)

import cudag.compat.causallearn as face  # noqa: E402
import causallearn.search.ConstraintBased.PC as cl_pc_module  # noqa: E402
import causallearn.utils.cit as cl_cit_module  # noqa: E402

cl_pc_module.pc = face.pc  # the swap: `from causallearn.search.ConstraintBased.PC import pc` gets cudag's

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

    def wrapper(self, *args, **kwargs):
        frame = sys._getframe(1)
        mine = frame.f_code.co_filename == current["path"]  # not unittest's own nested asserts
        try:
            original(self, *args, **kwargs)
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

total_tests = passed_tests = 0
for spec in files:
    name, _, only = spec.partition(".")  # TestPC, or TestPC.test_x for one test
    path = os.path.join(checkout, "tests", name + ".py")
    current["file"], current["path"] = name, path
    with open(path) as f:
        source = f.read()
    tree = Counted().visit(ast.parse(source, path))
    ast.fix_missing_locations(tree)
    static = sum(1 for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Assert)) + sum(
        1 for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr.startswith("assert") and isinstance(n.func.value, ast.Name) and n.func.value.id == "self")
    module = type(sys)("tests." + name)
    module.__file__ = path
    module.__package__ = "tests"
    module.__dict__["_cudag_assert_"] = _assert
    sys.modules[module.__name__] = module
    exec(compile(tree, path, "exec"), module.__dict__)
    if "CIT" in module.__dict__ and module.__dict__["CIT"] is cl_cit_module.CIT:
        module.__dict__["CIT"] = face.CIT
    for cls in [v for v in module.__dict__.values() if isinstance(v, type) and issubclass(v, unittest.TestCase)]:
        for test in sorted(t for t in dir(cls) if t.startswith("test") and (not only or t == only)):
            total_tests += 1
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
            passed_tests += ok
            print(f"TEST {name}.{test}: {'passed' if ok else 'FAILED'}"
                  f"{'' if err is None else ' - ' + err}{'' if not failed else f' - {failed} assertion(s) failed'}",
                  flush=True)
    reached = {k: v for k, v in records.items() if k[0] == name}
    for (f, line), (p, q) in sorted(reached.items()):
        print(f"  ASSERT {f}:{line}: {'pass' if q == 0 else 'FAIL'} ({p} passed, {q} failed)")
    print(f"{name}: {static} assertion statements, {len(reached)} reached, "
          f"{sum(1 for v in reached.values() if v[1] == 0)} reached and always passed; "
          f"{sum(v[0] for v in reached.values())} evaluations passed, {sum(v[1] for v in reached.values())} failed")
print(f"tests: {passed_tests} of {total_tests} passed")
