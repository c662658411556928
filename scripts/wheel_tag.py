#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Give a built Linux wheel the manylinux tag it has earned (PEP 600), as auditwheel's
"repair" would name it, without auditwheel: every ELF file in the wheel is read with
binutils' readelf, and

* each library it needs (DT_NEEDED) must be one of the manylinux allow-list (glibc's
  libraries, the dynamic loader, libstdc++ and libgcc_s; python/bundle_libs.cmake bundles
  the rest) or a library the wheel carries;
* the newest glibc symbol version any of them needs (GLIBC_2.y) gives the tag
  manylinux_2_y_<arch>, raised where a libstdc++/libgcc_s version needed is newer than the
  GCC runtime of glibc 2.y's distributions (RUNTIME below): the wheel then installs on any
  Linux with glibc 2.y or later. (The wheel's own module and executable link libstdc++ and
  libgcc statically, so only libraries it carries may need them.)

The wheel is rewritten in place under its new name (the WHEEL file's Tag lines and its
RECORD entry changed, every other file as it was); the new path is printed. A library
outside the allow-list and the wheel, a libstdc++/libgcc_s version newer than the table
knows, or a file readelf cannot read is a one-line error and the wheel is left as it was.

Usage: python3 scripts/wheel_tag.py DIST/cudag_learn-...-linux_x86_64.whl
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


def fail(message):
    sys.exit("wheel_tag: " + message)


def readelf(path, option):
    try:
        return subprocess.run(["readelf", "-W", option, path], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"readelf {option} {path}: {e}")


def needs(path):
    """DT_NEEDED names and the versions needed from each library, of one ELF file."""
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf(path, "-d"))
    versions = {}
    current = None
    for line in readelf(path, "-V").splitlines():
        m = re.search(r"File: (\S+)\s+Cnt:", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Name: (\S+)\s+Flags:", line)
        if m and current:
            versions.setdefault(current, set()).add(m.group(1))
    return needed, versions


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 2:
        fail("usage: wheel_tag.py WHEEL")
    wheel = sys.argv[1]
    base = os.path.basename(wheel)
    m = re.match(r"^(.+?)-(\d[^-]*)-(\w+)-(\w+)-linux_(\w+)\.whl$", base)
    if not m:
        fail(f"{base}: not a linux_<arch> wheel name")
    dist, version, py, abi, arch = m.groups()
    with zipfile.ZipFile(wheel) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    carried = {os.path.basename(i.filename) for i, _ in members if ".libs/" in i.filename}
    newest = (2, 17)  # manylinux2014's glibc: no older tag is given
    with tempfile.TemporaryDirectory() as tmp:
        for info, data in members:
            if not data.startswith(b"\x7fELF"):
                continue
            path = os.path.join(tmp, "elf")
            with open(path, "wb") as f:
                f.write(data)
            needed, versions = needs(path)
            for lib in needed:
                if not ALLOWED.match(lib) and lib not in carried:
                    fail(f"{info.filename} needs {lib}, neither on the manylinux allow-list nor in the wheel")
            for lib, names in versions.items():
                for v in names:
                    g = re.match(r"^GLIBC_(\d+)\.(\d+)", v)
                    if g:
                        newest = max(newest, (int(g.group(1)), int(g.group(2))))
                    elif re.match(r"^(GLIBCXX|CXXABI|GCC)_", v) and lib not in carried:
                        floor = runtime_glibc(v)
                        if floor is None:
                            fail(f"{info.filename} needs {v} of {lib}, newer than any GCC runtime this tags")
                        newest = max(newest, floor)
    plat = f"manylinux_{newest[0]}_{newest[1]}_{arch}"
    info_dir = f"{dist}-{version}.dist-info/"
    out_members = []
    record_name = info_dir + "RECORD"
    for info, data in members:
        if info.filename == info_dir + "WHEEL":
            text = data.decode()
            text = re.sub(r"(?m)^Tag: (\w+)-(\w+)-linux_\w+$", lambda t: f"Tag: {t.group(1)}-{t.group(2)}-{plat}", text)
            data = text.encode()
        out_members.append((info, data))
    lines = []
    for info, data in out_members:
        if info.filename != record_name:
            lines.append(record_line(info.filename, data))
    lines.append(f"{record_name},,")
    record = ("\n".join(lines) + "\n").encode()
    target = os.path.join(os.path.dirname(wheel), f"{dist}-{version}-{py}-{abi}-{plat}.whl")
    tmp_target = target + ".part"
    with zipfile.ZipFile(tmp_target, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in out_members:
            if info.filename == record_name:
                data = record
            z.writestr(info, data)
    os.replace(tmp_target, target)
    if os.path.abspath(target) != os.path.abspath(wheel):
        os.remove(wheel)
    print(target)


if __name__ == "__main__":
    main()
