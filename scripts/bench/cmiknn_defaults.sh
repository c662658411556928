#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CMIknn with tigramite's own defaults (knn = 0.2·T, 5 shuffle neighbours, 500 surrogates,
# ranks) on the GPU, cudag's CPU engine and tigramite 5.2.10.1 side by side: seconds per
# test on the same `cudag simulate nonlinear` data and the same random tests (|S| = 1), and
# whether CUDA equals the CPU engine. The issue's goal: at least 100x tigramite.
# Usage: scripts/bench/cmiknn_defaults.sh [build-dir]
#   env: T_LIST="500 1000 2000" NTESTS=20 TIG_TESTS=3 REPEAT=3 VARS=20 SEED=1
#        PYTHONPATH must provide tigramite (see scripts/bench/cmiknn_gpu.sh); skipped without
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
ntests=${NTESTS:-20}; tig_tests=${TIG_TESTS:-3}; repeat=${REPEAT:-3}; vars=${VARS:-20}
have_tig=0; python3 -c "import tigramite" 2>/dev/null && have_tig=1
printf '%-6s %12s %12s %12s %12s %10s %10s %6s\n' T gpu_single gpu_batch cpu tigramite tig/gpu1 tig/cpu same
for t in ${T_LIST:-500 1000 2000}; do
    "$build/cudag" simulate nonlinear --overwrite --vars "$vars" --samples "$t" --density 0.2 --seed "${SEED:-1}" \
        --out "$work/d$t.csv" --truth "$work/t$t.tsv" 2>/dev/null
    python3 - "$vars" "$ntests" "$work/tests$t.tsv" "$tig_tests" "$work/tig$t.tsv" <<'PY'
import random, sys
v, n, path, nt, tpath = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
rng = random.Random(7)
lines = []
for _ in range(n):
    x, y, z = rng.sample(range(v), 3)
    lines.append(f"{x}\t{y}\t{z}\n")
open(path, "w").writelines(lines)
open(tpath, "w").writelines(lines[:nt])
PY
    opts="--knn 0.2 --shuffle-neighbors 5 --permutations 500"
    g1=$("$build/cmiknn_bench" --data "$work/d$t.csv" --tests "$work/tests$t.tsv" $opts --backend cuda --single --repeat "$repeat" 2>/dev/null || true)
    gb=$("$build/cmiknn_bench" --data "$work/d$t.csv" --tests "$work/tests$t.tsv" $opts --backend cuda --repeat "$repeat" 2>/dev/null || true)
    c=$("$build/cmiknn_bench" --data "$work/d$t.csv" --tests "$work/tests$t.tsv" $opts --backend cpu --repeat 1)
    tg=""
    [[ $have_tig == 1 ]] && tg=$(python3 scripts/bench/cmiknn_tigramite.py --data "$work/d$t.csv" --tests "$work/tig$t.tsv" --tigramite-defaults 2>/dev/null || true)
    python3 - "$t" "$ntests" "$g1" "$gb" "$c" "$tg" <<'PY'
import json, sys
t, n = sys.argv[1], int(sys.argv[2])
def load(s):
    try: return json.loads(s)
    except Exception: return None
g1, gb, c, tg = (load(s) for s in sys.argv[3:7])
per = lambda j: j["seconds_per_test"] if j else None
s1, sb, sc, st = per(g1), per(gb), per(c), per(tg)
same = "-"
if gb and c:
    same = "same" if all(a["statistic"] == b["statistic"] and a["p"] == b["p"]
                         for a, b in zip(gb["results"], c["results"])) else "DIFFER"
f = lambda v: f"{v:12.4g}" if v is not None else f"{'n/a':>12}"
r = lambda a, b: f"{a / b:9.0f}x" if a and b else f"{'-':>10}"
print(f"{t:<6} {f(s1)} {f(sb)} {f(sc)} {f(st)} {r(st, s1)} {r(st, sc)} {same:>6}")
PY
done
