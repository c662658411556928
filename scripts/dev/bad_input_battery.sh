#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The battery of bad inputs and odd paths (issues 18 and 53), run against one cudag binary:
# prints a Markdown table (case | expected | exit | held | first stderr line | files written
# or replaced) and, last, how many cases held. A refusal holds when the exit is non-zero,
# stderr is one line (matching the case's pattern when it has one) and no file was written,
# replaced or removed; an accepted case holds when it exits 0 and removes no input. Run it on
# two builds to compare before and after:  scripts/dev/bad_input_battery.sh path/to/cudag
set -uo pipefail
B=$(readlink -f "${1:?usage: bad_input_battery.sh CUDAG_BINARY}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$B" simulate gaussian --vars 6 --samples 300 --seed 3 --out d.csv --truth t.tsv >/dev/null 2>&1
awk -F, 'NR==12{$4="abc"}1' OFS=, d.csv > typo.csv
"$B" simulate discrete --vars 6 --samples 300 --seed 3 --out disc.csv >/dev/null 2>&1
cp d.csv x.edges.tsv
python3 - <<'PY'
import random
random.seed(1)
with open("wide.csv", "w") as f:
    f.write(",".join(f"v{i}" for i in range(501)) + "\n")
    for _ in range(12):
        f.write(",".join(f"{random.random():.6f}" for _ in range(501)) + "\n")
rows = [l.rstrip("\n").split(",") for l in open("d.csv")]
for factor, name in ((1e300, "big.csv"), (1e-300, "small.csv")):
    with open(name, "w") as f:
        f.write(",".join(rows[0]) + "\n")
        for r in rows[1:]:
            f.write(",".join(repr(float(x) * factor) for x in r) + "\n")
with open("mixed.csv", "w") as f:  # two continuous columns and one of labels
    f.write("a,b,c\n")
    for k in range(200):
        a = random.gauss(0, 1)
        f.write(f"{a:.4f},{a + random.gauss(0, 0.3):.4f},{'xy'[k % 2]}\n")
with open("eu.csv", "w") as f:  # R's write.csv2: ';' between fields, decimal commas
    f.write("a;b\n")
    for k in range(50):
        a = random.gauss(0, 1)
        f.write(f"{a:.4f};{a + random.gauss(0, 0.3):.4f}\n".replace(".", ","))
with open("latin1.csv", "wb") as f:  # names in Latin-1, not UTF-8
    f.write(b"g\xe8ne,b\xff,c\n")
    for k in range(100):
        a = random.gauss(0, 1)
        f.write(f"{a:.4f},{a + random.gauss(0, 0.3):.4f},{random.gauss(0, 1):.4f}\n".encode())
PY
gzip -k d.csv
printf '"a\nb",c\n1,2\n3,4\n' > quoted.csv
printf 'netw\xff\x1b[2Jork x {\n}\n' > bad.bif
printf 'source\ttarget\tmark\nX1\tX2\t-->\n' > dag.tsv
echo precious > precious.csv
mkdir -p store; ln -sf store/r.h5 link.h5; mkfifo fifo.h5
M0="mcmc -q --data disc.csv --score bdeu --max-parents 2 --chains 2"
M="$M0 --iterations 400"
# Files that every case must leave as they are (inputs a bad build might remove or replace).
sentinels="d.csv t.tsv disc.csv precious.csv mixed.csv eu.csv big.csv small.csv"
snapshot() { find . -type f -newer .stamp -print -o -type l -newer .stamp -print | sort | tr "\n" " "; }
reset_files() {
    # restore the inputs a bad build may have replaced or removed; remove what cases wrote
    "$B" simulate gaussian --vars 6 --samples 300 --seed 3 --out d.csv --overwrite >/dev/null 2>&1 ||
        "$B" simulate gaussian --vars 6 --samples 300 --seed 3 --out d.csv >/dev/null 2>&1
    rm -f r.h5 r.*.tsv r.json x.h5 st.csv o o.traces X.h5 X.h5.traces p p.traces p.lock my.h5 my.h5.lock ck.h5* \
        lnk.h5 lnk.h5.lock keep2.csv w.csv q.csv s.csv b.h5
    cp d.csv x.edges.tsv; rm -f link.h5; ln -sf store/r.h5 link.h5
    echo precious > precious.csv; echo precious > my.h5.traces; echo "from,to" > p.traces
    rm -f lnk.h5.traces; ln -s precious.csv lnk.h5.traces; cp d.csv X.h5.traces; cp d.csv keep.csv
}
held_count=0 total=0
# row NAME EXPECT PATTERN CMD...: EXPECT is refuse or ok; PATTERN a grep -E pattern the
# first stderr line of a refusal must match ("" for any).
row() {
    local name=$1 expect=$2 pattern=$3; shift 3
    reset_files
    touch .stamp; sleep 0.01
    local err rc
    err=$(timeout 120 "$@" 2>&1 >/dev/null)
    rc=$?
    local lines; lines=$(printf '%s' "$err" | grep -c '' || true)
    local left; left=$(snapshot; [ -L link.h5 ] || echo "link.h5 replaced by a file"; [ -p fifo.h5 ] || echo "fifo.h5 replaced"
        [ "$(cat precious.csv 2>/dev/null)" = precious ] || echo "precious.csv changed"
        [ "$(cat my.h5.traces 2>/dev/null)" = precious ] || echo "my.h5.traces changed"
        [ -L lnk.h5.traces ] || echo "lnk.h5.traces replaced"
        cmp -s X.h5.traces d.csv || echo "X.h5.traces changed"
        for s in $sentinels; do [ -e "$s" ] || echo "$s removed"; done)
    local held=no
    if [ "$expect" = refuse ]; then
        local written; written=$(printf '%s' "$left" | tr ' ' '\n' | grep -v -E '^(\./d\.csv|\./x\.edges\.tsv)?$' || true)
        [ "$rc" -ne 0 ] && [ "$lines" -eq 1 ] && [ -z "$written" ] &&
            { [ -z "$pattern" ] || printf '%s' "$err" | head -1 | grep -q -E -- "$pattern"; } && held=yes
    else
        [ "$rc" -eq 0 ] && ! printf '%s' "$left" | grep -q -E 'removed|changed|replaced' && held=yes
    fi
    total=$((total + 1)); [ "$held" = yes ] && held_count=$((held_count + 1))
    local first; first=$(printf '%s' "$err" | head -1)
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$expect" "$rc" "$held" "${first:0:110}" "${left:-none}"
}
echo "| case | expected | exit | held | stderr (first line) | files written or replaced |"
echo "| --- | --- | --- | --- | --- | --- |"
# Issue 18's cases.
row "pc --out = --data"              refuse "is the input"  "$B" pc --data d.csv --out d.csv -q
row "pc --out ./same"                 refuse "is the input"  "$B" pc --data d.csv --out ./d.csv -q
row "pc --checkpoint = --data"        refuse "is the input"  "$B" pc --data d.csv --checkpoint d.csv -q
row "--format edges = input"          refuse "is the input"  "$B" pc --data x.edges.tsv --out x.h5 --format edges -q
row "simulate --out = --truth"        refuse "same file"     "$B" simulate gaussian --overwrite --vars 4 --samples 9 --out st.csv --truth st.csv
row "compare --json = --truth"        refuse "is the input"  "$B" compare --truth t.tsv --estimate t.tsv --json t.tsv
row "--out symlink"                   ok     ""              "$B" pc --data d.csv --out link.h5 -q
row "--out FIFO"                      refuse "FIFO"          "$B" pc --data d.csv --out fifo.h5 -q
row "disk full (ulimit -f 8)"         refuse "r\.h5"         sh -c "trap '' XFSZ; ulimit -f 8; exec $B pc --data d.csv --out r.h5 --format edges -q"
row "simulate 1e7 vars"               refuse "memory|needs"  "$B" simulate gaussian --overwrite --vars 10000000 --samples 10 --out big7.csv
row "typo cell in continuous data"    refuse "abc"           "$B" pc --data typo.csv -q
row "unwritable --out dir (/proc)"    refuse "cannot write"  "$B" pc --data d.csv --out /proc/r.h5 -q
row "--threads -1"                    refuse "threads"       "$B" pc --data d.csv --threads -1 -q
row "-q with -v"                      refuse ""              "$B" pc --data d.csv -q -v
row "png of 501 nodes"                refuse "force"         "$B" pc --data wide.csv --max-level 0 --out r.h5 --format png -q
row "integer-coded discrete data"     ok     ""              "$B" pc --data disc.csv
row "compare --json -"                ok     ""              "$B" compare --truth t.tsv --estimate t.tsv --json -
# Issue 53: 1. the trace log beside an mcmc checkpoint.
row "mcmc --checkpoint o --out o.traces"         refuse "trace log"      "$B" $M --checkpoint o --out o.traces
row "mcmc --data X.h5.traces --checkpoint X.h5"  refuse "trace log"      "$B" mcmc -q --data X.h5.traces --score bdeu --checkpoint X.h5
row "mcmc --prior p.traces --checkpoint p"       refuse "trace log"      "$B" $M --prior p.traces --checkpoint p
row "unrelated my.h5.traces"                     refuse "exists"         "$B" $M --checkpoint my.h5
row "lnk.h5.traces -> precious.csv"              refuse "symbolic link"  "$B" $M --checkpoint lnk.h5 --overwrite-checkpoint
# 2. two runs on one checkpoint: the second refused at once, naming the first.
row "a second run on a running checkpoint"       refuse "in use by another cudag run" sh -c "
    $B $M0 --iterations 30000000 --thin 1000 --checkpoint-every 100000 --checkpoint ck.h5 >/dev/null 2>&1 & first=\$!
    for i in \$(seq 200); do [ -e ck.h5.lock ] && break; sleep 0.05; done
    $B $M0 --iterations 30000000 --thin 1000 --checkpoint-every 100000 --checkpoint ck.h5 --resume; rc=\$?
    kill \$first; wait \$first 2>/dev/null; rm -f ck.h5 ck.h5.traces; exit \$rc"
# 4. extreme magnitudes: rescaled where the test is scale-free, refused where the score is not.
row "citest fisher-z on data x 1e300"            ok     ""              "$B" citest --data big.csv --x X1 --y X2 --test fisher-z
row "citest fisher-z on data x 1e-300"           ok     ""              "$B" citest --data small.csv --x X1 --y X2 --test fisher-z
row "citest cmiknn on data x 1e300"              ok     ""              "$B" citest --data big.csv --x X1 --y X2 --test cmiknn --transform standardize
row "score bge on data x 1e300"                  refuse "scale"          "$B" score --data big.csv --dag dag.tsv --score bge
row "mcmc bge on data x 1e-300"                  refuse "scale"          "$B" mcmc -q --data small.csv --score bge --iterations 100
# 5. column types.
row "pc: labels beside continuous columns"       refuse "column 'c'"     "$B" pc --data mixed.csv -q
row "pc on a decimal-comma CSV"                  refuse "decimal comma"  "$B" pc --data eu.csv -q
row "citest chi-square on floats"                refuse "non-integer"    "$B" citest --data mixed.csv --x a --y b --test chi-square
# 8. --keep-checkpoint with --bootstrap keeps the finished run.
row "pc --bootstrap --keep-checkpoint"           ok     ""              sh -c "$B pc -q --data d.csv --bootstrap 4 --checkpoint ck.h5 --keep-checkpoint && test -f ck.h5"
# 9. files a command creates never replace one without --overwrite; --force's one meaning.
row "simulate --out over data"                   refuse "--overwrite"    "$B" simulate gaussian --vars 4 --samples 9 --out precious.csv
row "simulate --truth over data"                 refuse "--overwrite"    "$B" simulate gaussian --vars 4 --samples 9 --out s.csv --truth d.csv
row "--write-resample over a file"               refuse "--overwrite"    "$B" pc --data d.csv --write-resample precious.csv
row "--force without png/svg"                    refuse "png/svg"        "$B" pc --data d.csv --force
# 10. JSON from names that are not UTF-8.
row "--format json of Latin-1 names"             ok     ""              sh -c "$B pc -q --data latin1.csv --out r.h5 --format json && python3 -c 'import json; json.load(open(\"r.json\"))'"
row "citest --json of Latin-1 names"             ok     ""              sh -c "$B citest --json --data latin1.csv --x \$(printf 'g\\350ne') --y c --test fisher-z | python3 -c 'import json, sys; json.load(sys.stdin)'"
# 11. the small messages.
row "a .gz input"                                refuse "gzip"           "$B" pc --data d.csv.gz
row "a quoted line break in the header"          refuse "quoted field"   "$B" pc --data quoted.csv
row "--max-parents -1"                           refuse "0 or more, got" "$B" simulate discrete --vars 3 --samples 9 --max-parents -1 --out s.csv
row "mcmc --bootstrap --format traces"           refuse "one run"        "$B" mcmc --data disc.csv --score bdeu --bootstrap 2 --out b.h5 --format traces
row "a BIF with raw bytes"                       refuse "xff"            "$B" simulate bif --bif bad.bif --samples 5 --out s.csv
echo
echo "held: $held_count of $total"
