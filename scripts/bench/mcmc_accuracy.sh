#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Order MCMC accuracy on simulated discrete networks (`cudag simulate discrete`, 3 states,
# up to 3 true parents): the SHD between the best DAG's CPDAG and the true DAG's (cudag
# compare), its skeleton F1, and the AUC of the edge frequencies over the chains' best DAGs
# (max mode; an edge p --> v scored by its frequency, the truth's directed edges positive),
# with every parent set (s = 4) and with --space pc. Then bnlearn's networks as
# causal-learn's test data sample them (10,000 samples each; read from CL_DATA, never
# copied here), when present.
# Usage: scripts/bench/mcmc_accuracy.sh [build-dir]
#   env: SIZES="20 50 100" SAMPLES="600 5000" CHAINS=4 ITER=20000 BACKEND=auto SEEDS="1 2"
#        CL_DATA=../shared/data/causal-learn NETS="sachs child insurance alarm water hailfinder"
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# run data space label seed truth n m: learn, then print one table row.
run() {
    local t0 t1 cmp
    t0=$(date +%s.%N)
    if ! "$build/cudag" mcmc --data "$1" --score bdeu --max-parents 4 --space "$2" --order-score max \
        --chains "${CHAINS:-4}" --iterations "${ITER:-20000}" --seed "$4" --backend "${BACKEND:-auto}" \
        --out "$work/r.h5" --format edgeprob -q 2>"$work/err"; then
        printf '%-5s %-7s %-6s %-10s %s\n' "$6" "$7" "$2" "$3" "failed: $(head -c 120 "$work/err")"
        return
    fi
    t1=$(date +%s.%N)
    cmp=$("$build/cudag" compare --truth "$5" --estimate "$work/r.h5")  # every variable, isolated ones too
    python3 - "$6" "$7" "$2" "$3" "$5" "$work/r.edgeprob.tsv" "$cmp" "$t0" "$t1" <<'PY'
import re, sys
n, m, space, label, truth_path, prob_path, cmp, t0, t1 = sys.argv[1:]
truth = set()
with open(truth_path) as f:  # cudag's TSV (source, target, ...) or causal-learn's "k. A --> B"
    for line in f:
        g = re.match(r"\s*\d+\.\s*(\S+)\s*-->\s*(\S+)", line)
        if g:
            truth.add((g.group(1), g.group(2)))
        elif "\t" in line and not line.startswith("source"):
            a, b = line.split("\t")[:2]
            truth.add((a, b.strip()))
prob = {}
with open(prob_path) as f:
    next(f)
    for line in f:
        a, b, p = line.rstrip("\n").split("\t")
        prob[(a, b)] = float(p)
nodes = sorted({x for e in truth for x in e} | {x for e in prob for x in e})
scores = sorted(((prob.get((a, b), 0.0), (a, b) in truth) for a in nodes for b in nodes if a != b),
                key=lambda x: x[0])
pos = sum(1 for _, t in scores if t)
neg = len(scores) - pos
rank_sum, i = 0.0, 0  # AUC by ranks, ties averaged
while i < len(scores):
    j = i
    while j < len(scores) and scores[j][0] == scores[i][0]:
        j += 1
    rank_sum += (i + 1 + j) / 2.0 * sum(1 for k in range(i, j) if scores[k][1])
    i = j
auc = (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg) if pos and neg else float("nan")
shd = re.search(r"SHD\s+(\d+)", cmp).group(1)
f1 = float(re.search(r"F1\s+([0-9.]+)", cmp).group(1))
print(f"{n:<5} {m:<7} {space:<6} {label:<10} {shd:>6} {f1:6.3f} {auc:8.4f} {float(t1) - float(t0):8.2f}")
PY
}

printf '%-5s %-7s %-6s %-10s %6s %6s %8s %8s\n' n samples space data shd f1 auc seconds
for n in ${SIZES-20 50 100}; do
    for m in ${SAMPLES:-600 5000}; do
        for seed in ${SEEDS:-1 2}; do
            "$build/cudag" simulate discrete --overwrite --vars "$n" --samples "$m" --states 3 \
                --density "$(python3 -c "print(min(0.5, 3.0 / $n))")" --max-parents 3 --seed "$seed" \
                --out "$work/d.csv" --truth "$work/t.tsv" 2>/dev/null
            for space in all pc; do run "$work/d.csv" "$space" "seed$seed" "$seed" "$work/t.tsv" "$n" "$m"; done
        done
    done
done

cl=${CL_DATA:-../shared/data/causal-learn}/bnlearn_discrete_10000
if [[ -d $cl ]]; then
    for net in ${NETS:-sachs child insurance alarm water hailfinder}; do
        [[ -f $cl/data/$net.txt ]] || continue
        n=$(head -1 "$cl/data/$net.txt" | wc -w)
        for space in all pc; do
            run "$cl/data/$net.txt" "$space" "$net" 1 "$cl/truth_dag_graph/$net.graph.txt" "$n" 10000
        done
    done
fi
