# SPDX-License-Identifier: Apache-2.0
"""The ``cudag`` console script of the wheel (and ``python -m cudag``): the command line
itself, run in-process through the extension module (the same code as the ``cudag``
executable of a CMake build: every command, option, message and exit code)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Runs ``cudag <argv>`` (default: this process's arguments) and returns its exit code;
    as a console script, the process exits with it."""
    try:
        from . import _cudag
    except ImportError:  # an in-tree build: PYTHONPATH=python:<build>/python
        import _cudag
    args = list(sys.argv[1:] if argv is None else argv)
    sys.stdout.flush()
    sys.stderr.flush()
    rc, _ = _cudag.main(["cudag", *map(str, args)], True)
    return int(rc)


def console() -> None:
    sys.exit(main())
