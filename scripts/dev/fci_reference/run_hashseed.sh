#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/data/fci/causal_learn_hashseed/: causal-learn's fci on h01.csv (cudag simulate gaussian
# --graph er --degree 5 --vars 17 --samples 300 --seed 7, columns 5 and 11 dropped, values
# written as %.6g), alpha 0.2, under PYTHONHASHSEED 0..5, each in a fresh process
# (run_causal_learn.py). causal-learn's PAG on these data depends on the hash seed (its
# Possible-D-SEP and rule 10 walk Python sets of nodes); cudag fci --compat causal-learn
# --python-hash-seed N must give the run of seed N.
set -euo pipefail
cd "$(dirname "$0")/../../.."
py=${PY:-.peers/py/bin/python}
[ -x "$py" ] || py=../main/.peers/py/bin/python
out=tests/data/fci/causal_learn_hashseed
printf 'dataset\talgo\toptions\talpha\ttest\tpythonhashseed\tseconds\tstatus\n' >"$out/manifest.tsv"
for s in 0 1 2 3 4 5; do
    line=$(PYTHONHASHSEED=$s nice "$py" scripts/dev/fci_reference/run_causal_learn.py "$out/h01.csv" fisherz 0.2 \
        "$out/h01__fci__0.2__seed$s")
    IFS=$'\t' read -r ds algo opts a test secs <<<"$line"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\tok\n' "$ds" "$algo" "$opts" "$a" "$test" "$s" "$secs" >>"$out/manifest.tsv"
done
