#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Order MCMC past the seed paper's sizes (issue 37), each step bounded by `timeout`:
#  1. the paper's setting (binary, 600 samples, s = 4, 10,000 iterations, max mode, BDeu) at
#     n = 125 on the GPU, and at n = $CPU_N on the CPU with the pruned table
#     (--tune table-prune=on, the default) against the full one (table-prune=off): table
#     seconds, entries scored / kept, and whether the two give the same traces, best DAG and
#     edge frequencies byte for byte. (The GPU's table filler scores every entry; the
#     pruning bounds run on the CPU.)
#  2. BiDAG's benchmark design at n = 200 (BIDAG_NS, e.g. "20 80 140 200"): Erdős–Rényi with
#     2 expected parents, N = 10 n,
#     BGe (am = 0.25), --space iterative from the PC space with hard limit 16 and alpha
#     min(0.4, 20 / n), then sum mode with BiDAG's moves for max(25,000, 5 n^2 log n)
#     iterations, 4 chains (ITER200 overrides; the search rounds take the same count); with
#     CMP_ITER, also CMP_ITER iterations with the subset rows and without (--tune sum-rows=0).
#     SHD and skeleton F1 of the best DAG's CPDAG and the edge-probability AUC against the truth.
#  3. bnlearn networks (NETS, default alarm) sampled with `cudag simulate bif` (ROWS rows, a
#     list),
#     max mode, s = 4, --space SPACE3 (default all; pigs and munin want iterative): SHD and
#     skeleton F1 of the best DAG's CPDAG against the network's (`cudag compare`), and the
#     ROC AUC of the edge frequencies for the true skeleton.
# Usage: scripts/bench/mcmc_scale.sh [build-dir]
#   env: N=125 CPU_N=60 STEP_S=240 (timeout per run) BIDAG_NS=200 ITER200=... CMP_ITER=... NETS=alarm
#        ROWS="1000 10000"
#        SPACE3=all SEED=1 BACKEND=cuda (cpu: a smoke test without a GPU) STEPS="1 2 3",
#        OLD=build-dir (step 1 at n = N and step 3 also with that build's cudag, side by side),
#        LOGS=dir (each run's -v log kept there); e.g.
#        STEPS=3 NETS="pigs munin" SPACE3=iterative STEP_S=600
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
n=${N:-125}; cpu_n=${CPU_N:-60}; step=${STEP_S:-240}; seed=${SEED:-1}; backend=${BACKEND:-cuda}
bnlearn=${BNLEARN:-../shared/data/bnlearn}

# One run under the timeout: prints "wall table sort chains scored kept best" from -v.
run() {
    local out=$1; shift
    local t0 t1 log=$work/log.$$
    t0=$(date +%s.%N)
    local rc=0
    timeout "$step" "${bin:-$build/cudag}" mcmc "$@" --out "$out" --format traces,edges,edgeprob -v >/dev/null \
        2>"$log" || rc=$?
    if [[ -n ${LOGS:-} ]]; then cp "$log" "$LOGS/$(basename "$out" .h5).log"; fi
    if [[ $rc != 0 && $rc != 124 ]]; then  # a failed run says why
        echo "run $(basename "$out" .h5) failed (exit $rc); its last lines:" >&2
        grep -v "iteration [0-9]* of" "$log" | tail -n 5 >&2
    fi
    t1=$(date +%s.%N)
    python3 - "$t0" "$t1" "$rc" "$log" <<'PY'
import re, sys
t0, t1, rc, text = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), open(sys.argv[4]).read()
def g(p):
    m = re.search(p, text)
    return m.group(1) if m else "-"
wall = f"{t1 - t0:.2f}" if rc == 0 else ("timeout" if rc == 124 else f"rc{rc}")
scored = g(r"local-score table: ([0-9]+) of [0-9]+ entries scored")
if scored == "-": scored = g(r"local-score table: ([0-9]+) entries")
kept = g(r"score-sorted parent sets: ([0-9]+) of")
print(wall, g(r"space search ([0-9.]+) s") + "+" + g(r"; table ([0-9.]+) s"), g(r"sort ([0-9.]+) s"), g(r"chains ([0-9.]+) s"), scored, kept,
      g(r"best DAG score (-?[0-9.]+)"))
