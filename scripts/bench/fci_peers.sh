#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cudag fci (FCI and RFCI, CPU) vs causal-learn's fci and pcalg's fci / rfci on the same
# simulated data with hidden variables, in one run: wall time of each (the learner call,
# each peer in a fresh process), the ratios, and whether cudag's PAG equals pcalg's; and
# cudag fci --compat causal-learn vs causal-learn's fci (its time and whether the PAGs are
# identical).
# Usage: scripts/bench/fci_peers.sh [build-dir] [out-dir]
#   env: SIZES="20 50 100"  SAMPLES=1000  DEGREE=3  HIDE=0.05 (share of the generating nodes
#        dropped from the data)  SEED=1  ALPHA=0.01  THREADS=1 (cudag's)  PEER_LIMIT=600 (s;
#        a peer run past it is stopped and reported as "> limit")
#        PY=python with causal-learn (default .peers/py/bin/python; none: column "-")
#        pcalg: Rscript with pcalg installed (../shared/peers/install_r_peers.sh); none: "-"
#        REPEAT=1 (cudag runs per measurement; the median is reported: on a shared machine
#        a millisecond run varies several-fold)
#        ONLY_CL=1: time only cudag fci --compat causal-learn and causal-learn's fci (pcalg's
#        fci, which takes > 10 min at 50 variables, and cudag's pcalg-exact runs: "-")
# Peers are never installed by this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cudag=$build/cudag
[ -x "$cudag" ] || { echo "no $cudag: build first" >&2; exit 1; }
sizes=${SIZES:-"20 50 100"}
m=${SAMPLES:-1000}
deg=${DEGREE:-3}
hide=${HIDE:-0.05}
seed=${SEED:-1}
alpha=${ALPHA:-0.01}
threads=${THREADS:-1}
limit=${PEER_LIMIT:-600}
py=${PY:-.peers/py/bin/python}
have_cl=0
"$py" -c "import causallearn" 2>/dev/null && have_cl=1
only_cl=${ONLY_CL:-0}
have_r=0
if [ "$only_cl" != 1 ]; then
    Rscript -e 'quit(status = !requireNamespace("pcalg", quietly = TRUE))' >/dev/null 2>&1 && have_r=1
fi

cat > "$out/run_cl.py" <<'PY'
import sys, time
import numpy as np
from causallearn.search.ConstraintBased.FCI import fci
path, alpha, amat = sys.argv[1], float(sys.argv[2]), sys.argv[3]
names = open(path).readline().rstrip("\n").split(",")
data = np.loadtxt(path, delimiter=",", skiprows=1)
t0 = time.perf_counter()
g, edges = fci(data, "fisherz", alpha, verbose=False, show_progress=False, node_names=names)
secs = time.perf_counter() - t0
code = {-1: 3, 1: 2, 2: 1}  # causal-learn's graph[j, i] (the mark at j) as pcalg's amat.pag[i, j]
with open(amat, "w") as f:
    f.write(",".join(['""'] + [f'"{n}"' for n in names]) + "\n")
    for i, n in enumerate(names):
        f.write(",".join([f'"{n}"'] + [str(code.get(int(g.graph[j, i]), 0)) for j in range(len(names))]) + "\n")
print(f"{secs:.6f}")
PY
cat > "$out/run_pcalg.R" <<'R'
suppressMessages(library(pcalg))
a <- commandArgs(TRUE)
d <- read.csv(a[1]); ss <- list(C = cor(d), n = nrow(d))
t0 <- Sys.time()
r <- if (a[3] == "rfci") rfci(ss, gaussCItest, alpha = as.numeric(a[2]), labels = colnames(d)) else
     fci(ss, gaussCItest, alpha = as.numeric(a[2]), labels = colnames(d))
cat(sprintf("%.6f\n", as.numeric(Sys.time() - t0, units = "secs")))
write.table(r@amat, a[4], quote = FALSE, sep = ",", col.names = NA)
R

