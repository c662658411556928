#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The run context's kernel warm-up on one GPU (run/context.hpp's GpuWarmUp): `cudag pc
# --backend cuda -v` on a small data set, REPS times each way, printing the warm-up note
# (kernels loaded while the data were read), level 0's and level 1's seconds, the skeleton's
# seconds and the whole command's wall seconds:
#   warm-up   the default (the engine's kernels loaded on the warm-up thread)
#   lazy      CUDAG_WARM_UP_KERNELS=0 (each kernel loaded at its first launch, inside the levels)
#   eager     CUDAG_WARM_UP_KERNELS=0 CUDA_MODULE_LOADING=EAGER (every kernel of the binary
#             loaded with the context)
# and checks that the three print the same graph.
# Usage: scripts/bench/gpu_warm_up.sh [build-dir] [data file]
#   default data: 30 variables x 1000 samples (`cudag simulate gaussian --graph er --degree 3`);
#   cuPC's own example: scripts/bench/gpu_warm_up.sh build /path/to/cuPC/data/dataset.csv
#   (cudag reads a header row: a file without one needs a line of column names put first)
#   env: REPS=5, EXTRA="" (more `cudag pc` options)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
reps=${REPS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=${2:-}
if [ -z "$data" ]; then
    data=$tmp/small.csv
    "$cudag" simulate gaussian --vars 30 --samples 1000 --graph er --degree 3 --seed 1 --out "$data" -q
fi
echo "gpu_warm_up: $data, $reps runs each; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
for way in warm-up lazy eager; do
    for r in $(seq "$reps"); do
        envs=()
        [ "$way" != warm-up ] && envs+=(CUDAG_WARM_UP_KERNELS=0)
        [ "$way" = eager ] && envs+=(CUDA_MODULE_LOADING=EAGER)
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        env "${envs[@]}" "$cudag" pc --data "$data" --backend cuda -v ${EXTRA:-} >"$tmp/$way.$r.out" 2>"$tmp/$way.$r.err" \
            || { tail -1 "$tmp/$way.$r.err" >&2; exit 1; }
        t1=$(date +%s.%N)
        l0=$(sed -n 's/.*level 0: .*, \([0-9.]*\) s (.*/\1/p' "$tmp/$way.$r.err")
        l1=$(sed -n 's/.*level 1: .*, \([0-9.]*\) s (.*/\1/p' "$tmp/$way.$r.err")
        sk=$(sed -n 's/.*skeleton: \([0-9.]*\) s.*/\1/p' "$tmp/$way.$r.err")
        note=$(grep -o "GPU warm-up: .* loaded while the data were read, done [0-9.]* s" "$tmp/$way.$r.err" || true)
        printf '%-8s run %d: level 0 %s s, level 1 %s s, skeleton %s s, command %.3f s%s\n' "$way" "$r" "${l0:-?}" \
            "${l1:-?}" "${sk:-?}" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "${note:+ ($note)}"
        if ! cmp -s "$tmp/$way.$r.out" "$tmp/warm-up.1.out"; then
            echo "gpu_warm_up: $way run $r printed another graph than the first warm-up run" >&2
            exit 1
        fi
    done
done
echo "gpu_warm_up: every run printed the same graph"
