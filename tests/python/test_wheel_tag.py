# SPDX-License-Identifier: Apache-2.0
"""scripts/wheel_tag.py: the manylinux tag from a wheel's ELF files (issue 36), on small
wheels holding system executables: /usr/bin/true needs glibc alone, /bin/ls also
libselinux, which a wheel must carry to be tagged."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "wheel_tag.py"


def elf_needing(lib: str | None) -> Path:
    """A system executable whose only DT_NEEDED libraries are libc and `lib`."""
    for cand in ("/usr/bin/true", "/bin/true", "/usr/bin/ls", "/bin/ls", "/usr/bin/cat", "/usr/bin/env"):
        p = Path(cand)
        if not p.is_file():
            continue
        out = subprocess.run(["readelf", "-W", "-d", str(p)], capture_output=True, text=True).stdout
        needed = set(re.findall(r"Shared library: \[([^\]]+)\]", out))
        if needed == ({"libc.so.6"} | ({lib} if lib else set())):
            return p
    pytest.skip(f"no system executable needing libc{' and ' + lib if lib else ''} alone")


def make_wheel(tmp: Path, files: dict[str, bytes]) -> Path:
    w = tmp / "demo-1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(w, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr("demo-1.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n")
        z.writestr("demo-1.0.dist-info/RECORD", "")
    return w


def tag(wheel: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(wheel)], capture_output=True, text=True)


needs_readelf = pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils' readelf not installed")


@needs_readelf
def test_glibc_alone_gives_the_newest_glibc_version_it_uses(tmp_path):
    exe = elf_needing(None)
    out = subprocess.run(["readelf", "-W", "-V", str(exe)], capture_output=True, text=True).stdout
    newest = max((int(a), int(b)) for a, b in re.findall(r"Name: GLIBC_(\d+)\.(\d+)", out))
    newest = max(newest, (2, 17))
    r = tag(make_wheel(tmp_path, {"demo/tool": exe.read_bytes(), "demo/__init__.py": b""}))
    assert r.returncode == 0, r.stderr
    target = Path(r.stdout.strip())
    assert target.name == f"demo-1.0-cp311-cp311-manylinux_{newest[0]}_{newest[1]}_x86_64.whl"
    assert not (tmp_path / "demo-1.0-cp311-cp311-linux_x86_64.whl").exists()
    with zipfile.ZipFile(target) as z:
        wheel = z.read("demo-1.0.dist-info/WHEEL").decode()
        assert f"Tag: cp311-cp311-manylinux_{newest[0]}_{newest[1]}_x86_64" in wheel
        assert z.read("demo/tool") == exe.read_bytes()
        record = z.read("demo-1.0.dist-info/RECORD").decode().splitlines()
        assert any(line.startswith("demo/tool,sha256=") for line in record)
        assert record[-1] == "demo-1.0.dist-info/RECORD,,"


@needs_readelf
def test_a_library_outside_the_allow_list_must_be_carried(tmp_path):
    exe = elf_needing("libselinux.so.1")
    w = make_wheel(tmp_path, {"demo/tool": exe.read_bytes()})
    r = tag(w)
    assert r.returncode != 0
    assert "needs libselinux.so.1, neither on the manylinux allow-list nor in the wheel" in r.stderr
    assert w.exists(), "a refused wheel is left as it was"
    # Carried in the wheel's .libs folder, it is accepted.
    w.unlink()
    w = make_wheel(tmp_path, {"demo/tool": exe.read_bytes(), "demo.libs/libselinux.so.1": b"not read"})
    r = tag(w)
    assert r.returncode == 0, r.stderr
    assert "-manylinux_2_" in r.stdout


def test_gcc_runtime_versions_raise_the_glibc_floor():
    import importlib.util

    spec = importlib.util.spec_from_file_location("wheel_tag", SCRIPT)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    assert m.runtime_glibc("GLIBCXX_3.4") == (2, 17)
    assert m.runtime_glibc("GLIBCXX_3.4.30") == (2, 35)  # GCC 12: Ubuntu 22.04
    assert m.runtime_glibc("CXXABI_1.3.9") == (2, 24)
    assert m.runtime_glibc("GCC_7.0.0") == (2, 28)
    assert m.runtime_glibc("CXXABI_TM_1") == (2, 17)
    assert m.runtime_glibc("GLIBCXX_3.4.99") is None  # newer than the table: refused