PY
}
auc() {  # ROC AUC of the edge probabilities (a pair's larger direction) for the true skeleton
    python3 - "$1" "$2" <<'PY'
import csv, sys
truth = {frozenset(r[:2]) for r in list(csv.reader(open(sys.argv[1]), delimiter="\t"))[1:]}
prob = {}
for a, b, p in list(csv.reader(open(sys.argv[2]), delimiter="\t"))[1:]:
    k = frozenset((a, b))
    prob[k] = max(prob.get(k, 0.0), float(p))
names = sorted({v for k in list(truth) + list(prob) for v in k})
pairs = [frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1:]]
pos = sorted(prob.get(k, 0.0) for k in pairs if k in truth)
neg = sorted(prob.get(k, 0.0) for k in pairs if k not in truth)
# P(score of a true pair > a false one), ties counting half
import bisect
wins = sum(bisect.bisect_left(neg, x) + 0.5 * (bisect.bisect_right(neg, x) - bisect.bisect_left(neg, x)) for x in pos)
print(f"edge-probability AUC {wins / max(1, len(pos) * len(neg)):.4f} ({len(pos)} true pairs, {len(neg)} others)")
PY
}
same() {  # traces, best DAG and edge frequencies of two runs, byte for byte
    local x=${1%.h5} y=${2%.h5} f
    for f in traces.tsv edges.tsv edgeprob.tsv; do
        [[ -f $x.$f && -f $y.$f ]] && cmp -s "$x.$f" "$y.$f" || { echo NO; return; }
    done
    echo yes
}
# Binary data of n variables, 600 samples, every column with two levels (BDeu needs them):
# the first of ten seeds from $seed on that gives one.
binary() {
    local s
    for s in $(seq "$seed" $((seed + 9))); do
        "$build/cudag" simulate discrete --overwrite --vars "$1" --samples 600 --states 2 --max-parents 4 --seed "$s" \
            --density "$(python3 -c "print(min(0.5, 3.0 / $1))")" --out "$2" 2>/dev/null &&
            python3 -c 'import csv, sys; r = list(csv.reader(open(sys.argv[1])))
sys.exit(any(len({x[c] for x in r[1:]}) < 2 for c in range(len(r[0]))))' "$2" && return 0
    done
    return 1
}

hdr='%-34s %9s %14s %8s %8s %12s %9s %16s %5s\n'
steps=" ${STEPS:-1 2 3} "
if [[ $steps == *" 1 "* ]]; then
echo "1. the paper's setting: binary, 600 samples, s = 4, 10,000 iterations, 1 chain, max mode, BDeu"
printf "$hdr" run wall_s space+table_s sort_s chains_s scored kept best same
for m in "$cpu_n" "$n"; do
    binary "$m" "$work/b$m.csv"
    opts=(--data "$work/b$m.csv" --score bdeu --max-parents 4 --space all --chains 1 --iterations 10000 --seed "$seed")
    read -r w t so ch sc ke be < <(run "$work/g$m.h5" "${opts[@]}" --backend "$backend")
    printf "$hdr" "n=$m $backend" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" "-"
    if [[ $m == "$n" && -n ${OLD:-} ]]; then  # the same run by another build, side by side
        read -r w t so ch sc ke be < <(bin=$OLD/cudag run "$work/o$m.h5" "${opts[@]}" --backend "$backend")
        printf "$hdr" "n=$m $backend (OLD build)" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" \
            "$(same "$work/g$m.h5" "$work/o$m.h5")"
    fi
    [[ $m == "$n" && $n != "$cpu_n" ]] && continue
    for p in off on; do
        read -r w t so ch sc ke be < <(run "$work/c$m$p.h5" "${opts[@]}" --backend cpu --tune table-prune=$p)
        printf "$hdr" "n=$m cpu table-prune=$p" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" \
            "$(same "$work/g$m.h5" "$work/c$m$p.h5")"
    done
done

fi

if [[ $steps == *" 2 "* ]]; then
for bn in ${BIDAG_NS:-200}; do
echo
alpha=$(python3 -c "print(min(0.4, 20.0 / $bn))")
echo "2. BiDAG's design at n = $bn: ER 2 parents, N = $((10 * bn)), BGe am 0.25, iterative space (hard limit 16, alpha $alpha), sum"
"$build/cudag" simulate gaussian --overwrite --vars "$bn" --samples $((10 * bn)) --density "$(python3 -c "print(4.0 / ($bn - 1))")" \
    --seed "$seed" --out "$work/g$bn.csv" --truth "$work/g$bn.truth.tsv" -q
