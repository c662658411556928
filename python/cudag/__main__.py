# SPDX-License-Identifier: Apache-2.0
"""python -m cudag ...: the command line (as the ``cudag`` console script)."""

from ._cli import console

console()
