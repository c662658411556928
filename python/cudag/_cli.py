# SPDX-License-Identifier: Apache-2.0
"""The command line beside the module: the wheel installs the ``cudag`` executable itself
as its script (pip puts it on PATH), so that ``cudag --help`` after ``pip install`` is the
command line, every command, option, message and exit code. ``python -m cudag`` runs it,
and cudag.simulate runs ``cudag simulate`` through it. (The module binds the library, never
the command line: docs/architecture.md.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

_NAME = "cudag.exe" if os.name == "nt" else "cudag"


def binary() -> str:
    """The ``cudag`` executable: $CUDAG_BINARY; the build folder of an in-tree module
    (<build>/python/_cudag*.so beside <build>/cudag); the scripts folder of this Python
    (where pip installed the wheel's, also --user's); else the first on PATH.
    FileNotFoundError when there is none."""
    env = os.environ.get("CUDAG_BINARY")
    if env:
        return env
    try:
        from . import _cudag
    except ImportError:  # an in-tree build: PYTHONPATH=python:<build>/python
        import _cudag
    places = [Path(_cudag.__file__).resolve().parent.parent / _NAME]
    for scheme in (None, f"{os.name}_user"):
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if scripts:
            places.append(Path(scripts) / _NAME)
    for p in places:
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    found = shutil.which(_NAME)
    if found:
        return found
    raise FileNotFoundError("the cudag executable is not installed beside this module (pip install the wheel, "
                            "or build the cudag target and set CUDAG_BINARY)")


def run(args: list[str]) -> subprocess.CompletedProcess:
    """``cudag <args>`` with its output captured."""
    return subprocess.run([binary(), *map(str, args)], capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m cudag <argv>``: the command line, its exit code returned."""
    args = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    return subprocess.call([binary(), *map(str, args)])


def console() -> None:
    sys.exit(main())
