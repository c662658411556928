#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Accuracy of cudag pc on cuPC-style simulated data: skeleton precision, recall,
# F1 and CPDAG SHD against the true DAG's CPDAG, per seed and on average.
# Usage: scripts/bench/accuracy.sh [build-dir]
#   env: VARS=50 SAMPLES=2000 DENSITY=0.05 SEEDS="1 2 3 4 5" ALPHA=0.01 EXTRA="--compat causal-learn"
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$build/cudag
n=${VARS:-50}; m=${SAMPLES:-2000}; d=${DENSITY:-0.05}; alpha=${ALPHA:-0.01}
seeds=${SEEDS:-"1 2 3 4 5"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-5s %6s %6s %9s %7s %7s %5s\n' seed true est precision recall F1 SHD
for s in $seeds; do
    "$cudag" simulate gaussian --overwrite --vars "$n" --samples "$m" --density "$d" --seed "$s" \
        --out "$tmp/d.csv" --truth "$tmp/t.tsv" 2>/dev/null
    "$cudag" pc --data "$tmp/d.csv" --alpha "$alpha" --out "$tmp/r.h5" --format edges -q ${EXTRA:-}
    "$cudag" compare --truth "$tmp/t.tsv" --estimate "$tmp/r.edges.tsv" --json "$tmp/c.json" >/dev/null
    python3 - "$tmp/c.json" "$s" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<5} {c['n_true_edges']:>6} {c['n_est_edges']:>6} {c['precision']:>9.4f} "
      f"{c['recall']:>7.4f} {c['f1']:>7.4f} {c['shd']:>5}")
PY
done | tee "$tmp/rows"
awk '{p+=$4; r+=$5; f+=$6; h+=$7; k++} END {printf "mean  %6s %6s %9.4f %7.4f %7.4f %5.1f\n", "", "", p/k, r/k, f/k, h/k}' "$tmp/rows"
echo "n=$n m=$m d=$d alpha=$alpha ${EXTRA:-}"
