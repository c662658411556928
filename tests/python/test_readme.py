# SPDX-License-Identifier: Apache-2.0
"""The README's Python example runs as written (in a scratch folder, where it writes r.h5)."""

import re

from conftest import ROOT

MARK = "<!-- README example: run by tests/python/test_readme.py -->"


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert MARK in text, "the README lost its tested example"
    block = re.match(r"\s*```python\n(.*?)\n```", text.split(MARK, 1)[1], re.S)
    assert block, "no ```python block after the README's marker"
    return block.group(1)


def test_readme_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = readme_example()
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert (tmp_path / "r.h5").exists()
    out = capsys.readouterr().out
    assert out.startswith("PcResult(20 variables") and "'shd':" in out
    assert scope["back"].edges() == scope["res"].edges()