timed() {  # seconds of one command's learner call (its last stdout line), or "> limit"
    local o
    if o=$(timeout "$limit" "$@" 2>/dev/null | tail -1); then echo "$o"; else echo "> $limit"; fi
}
cudag_once() {  # seconds of a cudag fci run as its summary line reports them, or "> limit"
    local o
    o=$(timeout "$limit" "$cudag" fci -v --threads "$threads" --data "$1" --alpha "$alpha" $2 --out "$3" \
        --format amat 2>&1 | sed -n 's/.* \([0-9.e-]*\) s\(;.*\)\?$/\1/p' | tail -1 || true)
    if [ -n "$o" ]; then echo "$o"; else echo "> $limit"; fi
}
cudag_secs() {  # the median of REPEAT runs of cudag_once
    local r t=()
    for ((r = 0; r < ${REPEAT:-1}; r++)); do
        t+=("$(cudag_once "$@")")
        case ${t[-1]} in ">"*) echo "${t[-1]}"; return;; esac
    done
    printf '%s\n' "${t[@]}" | sort -g | sed -n "$(( (${#t[@]} + 1) / 2 ))p"
}
same_as() {  # cudag's .pag.amat.csv vs pcalg's amat (both with names): same / differ
    python3 - "$1" "$2" <<'PYC'
import csv, sys
a = [[c.strip('"') for c in r] for r in csv.reader(open(sys.argv[1]))]
b = [[c.strip('"') for c in r] for r in csv.reader(open(sys.argv[2]))]
print("same" if a[1:] == b[1:] and a[0][1:] == b[0][1:] else "differ")
PYC
}

table=$out/fci_peers.tsv
printf 'vars\tobserved\tcudag_fci_s\tcudag_rfci_s\tcudag_clfci_s\tcausal_learn_fci_s\tpcalg_fci_s\tpcalg_rfci_s\tx_cl_clfci\tx_pcalg_fci\tx_pcalg_rfci\tclfci_vs_cl\tfci_vs_pcalg\trfci_vs_pcalg\n' >"$table"
for n in $sizes; do
    full=$out/full_$n.csv
    "$cudag" simulate -q gaussian --graph er --degree "$deg" --vars "$n" --samples "$m" --seed "$seed" --out "$full" \
        --truth "$out/truth_$n.tsv" --overwrite
    k=$(python3 -c "import math; print(max(1, round($n * $hide)))")
    keep=$(python3 -c "
import random; random.seed($seed + $n); drop = set(random.sample(range(1, $n + 1), $k))
print(','.join(str(c) for c in range(1, $n + 1) if c not in drop))")
    data=$out/data_$n.csv
    cut -d, -f"$keep" "$full" >"$data"
    obs=$((n - k))
    cf=-; cr=-
    if [ "$only_cl" != 1 ]; then
        cf=$(cudag_secs "$data" "" "$out/c_fci_$n.h5")
        cr=$(cudag_secs "$data" "--variant rfci" "$out/c_rfci_$n.h5")
    fi
    cc=$(cudag_secs "$data" "--compat causal-learn" "$out/c_clfci_$n.h5")
    cl=-; pf=-; pr=-; sf=-; sr=-; sc=-
    [ $have_cl = 1 ] && cl=$(timed "$py" "$out/run_cl.py" "$data" "$alpha" "$out/cl_fci_$n.csv")
    [ -f "$out/cl_fci_$n.csv" ] && sc=$(same_as "$out/c_clfci_$n.pag.amat.csv" "$out/cl_fci_$n.csv")
    if [ $have_r = 1 ]; then
        pf=$(timed Rscript "$out/run_pcalg.R" "$data" "$alpha" fci "$out/p_fci_$n.csv")
        pr=$(timed Rscript "$out/run_pcalg.R" "$data" "$alpha" rfci "$out/p_rfci_$n.csv")
        [ -f "$out/p_fci_$n.csv" ] && sf=$(same_as "$out/c_fci_$n.pag.amat.csv" "$out/p_fci_$n.csv")
        [ -f "$out/p_rfci_$n.csv" ] && sr=$(same_as "$out/c_rfci_$n.pag.amat.csv" "$out/p_rfci_$n.csv")
    fi
    ratio() { python3 -c "
a, b = '$1', '$2'
print('-' if a in ('-', '') or b in ('-', '') or a.startswith('>') else ('%.0f' % (float(a) / float(b)) if float(b) > 0 else '-'))"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$obs" "$cf" "$cr" "$cc" "$cl" "$pf" "$pr" \
        "$(ratio "$cl" "$cc")" "$(ratio "$pf" "$cf")" "$(ratio "$pr" "$cr")" "$sc" "$sf" "$sr" >>"$table"
done
echo "cudag fci (CPU, $threads thread(s)) vs causal-learn fci (fisherz) and pcalg fci/rfci (gaussCItest);"
echo "x_cl_clfci: causal-learn fci / cudag fci --compat causal-learn; clfci_vs_cl: identical PAGs or not;"
echo "$m samples, ER graphs of mean degree $deg, $hide of the nodes hidden, alpha $alpha; seconds of the learner call"
if command -v column >/dev/null; then column -t -s $'\t' "$table"; else cat "$table"; fi
