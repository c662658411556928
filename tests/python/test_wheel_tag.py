# SPDX-License-Identifier: Apache-2.0
"""python/pep517/cudag_wheel.py: the manylinux tag from a wheel's ELF files (issue 36), on
small wheels holding system executables: /usr/bin/true needs glibc alone, /bin/ls also
libselinux, which a wheel must carry (or another wheel bring: --exclude) to be tagged; the
cu13 variant's renaming (issue 57); the build backend's own settings (cudag_build.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "python" / "pep517" / "cudag_wheel.py"


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


METADATA = ("Metadata-Version: 2.4\nName: demo\nVersion: 1.0\nRequires-Dist: numpy\nProvides-Extra: x\n"
            "Requires-Dist: tqdm; extra == \"x\"\nDescription-Content-Type: text/markdown\n\n# demo\n\nName: body\n")


def make_wheel(tmp: Path, files: dict[str, bytes]) -> Path:
    w = tmp / "demo-1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(w, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr("demo-1.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n")
        z.writestr("demo-1.0.dist-info/METADATA", METADATA)
        z.writestr("demo-1.0.dist-info/RECORD", "")
    return w


def tag(wheel: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args, str(wheel)], capture_output=True, text=True)


def load(name: str):
    import importlib.util

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, SCRIPT.parent / f"{name}.py")
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return m


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
    # Brought by another wheel (as libcudart.so.13 by nvidia-cuda-runtime), it is excluded.
    Path(r.stdout.strip()).unlink()
    w = make_wheel(tmp_path, {"demo/tool": exe.read_bytes()})
    r = tag(w, "--exclude", "libselinux.so.1")
    assert r.returncode == 0, r.stderr
    assert "-manylinux_2_" in r.stdout


@needs_readelf
def test_the_cu13_variant_renames_the_distribution(tmp_path):
    m = load("cudag_wheel")
    exe = elf_needing(None)
    w = make_wheel(tmp_path, {"demo/tool": exe.read_bytes(), "demo-1.0.data/scripts/tool": exe.read_bytes()})
    target = Path(m.retag(str(w), (), "demo-cu13", ("nvidia-cuda-runtime<14,>=13.0",)))
    assert re.fullmatch(r"demo_cu13-1\.0-cp311-cp311-manylinux_2_\d+_x86_64\.whl", target.name)
    with zipfile.ZipFile(target) as z:
        names = set(z.namelist())
        assert {"demo/tool", "demo_cu13-1.0.data/scripts/tool", "demo_cu13-1.0.dist-info/WHEEL",
                "demo_cu13-1.0.dist-info/METADATA", "demo_cu13-1.0.dist-info/RECORD"} == names
        meta = z.read("demo_cu13-1.0.dist-info/METADATA").decode()
        assert meta.startswith("Metadata-Version: 2.4\nName: demo-cu13\nVersion: 1.0\nRequires-Dist: numpy\n"
                               "Requires-Dist: nvidia-cuda-runtime<14,>=13.0\nProvides-Extra: x\n")
        assert meta.endswith("\n\n# demo\n\nName: body\n"), "the description is left as it was"
        record = z.read("demo_cu13-1.0.dist-info/RECORD").decode().splitlines()
        assert sorted(line.split(",")[0] for line in record) == sorted(names)
        # A renamed entry keeps its attributes (the console script its mode bits).
        assert z.getinfo("demo_cu13-1.0.data/scripts/tool").external_attr == z.getinfo("demo/tool").external_attr


def test_backend_settings(monkeypatch):
    pytest.importorskip("scikit_build_core")
    monkeypatch.delenv("CUDAG_WHEEL_VARIANT", raising=False)
    b = load("cudag_build")
    assert b._own(None) == ("cpu", "manylinux", {})
    variant, tag_, settings = b._own({"cudag.variant": "cu13", "cmake.define.CMAKE_CUDA_ARCHITECTURES": "90"})
    assert (variant, tag_) == ("cu13", "manylinux")
    assert settings == {"cmake.define.CMAKE_CUDA_ARCHITECTURES": "90", "cmake.define.CUDAG_ENABLE_CUDA": "ON",
                        "cmake.define.CUDAG_WHEEL_CUDA_RUNTIME": "cu13"}
    assert b._own({"cmake.define.CUDAG_WHEEL_BUNDLE": "OFF"})[1] == "linux"
    for bad, message in (({"cudag.variant": "cu12"}, "cudag.variant=cu12: one of cpu, cu13"),
                         ({"cudag.tags": "x"}, "unknown setting cudag.tags"),
                         ({"cudag.variant": "cu13", "cmake.define.CUDAG_ENABLE_CUDA": "OFF"},
                          "cudag.variant=cu13 needs cmake.define.CUDAG_ENABLE_CUDA=ON")):
        with pytest.raises(ValueError, match=re.escape(message)):
            b._own(bad)
    monkeypatch.setenv("CUDAG_WHEEL_VARIANT", "cu13")
    assert b._own({})[0] == "cu13"


def test_gcc_runtime_versions_raise_the_glibc_floor():
    m = load("cudag_wheel")
    assert m.runtime_glibc("GLIBCXX_3.4") == (2, 17)
    assert m.runtime_glibc("GLIBCXX_3.4.30") == (2, 35)  # GCC 12: Ubuntu 22.04
    assert m.runtime_glibc("CXXABI_1.3.9") == (2, 24)
    assert m.runtime_glibc("GCC_7.0.0") == (2, 28)
    assert m.runtime_glibc("CXXABI_TM_1") == (2, 17)
    assert m.runtime_glibc("GLIBCXX_3.4.99") is None  # newer than the table: refused
