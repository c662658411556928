#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare two cudag result (or checkpoint) HDF5 files: every dataset and attribute,
except timings and provenance that differ between runs (seconds, created, command line,
host, input mtime, backend/threads/communicator names). Exit 0 when equal, else 1 with
the first difference. Needs h5py and numpy.

    scripts/dev/h5_same.py A.h5 B.h5
"""
import sys

import h5py
import numpy as np

# levels/tests counts the tests a level ran: on a GPU an edge's threads stop once its
# separating set is known, so the count depends on timing (it differs between two runs of
# one build); the skeleton, separating sets, pMax and CPDAG do not.
SKIP_DATASETS = {"levels/seconds", "levels/merge_seconds", "levels/imbalance",
                 "levels/tests_imbalance", "levels/tests"}
SKIP_ATTRS = {"seconds_total", "seconds_table", "seconds_sort", "seconds_chains", "created", "command_line", "host", "input_mtime", "input",
              "backend", "threads", "communicator", "ranks", "cudag_version"}


def walk(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj))
    return out


def attrs(obj):
    return {k: obj.attrs[k] for k in obj.attrs if k not in SKIP_ATTRS}


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and (
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a == b


def main(pa, pb):
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        for label, oa, ob in [("/", fa, fb)]:
            ka, kb = attrs(oa), attrs(ob)
            if ka.keys() != kb.keys():
                return f"root attributes differ: {sorted(ka.keys() ^ kb.keys())}"
            for k in ka:
                if not same(ka[k], kb[k]):
                    return f"root attribute {k}: {ka[k]!r} != {kb[k]!r}"
        wa, wb = walk(fa), walk(fb)
        if wa.keys() != wb.keys():
            return f"objects differ: {sorted(wa.keys() ^ wb.keys())}"
        diffs = []
        for name in sorted(wa):
            oa, ob = wa[name], wb[name]
            ka, kb = attrs(oa), attrs(ob)
            if ka.keys() != kb.keys():
                diffs.append(f"{name}: attributes differ: {sorted(ka.keys() ^ kb.keys())}")
                continue
            for k in ka:
                if not same(ka[k], kb[k]):
                    diffs.append(f"{name} attribute {k}: {ka[k]!r} != {kb[k]!r}")
            if isinstance(oa, h5py.Dataset) and name not in SKIP_DATASETS:
                if not same(oa[()], ob[()]):
                    diffs.append(f"dataset {name} differs")
    return "; ".join(diffs) or None


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    diff = main(sys.argv[1], sys.argv[2])
    if diff:
        print(f"DIFFER {sys.argv[1]} {sys.argv[2]}: {diff}")
        sys.exit(1)
    print(f"same {sys.argv[1]} {sys.argv[2]}")
