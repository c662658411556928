#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Accuracy with hidden variables: cudag pc, cudag fci and cudag fci --variant rfci on the
# observed columns of simulated Gaussian data, each compared by `cudag compare` with the true
# PAG (`cudag fci --oracle DAG --latent NAMES`, which equals pcalg's dag2pag). PC's CPDAG is
# compared as PAG marks (--- as o-o). Means over seeds of skeleton precision/recall,
# arrowhead, tail and circle precision/recall and the SHD on PAGs, plus wall seconds of each
# learner (the whole command).
# Usage: scripts/bench/fci_accuracy.sh [build-dir] [out-dir]
#   env: SIZES="20 50 100" (generating nodes)  SEEDS="1 2 3 4 5"  SAMPLES=1000  DEGREE=3
#        HIDE=0.08 (share of the generating nodes hidden, at least 1; chosen among nodes with
#        an edge)  ALPHA=0.01  THREADS=2  RUN_TIMEOUT=600 (s, each run; past it: stop)
#        PDSEP_MAX=12, PDSEP_FROM=50: the learner fci gets --pdsep-max PDSEP_MAX at sizes >=
#        PDSEP_FROM (pcalg's full Possible-D-SEP is exponential in the set sizes: at 50 nodes
#        it did not finish in 60 s on any of 3 seeds here); the table says where.
#        ORACLE_PDSEP_MAX=10, ORACLE_FROM=100: the oracle too (its full Possible-D-SEP did not
#        finish in 40 s at 100 nodes). A capped oracle can only keep a pair adjacent that a
#        larger set would separate, so every true-PAG adjacency is checked (networkx): x, y
#        must be d-connected given their observed ancestors (Richardson & Spirtes 2002: if
#        any observed set separates them, that one does). With no such pair the skeleton is
#        the MAG's and the oracle's separating sets are valid, so the PAG is the true one; the
#        count of such pairs is in the table (truth_check) and should be 0.
# `cudag simulate` names the columns X1..Xn (column j is X<j>) and writes the true DAG as a
# TSV edge list over the same names; --latent takes those names, comma-separated.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
[ -x "$cudag" ] || { echo "no $cudag: build first" >&2; exit 1; }
sizes=${SIZES:-"20 50 100"}
seeds=${SEEDS:-"1 2 3 4 5"}
m=${SAMPLES:-1000}
deg=${DEGREE:-3}
hide=${HIDE:-0.08}
alpha=${ALPHA:-0.01}
threads=${THREADS:-2}
pdsep_max=${PDSEP_MAX:-12}
pdsep_from=${PDSEP_FROM:-50}
tmo=${RUN_TIMEOUT:-600}
oracle_max=${ORACLE_PDSEP_MAX:-10}
oracle_from=${ORACLE_FROM:-100}

