#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Give a built Linux wheel the manylinux tag it has earned (PEP 600), as auditwheel's
"repair" would name it, without auditwheel: every ELF file in the wheel is read with
binutils' readelf, and

* each library it needs (DT_NEEDED) must be one of the manylinux allow-list (glibc's
  libraries, the dynamic loader, libstdc++ and libgcc_s; python/bundle_libs.cmake bundles
  the rest), a library the wheel carries, or one named in `external` (a library another
  wheel brings: the CUDA runtime of NVIDIA's nvidia-cuda-runtime, as auditwheel's
  --exclude);
* the newest glibc symbol version any of them needs (GLIBC_2.y) gives the tag
  manylinux_2_y_<arch>, raised where a libstdc++/libgcc_s version needed is newer than the
  GCC runtime of glibc 2.y's distributions (RUNTIME below): the wheel then installs on any
  Linux with glibc 2.y or later. (The wheel's own module and executable link libstdc++ and
  libgcc statically, so only libraries it carries may need them.)

retag() rewrites the wheel under its new name (the WHEEL file's Tag lines and RECORD
changed; with `name`, the distribution renamed: its .dist-info and .data folders and
METADATA's Name; with `requires`, Requires-Dist lines added); every other file is kept as
it was. A library outside the allow-list, the wheel and `external`, a libstdc++/libgcc_s
version newer than the table knows, or a file readelf cannot read raises WheelError and
leaves the wheel as it was. The build backend (cudag_build.py) calls it on every wheel
`pip wheel .` builds.

Usage: python3 python/pep517/cudag_wheel.py [--exclude LIB ...] DIST/x-linux_x86_64.whl
(prints the new path).
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile

# The PEP 599/600 allow-list: glibc's libraries, the loader, libstdc++ and libgcc_s.
ALLOWED = re.compile(
    r"^(ld-linux[-\w.]*\.so\.\d+|linux-vdso\.so\.1|lib(c|m|dl|rt|pthread|util|nsl|resolv|crypt)\.so\.\d+"
    r"|libstdc\+\+\.so\.6|libgcc_s\.so\.1)$")

# A libstdc++/libgcc_s symbol version needed -> the oldest glibc whose distributions ship a
# GCC runtime that has it (CentOS 7: GCC 4.8, glibc 2.17; Debian 9: GCC 6, 2.24; Debian 10 and
# RHEL 8: GCC 8, 2.28; Debian 11: GCC 10, 2.31; RHEL 9: GCC 11, 2.34; Ubuntu 22.04: GCC 12, 2.35;
# Ubuntu 23.10: GCC 13, 2.38; Ubuntu 24.04: GCC 14, 2.39): (prefix, newest minor, glibc).
RUNTIME = {
    "GLIBCXX_3.4": [(19, (2, 17)), (22, (2, 24)), (25, (2, 28)), (28, (2, 31)), (29, (2, 34)), (30, (2, 35)),
                    (32, (2, 38)), (33, (2, 39))],
    "CXXABI_1.3": [(7, (2, 17)), (10, (2, 24)), (11, (2, 28)), (12, (2, 31)), (13, (2, 34)), (14, (2, 38)),
                   (15, (2, 39))],
}
GCC_RUNTIME = [((4, 8), (2, 17)), ((7, 0), (2, 28)), ((12, 0), (2, 35)), ((13, 0), (2, 38)), ((14, 0), (2, 39))]


class WheelError(Exception):
    """A wheel that cannot be tagged (the message names the file and what it needs)."""


def runtime_glibc(version):
    """The glibc a libstdc++/libgcc_s symbol version implies, or None when unknown."""
    if version == "CXXABI_TM_1":  # GCC 4.7's transactional-memory ABI
        return (2, 17)
    for prefix, table in RUNTIME.items():
        if version == prefix:
            return table[0][1]
        if version.startswith(prefix + "."):
            minor = int(version[len(prefix) + 1:].split(".")[0])
            for newest, glibc in table:
                if minor <= newest:
                    return glibc
            return None
    m = re.match(r"^GCC_(\d+)\.(\d+)", version)
    if m:
        v = (int(m.group(1)), int(m.group(2)))
        for newest, glibc in GCC_RUNTIME:
            if v <= newest:
                return glibc
    return None


def readelf(path, option, name):
    try:
        return subprocess.run(["readelf", "-W", option, path], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise WheelError(f"readelf {option} {name}: {e}") from None


def needs(path, name):
    """DT_NEEDED names and the versions needed from each library, of one ELF file."""
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf(path, "-d", name))
    versions = {}
    current = None
    for line in readelf(path, "-V", name).splitlines():
        m = re.search(r"File: (\S+)\s+Cnt:", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Name: (\S+)\s+Flags:", line)
        if m and current:
            versions.setdefault(current, set()).add(m.group(1))
    return needed, versions


def glibc_floor(members, external=()):
    """The newest glibc (major, minor) the wheel's ELF files need; (name, bytes) members."""
    carried = {os.path.basename(n) for n, _ in members if ".libs/" in n}
    external = set(external)
    newest = (2, 17)  # manylinux2014's glibc: no older tag is given
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "elf")
        for name, data in members:
            if not data.startswith(b"\x7fELF"):
                continue
            with open(path, "wb") as f:
                f.write(data)
            needed, versions = needs(path, name)
            for lib in needed:
                if not ALLOWED.match(lib) and lib not in carried and lib not in external:
                    raise WheelError(f"{name} needs {lib}, neither on the manylinux allow-list nor in the wheel")
            for lib, names in versions.items():
                for v in names:
                    g = re.match(r"^GLIBC_(\d+)\.(\d+)", v)
                    if g:
                        newest = max(newest, (int(g.group(1)), int(g.group(2))))
                    elif re.match(r"^(GLIBCXX|CXXABI|GCC)_", v) and lib not in carried:
                        floor = runtime_glibc(v)
                        if floor is None:
                            raise WheelError(f"{name} needs {v} of {lib}, newer than any GCC runtime this tags")
                        newest = max(newest, floor)
    return newest


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def normalise(name):
    """A distribution name as wheel file names and .dist-info folders spell it (PEP 427/503)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def rewrite_metadata(text, name=None, requires=()):
    """METADATA with its Name replaced and Requires-Dist lines added after the header's last."""
    head, sep, body = text.partition("\n\n")
    lines = head.split("\n")
    if name:
        lines = [f"Name: {name}" if line.startswith("Name: ") else line for line in lines]
    if requires:
        last = max((i for i, line in enumerate(lines) if line.startswith("Requires-Dist: ") and "extra ==" not in line),
                   default=len(lines) - 1)
        lines[last + 1:last + 1] = [f"Requires-Dist: {r}" for r in requires]
    return "\n".join(lines) + sep + body


def retag(wheel, external=(), name=None, requires=(), tag=True):
    """Rewrite `wheel` (a path) as described in this module's docstring; the new path."""
    base = os.path.basename(wheel)
    m = re.match(r"^(.+?)-(\d[^-]*)-(\w+)-(\w+)-(\w+)\.whl$", base)
    if not m:
        raise WheelError(f"{base}: not a wheel name")
    dist, version, py, abi, plat = m.groups()
    with zipfile.ZipFile(wheel) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    pm = re.match(r"^linux_(\w+)$", plat)
    if tag and pm:
        newest = glibc_floor([(i.filename, d) for i, d in members], external)
        plat = f"manylinux_{newest[0]}_{newest[1]}_{pm.group(1)}"
    new_dist = normalise(name) if name else dist
    old_info, new_info = f"{dist}-{version}.dist-info/", f"{new_dist}-{version}.dist-info/"
    old_data, new_data = f"{dist}-{version}.data/", f"{new_dist}-{version}.data/"
    out = []
    for info, data in members:
        fn = info.filename
        if fn == old_info + "WHEEL":
            text = data.decode()
            text = re.sub(r"(?m)^Tag: (\w+)-(\w+)-\w+$", lambda t: f"Tag: {t.group(1)}-{t.group(2)}-{plat}", text)
            data = text.encode()
        elif fn == old_info + "METADATA" and (name or requires):
            data = rewrite_metadata(data.decode("utf-8"), name, requires).encode("utf-8")
        for old, new in ((old_info, new_info), (old_data, new_data)):
            if fn.startswith(old):
                fn = new + fn[len(old):]
        if fn != info.filename:
            renamed = zipfile.ZipInfo(fn, info.date_time)
            renamed.external_attr, renamed.compress_type = info.external_attr, info.compress_type
            info = renamed
        out.append((info, data))
    record_name = new_info + "RECORD"
    lines = [record_line(i.filename, d) for i, d in out if i.filename != record_name]
    lines.append(f"{record_name},,")
    record = ("\n".join(lines) + "\n").encode()
    target = os.path.join(os.path.dirname(wheel), f"{new_dist}-{version}-{py}-{abi}-{plat}.whl")
    part = target + ".part"
    with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in out:
            z.writestr(info, record if info.filename == record_name else data)
    os.replace(part, target)
    if os.path.abspath(target) != os.path.abspath(wheel):
        os.remove(wheel)
    return target


def main(argv):
    external = []
    while len(argv) >= 2 and argv[0] == "--exclude":
        external.append(argv[1])
        argv = argv[2:]
    if len(argv) != 1:
        sys.exit("cudag_wheel: usage: cudag_wheel.py [--exclude LIB ...] WHEEL")
    try:
        print(retag(argv[0], external))
    except WheelError as e:
        sys.exit(f"cudag_wheel: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
