#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Parallel HDF5 (issue 25): collective (MPI-IO) against gathered (rank 0) HDF5 I/O of
# `cudag pc` on CPU ranks under mpiexec. Three sets:
#   read   an HDF5 input of 100,000 samples x 500 variables (381 MiB of float64), PC at
#          --max-level 1: the input read dominates I/O (its result is small)
#   write  a star: X1 ~ N(0,1) and X2..X2000 = X1 + noise, 200 samples (made with numpy
#          and h5py). Level 0 keeps almost every pair, level 1 separates almost all by {X1}:
#          about 2 million separating sets and 2 million pMax pairs plus the dense 2000 x
#          2000 pMax matrix, some 100 MB of records; the result write and rank 0's memory
#          dominate. (Level-0 removals have no record: their set is empty by definition.)
#   chain  a Markov chain X1 -> X2 -> ... -> X12000, X(k+1) = 0.97 X(k) + noise (unit
#          variances), 200 samples (numpy and h5py): level 0 keeps the pairs up to some 100
#          apart, level 1 separates all but neighbours by a node between them: about 1.4
#          million separating sets, of which only the pairs two apart (12,000) form
#          unshielded triples, the records orientation needs on rank 0
# PC runs at --max-level 1 on all three (a CPU-rank run of the full search on the read set
# takes minutes per configuration on 2 cores).
# For every set, rank count and path: the input read time and the result write time
# (`-v` phase timings: "input read (...)", "results written (...)"), the wall time, and
# the peak resident memory of every rank over the run and after the levels (the records'
# collection, orientation and output: "peak memory per rank [after the levels]"). Each
# collective result is compared with the gathered one of the same rank count
# (scripts/dev/h5_same.py: every dataset and attribute but timings and provenance).
#
# Usage: scripts/bench/hdf5_parallel.sh [build-dir]
#   env: OUT=dir (logs and table), RANKS="1 2 4", SETS="read write chain", MPIEXEC=mpiexec,
#        DATA=dir (where the inputs are made; a local disk: the write times are its)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
ranks=${RANKS:-"1 2 4"}
sets=${SETS:-"read write chain"}
mpiexec=${MPIEXEC:-mpiexec}
logs=${OUT:-$(mktemp -d)}/hdf5_parallel
mkdir -p "$logs"
data=${DATA:-$(mktemp -d)}
trap '[[ -z ${DATA:-} ]] && rm -rf "$data"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none
table=$logs/table.tsv

make_set() {
    case $1 in
        read) "$cudag" simulate gaussian --overwrite --vars 500 --samples 100000 --density 0.01 --seed 7 --out "$data/read.h5" ;;
        write) python3 - "$data/write.h5" <<'PY' ;;
import sys
import h5py
import numpy as np
n, m = 2000, 200
rng = np.random.default_rng(7)
hub = rng.standard_normal(m)
x = hub[:, None] + rng.standard_normal((m, n))
x[:, 0] = hub
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("data", data=x).attrs["names"] = [f"X{k + 1}" for k in range(n)]
PY
        chain) python3 - "$data/chain.h5" <<'PY' ;;
import sys
import h5py
import numpy as np
n, m, rho = 12000, 200, 0.97
rng = np.random.default_rng(7)
x = np.empty((m, n))
x[:, 0] = rng.standard_normal(m)
for k in range(1, n):
    x[:, k] = rho * x[:, k - 1] + np.sqrt(1 - rho * rho) * rng.standard_normal(m)
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("data", data=x)  # no names: cudag calls them X1..X12000
PY
    esac >/dev/null
}

# "... <label> (...): 1.234 s (...)" -> 1.234
phase() { sed -n "s/.*$1 ([^)]*): \([0-9.]*\) s.*/\1/p" "$2" | head -1; }

printf 'set\tranks\tpath\tread_s\twrite_s\twall_s\tpeak_rank0\tpeak_others_max\toutput_peak_rank0\toutput_peak_others_max\tsame_as_gathered\n' >"$table"
for set in $sets; do
    [[ -f $data/$set.h5 ]] || make_set "$set"
    for k in $ranks; do
        for path in gathered collective; do
            log=$logs/$set.np$k.$path.log
            out=$data/$set.np$k.$path.h5
            t0=$(date +%s.%N)
            CUDAG_HDF5_IO=$path "$mpiexec" --oversubscribe -n "$k" "$cudag" pc --data "$data/$set.h5" \
                --max-level 1 --backend cpu --threads 1 -v --out "$out" 2>"$log"
            wall=$(echo "$(date +%s.%N) - $t0" | bc)
            read_s=$(phase "input read" "$log")
            write_s=$(phase "results written" "$log")
            # "0 1.2 GiB, 1 900 MiB, ..." -> rank 0's, and the largest of the others
            first() { sed 's/^0 \([^,]*\).*/\1/'; }
            rest() { tr ',' '\n' | tail -n +2 | sed 's/^ *[0-9]* //' | sort -h | tail -1; }
            peaks=$(sed -n 's/.*peak memory per rank: //p' "$log")
            after=$(sed -n 's/.*peak memory per rank after the levels[^:]*: //p' "$log")
            peak0=$(echo "$peaks" | first)
            others=$(echo "$peaks" | rest)
            after0=$(echo "$after" | first)
            after_others=$(echo "$after" | rest)
            same=-
            if [[ $path == collective ]]; then
                if python3 scripts/dev/h5_same.py "$out" "$data/$set.np$k.gathered.h5" >/dev/null; then
                    same=yes
                else
                    same=NO
                fi
            fi
            printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\n' "$set" "$k" "$path" "$read_s" "$write_s" \
                "$wall" "$peak0" "${others:--}" "$after0" "${after_others:--}" "$same" | tee -a "$table"
        done
        rm -f "$data/$set.np$k."*.h5
    done
done
echo "table: $table"