iter=${ITER200:-$(python3 -c "import math; print(max(25000, int(5 * $bn**2 * math.log($bn))))")}
printf "$hdr" run wall_s space+table_s sort_s chains_s scored kept best same
bidag=(--data "$work/g$bn.csv" --score bge --am 0.25 --max-parents 4 --space iterative --hard-limit 16 --alpha "$alpha"
    --order-score sum --moves bidag --chains 4 --seed "$seed" --backend "$backend")
read -r w t so ch sc ke be < <(run "$work/bge$bn.h5" "${bidag[@]}" --iterations "$iter")
printf "$hdr" "n=$bn bge, 4 x $iter iterations" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" "-"
if [[ -f $work/bge$bn.h5 ]]; then
    timeout 60 "$build/cudag" compare --truth "$work/g$bn.truth.tsv" --estimate "$work/bge$bn.h5" 2>&1 | tail -n 8
    auc "$work/g$bn.truth.tsv" "$work/bge$bn.edgeprob.tsv"
fi
# Side by side at CMP_ITER iterations: the subset rows (the default) against every node
# enumerating its sets (--tune sum-rows=0, as before the rows), the same build and data.
if [[ -n ${CMP_ITER:-} ]]; then
    for rows in default 0; do
        tune=(); [[ $rows == 0 ]] && tune=(--tune sum-rows=0)
        read -r w t so ch sc ke be < <(run "$work/cmp$rows.h5" "${bidag[@]}" --iterations "$CMP_ITER" "${tune[@]}")
        printf "$hdr" "n=$bn, 4 x $CMP_ITER, sum-rows=$rows" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" "-"
    done
fi
done
fi

[[ $steps == *" 3 "* ]] || exit 0
space3=${SPACE3:-all}
for rows in ${ROWS:-1000}; do
for net in ${NETS:-alarm}; do
    echo
    echo "3. $net, $rows rows (cudag simulate bif), max mode BDeu s = 4, --space $space3, 4 chains x 20,000 iterations"
    if [[ ! -f $bnlearn/$net.bif.gz ]]; then
        echo "no $bnlearn/$net.bif.gz: skipped"
        continue
    fi
    gunzip -c "$bnlearn/$net.bif.gz" >"$work/$net.bif"
    "$build/cudag" simulate bif --overwrite --bif "$work/$net.bif" --samples "$rows" --seed "$seed" --out "$work/$net.csv" \
        --truth "$work/$net.truth.tsv" -q
    # A variable that kept one level in the sample (munin's rare states at 1,000 rows) is
    # dropped, with its edges from the truth: BDeu refuses it, as a user would be told.
    python3 - "$work/$net.csv" "$work/$net.truth.tsv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [c for c in range(len(rows[0])) if len({r[c] for r in rows[1:]}) > 1]
gone = {rows[0][c] for c in range(len(rows[0])) if c not in keep}
if gone:
    with open(sys.argv[1], "w", newline="") as f:
        csv.writer(f).writerows([[r[c] for c in keep] for r in rows])
    truth = list(csv.reader(open(sys.argv[2]), delimiter="\t"))
    with open(sys.argv[2], "w", newline="") as f:
        csv.writer(f, delimiter="\t").writerows([truth[0]] + [t for t in truth[1:] if t[0] not in gone and t[1] not in gone])
    print(f"dropped {len(gone)} of {len(rows[0])} variables with a single level in the sample")
PY
    printf "$hdr" run wall_s space+table_s sort_s chains_s scored kept best same
    read -r w t so ch sc ke be < <(run "$work/$net.h5" --data "$work/$net.csv" --score bdeu --max-parents 4 \
        --space "$space3" --chains 4 --iterations 20000 --seed "$seed" --backend "$backend")
    printf "$hdr" "$net" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" "-"
    if [[ -n ${OLD:-} ]]; then  # the same run by another build, side by side
        read -r w t so ch sc ke be < <(bin=$OLD/cudag run "$work/old-$net.h5" --data "$work/$net.csv" --score bdeu \
            --max-parents 4 --space "$space3" --chains 4 --iterations 20000 --seed "$seed" --backend "$backend")
        printf "$hdr" "$net (OLD build)" "$w" "$t" "$so" "$ch" "$sc" "$ke" "$be" \
            "$(same "$work/$net.h5" "$work/old-$net.h5")"
    fi
    timeout 60 "$build/cudag" compare --truth "$work/$net.truth.tsv" --estimate "$work/$net.h5" 2>&1 | tail -n 8
    auc "$work/$net.truth.tsv" "$work/$net.edgeprob.tsv"
done
done
