#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 18's battery of bad inputs and odd paths, run against one cudag binary: prints a
# Markdown table (case | exit | first stderr line | files left or changed). Run it on two
# builds to compare before and after:  scripts/dev/bad_input_battery.sh path/to/cudag
set -uo pipefail
B=$(readlink -f "${1:?usage: bad_input_battery.sh CUDAG_BINARY}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$B" simulate gaussian --overwrite --vars 6 --samples 300 --seed 3 --out d.csv --truth t.tsv >/dev/null 2>&1
awk -F, 'NR==12{$4="abc"}1' OFS=, d.csv > typo.csv
"$B" simulate discrete --overwrite --vars 6 --samples 300 --seed 3 --out disc.csv >/dev/null 2>&1
cp d.csv x.edges.tsv
python3 - <<'PY'
import random
random.seed(1)
with open("wide.csv", "w") as f:
    f.write(",".join(f"v{i}" for i in range(501)) + "\n")
    for _ in range(12):
        f.write(",".join(f"{random.random():.6f}" for _ in range(501)) + "\n")
PY
mkdir -p store; ln -sf store/r.h5 link.h5; mkfifo fifo.h5
snapshot() { find . -type f -newer .stamp -print -o -type l -newer .stamp -print | sort | tr "\n" " "; }
row() {
    local name=$1; shift
    touch .stamp; sleep 0.01
    local err; err=$(timeout 60 "$@" 2>&1 >/dev/null | head -1)
    local rc=${PIPESTATUS[0]}
    rc=$(timeout 60 "$@" >/dev/null 2>&1; echo $?)
    local left; left=$(snapshot; [ -L link.h5 ] || echo "link.h5 replaced by a file"; [ -p fifo.h5 ] || echo "fifo.h5 replaced")
    printf '| %s | %s | %s | %s |\n' "$name" "$rc" "${err:0:110}" "${left:-none}"
    # restore the inputs a bad build may have replaced
    "$B" simulate gaussian --overwrite --vars 6 --samples 300 --seed 3 --out d.csv >/dev/null 2>&1
    rm -f r.h5 r.*.tsv x.h5 st.csv; cp d.csv x.edges.tsv; rm -f link.h5; ln -sf store/r.h5 link.h5
}
echo "| case | exit | stderr (first line) | files written or replaced |"
echo "| --- | --- | --- | --- |"
row "pc --out = --data"              "$B" pc --data d.csv --out d.csv -q
row "pc --out ./same"                 "$B" pc --data d.csv --out ./d.csv -q
row "pc --checkpoint = --data"        "$B" pc --data d.csv --checkpoint d.csv -q
row "--format edges = input"          "$B" pc --data x.edges.tsv --out x.h5 --format edges -q
row "simulate --out = --truth"        "$B" simulate gaussian --overwrite --vars 4 --samples 9 --out st.csv --truth st.csv
row "compare --json = --truth"        "$B" compare --truth t.tsv --estimate t.tsv --json t.tsv
row "--out symlink"                   "$B" pc --data d.csv --out link.h5 -q
row "--out FIFO"                      "$B" pc --data d.csv --out fifo.h5 -q
row "disk full (ulimit -f 8)"         sh -c "trap '' XFSZ; ulimit -f 8; exec $B pc --data d.csv --out r.h5 --format edges -q"
row "simulate 1e7 vars"               "$B" simulate gaussian --overwrite --vars 10000000 --samples 10 --out big.csv
row "typo cell in continuous data"    "$B" pc --data typo.csv -q
row "unwritable --out dir (/proc)"    "$B" pc --data d.csv --out /proc/r.h5 -q
row "--threads -1"                    "$B" pc --data d.csv --threads -1 -q
row "-q with -v"                      "$B" pc --data d.csv -q -v
row "png of 501 nodes"                "$B" pc --data wide.csv --max-level 0 --out r.h5 --format png -q
row "integer-coded discrete data"     "$B" pc --data disc.csv
row "compare --json -"                "$B" compare --truth t.tsv --estimate t.tsv --json -