rows=$out/fci_accuracy_runs.tsv
printf 'size\tseed\thidden\ttruth_check\tlearner\tseconds\tjson\n' >"$rows"
secs() {  # wall seconds of a command, its output discarded; stops the script past RUN_TIMEOUT
    local t0 t1
    t0=$(date +%s.%N)
    timeout "$tmo" "$@" >/dev/null || { echo "failed or past ${tmo}s: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    python3 -c "print('%.3f' % ($t1 - $t0))"
}
for n in $sizes; do
    for s in $seeds; do
        d=$out/n${n}_s$s
        mkdir -p "$d"
        "$cudag" simulate -q gaussian --graph er --degree "$deg" --vars "$n" --samples "$m" --seed "$s" \
            --out "$d/full.csv" --truth "$d/dag.tsv" --overwrite
        # Hidden nodes: HIDE of the n, at least 1, among the nodes with an edge (--latent must
        # name a node of the DAG file, which lists only those); the data keeps the others.
        read -r latent keep < <(python3 - "$d/dag.tsv" "$n" "$hide" "$s" <<'PY'
import random, sys
path, n, hide, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
nodes = sorted({f for line in open(path).read().splitlines()[1:] for f in line.split("\t")[:2]},
               key=lambda x: int(x[1:]))
k = max(1, round(n * hide))
hidden = set(random.Random(seed * 1000 + n).sample(nodes, k))
keep = [str(j) for j in range(1, n + 1) if f"X{j}" not in hidden]
print(",".join(sorted(hidden, key=lambda x: int(x[1:]))), ",".join(keep))
PY
        )
        cut -d, -f"$keep" "$d/full.csv" >"$d/data.csv"
        # The true PAG over the observed nodes (an edge list: it names only nodes with edges, so
        # the estimates are given as .h5 files, which list every variable).
        ocap=""
        [ "$n" -ge "$oracle_from" ] && ocap="--pdsep-max $oracle_max"
        # shellcheck disable=SC2086  # ocap: options split at blanks on purpose
        timeout "$tmo" "$cudag" fci -q --oracle "$d/dag.tsv" --latent "$latent" $ocap --out "$d/truth.h5" \
            --format edges
        check=$(python3 - "$d/dag.tsv" "$d/truth.edges.tsv" "$latent" <<'PY'
import sys
import networkx as nx
dag, pag, latent = sys.argv[1], sys.argv[2], set(sys.argv[3].split(","))
g = nx.DiGraph(tuple(line.split("\t")[:2]) for line in open(dag).read().splitlines()[1:])
bad = 0
for line in open(pag).read().splitlines()[1:]:
    x, y = line.split("\t")[:2]
    z = ((nx.ancestors(g, x) | nx.ancestors(g, y)) - latent) - {x, y}
    bad += nx.is_d_separator(g, {x}, {y}, z)
print(bad)
PY
        )
        pdsep=""
        [ "$n" -ge "$pdsep_from" ] && pdsep="--pdsep-max $pdsep_max"
        for learner in pc fci rfci; do
            case $learner in
                pc) cmd=(pc) ;;
                fci) read -r -a cmd <<<"fci $pdsep" ;;
                rfci) cmd=(fci --variant rfci) ;;
            esac
            t=$(secs nice "$cudag" "${cmd[@]}" -q --threads "$threads" --data "$d/data.csv" --alpha "$alpha" \
                --out "$d/$learner.h5")
            "$cudag" compare --truth "$d/truth.edges.tsv" --truth-pag --estimate "$d/$learner.h5" --json "$d/$learner.json" \
                >/dev/null
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$s" "$latent" "$check" "$learner" "$t" \
                "$(cat "$d/$learner.json")" >>"$rows"
        done
    done
done

table=$out/fci_accuracy.md
python3 - "$rows" "$pdsep_max" "$pdsep_from" "$oracle_max" "$oracle_from" >"$table" <<'PY'
import csv, json, sys
from collections import defaultdict
rows, pmax, pfrom, omax, ofrom = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
acc = defaultdict(list)
hidden = defaultdict(list)
check = defaultdict(int)
for r in csv.DictReader(open(rows), delimiter="\t"):
    c = json.loads(r["json"])
    c["seconds"] = float(r["seconds"])
    acc[(int(r["size"]), r["learner"])].append(c)
    if r["learner"] == "pc":
        hidden[int(r["size"])].append(len(r["hidden"].split(",")))
        check[int(r["size"])] += int(r["truth_check"])
keys = [("precision", "skel P"), ("recall", "skel R"), ("arrow_precision", "arrow P"),
        ("arrow_recall", "arrow R"), ("tail_precision", "tail P"), ("tail_recall", "tail R"),
        ("circle_precision", "circle P"), ("circle_recall", "circle R"),
        ("shd", "SHD"), ("n_true_edges", "true edges"), ("n_est_edges", "est. edges"), ("seconds", "seconds")]
print("| size (hidden) | true PAG | learner | " + " | ".join(k[1] for k in keys) + " |")
print("|" + " --- |" * (len(keys) + 3))
for (n, learner), cs in sorted(acc.items(), key=lambda x: (x[0][0], ["pc", "fci", "rfci"].index(x[0][1]))):
    name = {"pc": "PC (CPDAG, --- as o-o)", "fci": "FCI", "rfci": "RFCI"}[learner]
    if learner == "fci" and n >= pfrom:
        name += f" (--pdsep-max {pmax})"
    h = hidden[n]
    cells = []
    for k, _ in keys:
        v = sum(c[k] for c in cs) / len(cs)
        cells.append(f"{v:.1f}" if k in ("shd", "n_true_edges", "n_est_edges") else
                     f"{v:.2f}" if k == "seconds" else f"{v:.3f}")
    truth = f"oracle --pdsep-max {omax}, check {check[n]}" if n >= ofrom else f"oracle, check {check[n]}"
    print(f"| {n} ({sum(h) / len(h):g}) | {truth} | {name} | " + " | ".join(cells) + " |")
PY
echo "cudag fci/rfci/pc vs the true PAG: ER mean degree $deg, $hide of the nodes hidden, $m samples," \
    "alpha $alpha, seeds: $seeds; means over seeds ($(nproc) CPU threads, --threads $threads)"
cat "$table"
