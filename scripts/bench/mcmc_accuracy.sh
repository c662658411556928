#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Order MCMC accuracy on simulated discrete networks (`cudag simulate discrete`, 2-3 states,
# up to 3 true parents): the best DAG's SHD against the true DAG's CPDAG (cudag compare) and
# the AUC of the edge frequencies over the chains' MAP DAGs (max mode; an edge p --> v scored
# by its frequency, the truth's directed edges positive), with every parent set (s = 4) and
# with --space pc.
# Usage: scripts/bench/mcmc_accuracy.sh [build-dir]
#   env: SIZES="20 50 100" SAMPLES="600 5000" CHAINS=4 ITER=20000 BACKEND=auto SEEDS="1 2"
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf '%-5s %-7s %-6s %-5s %6s %6s %8s %8s\n' n samples space seed shd f1 auc seconds
for n in ${SIZES:-20 50 100}; do
    for m in ${SAMPLES:-600 5000}; do
        for seed in ${SEEDS:-1 2}; do
            d="$work/d.csv"; t="$work/t.tsv"
            "$build/cudag" simulate discrete --vars "$n" --samples "$m" --states 3 \
                --density "$(python3 -c "print(min(0.5, 3.0 / $n))")" --max-parents 3 --seed "$seed" \
                --out "$d" --truth "$t" 2>/dev/null
            for space in all pc; do
                t0=$(date +%s.%N)
                if ! "$build/cudag" mcmc --data "$d" --score bdeu --max-parents 4 --space "$space" \
                    --order-score max --chains "${CHAINS:-4}" --iterations "${ITER:-20000}" --seed "$seed" \
                    --backend "${BACKEND:-auto}" --out "$work/r.h5" --format edges,edgeprob -q 2>"$work/err"; then
                    printf '%-5s %-7s %-6s %-5s %s\n' "$n" "$m" "$space" "$seed" "failed: $(head -c 120 "$work/err")"
                    continue
                fi
                t1=$(date +%s.%N)
                cmp=$("$build/cudag" compare --truth "$t" --estimate "$work/r.edges.tsv")
                python3 - "$n" "$m" "$space" "$seed" "$t" "$work/r.edgeprob.tsv" "$cmp" "$t0" "$t1" <<'PY'
import csv, re, sys
n, m, space, seed, truth_path, prob_path, cmp, t0, t1 = sys.argv[1:]
names = None
truth = set()
with open(truth_path) as f:
    r = csv.reader(f, delimiter="\t")
    next(r)
    for row in r:
        truth.add((row[0], row[1]))
prob = {}
with open(prob_path) as f:
    r = csv.reader(f, delimiter="\t")
    next(r)
    for a, b, p in r:
        prob[(a, b)] = float(p)
nodes = sorted({x for e in truth for x in e} | {x for e in prob for x in e} | {f"X{i + 1}" for i in range(int(n))})
scores = [(prob.get((a, b), 0.0), (a, b) in truth) for a in nodes for b in nodes if a != b]
pos = sum(1 for _, t in scores if t)
neg = len(scores) - pos
# AUC by ranks (ties averaged).
scores.sort(key=lambda x: x[0])
rank_sum, i = 0.0, 0
while i < len(scores):
    j = i
    while j < len(scores) and scores[j][0] == scores[i][0]:
        j += 1
    avg = (i + 1 + j) / 2.0
    rank_sum += avg * sum(1 for k in range(i, j) if scores[k][1])
    i = j
auc = (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg) if pos and neg else float("nan")
shd = re.search(r"SHD\s+(\d+)", cmp).group(1)
f1 = re.search(r"F1\s+([0-9.]+)", cmp).group(1)
print(f"{n:<5} {m:<7} {space:<6} {seed:<5} {shd:>6} {float(f1):6.3f} {auc:8.4f} {float(t1) - float(t0):8.2f}")
PY
            done
        done
    done
done
