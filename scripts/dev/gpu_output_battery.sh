#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cudag pc` outputs on the paths the CUDA engines take, written as text so that two builds
# can be compared byte for byte (issue 19 moved the Fisher engine's code; nothing it writes
# may change). On a GPU machine, with both builds:
#   scripts/dev/gpu_output_battery.sh OLD_BUILD/cudag /tmp/battery-old
#   scripts/dev/gpu_output_battery.sh NEW_BUILD/cudag /tmp/battery-new
#   diff -r /tmp/battery-old /tmp/battery-new && echo identical
# (Running the old build twice first shows that the outputs do not vary from run to run.)
# Every case writes CASE.edges.tsv, CASE.amat.csv, CASE.cl.txt and CASE.dump (h5dump, 17
# digits, of the skeleton, CPDAG, separating sets, pMax and each level's removals; not the
# times, nor the test counts, which cuPC-S/E do not reproduce from run to run), plus
# CASE.rc (exit status) and CASE.err (stderr without its timing lines).
# env: BACKEND=cuda (cpu: a smoke test of the script without a GPU), MPIEXEC=mpiexec,
#      RANKS="2 3" (ranks sharing the machine's GPUs, over MPI or NCCL as --comm auto picks)
set -uo pipefail
B=$(readlink -f "${1:?usage: gpu_output_battery.sh CUDAG_BINARY OUT_DIR}")
O=$(mkdir -p "${2:?usage: gpu_output_battery.sh CUDAG_BINARY OUT_DIR}" && readlink -f "$2")
backend=${BACKEND:-cuda}
mpiexec=${MPIEXEC:-mpiexec}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0

# Data: small and medium Gaussian sets (dense pMax), one over 4096 variables (the sparse pMax
# table), one factor behind 14 variables (every pair stays dependent up to level 5, removals at
# levels 6-11: the runtime-l kernels), a discrete set.
"$B" simulate gaussian --overwrite --vars 300 --samples 1000 --density 0.017 --seed 1 --out g300.csv >/dev/null 2>&1
"$B" simulate gaussian --overwrite --vars 2000 --samples 800 --density 0.004 --seed 7 --out g2000.csv >/dev/null 2>&1
"$B" simulate gaussian --overwrite --vars 5000 --samples 500 --density 0.0008 --seed 3 --out g5000.csv >/dev/null 2>&1
"$B" simulate discrete --overwrite --vars 70 --samples 3000 --states 3 --density 0.05 --seed 2 --out d70.csv >/dev/null 2>&1
python3 - <<'PY'
import random
random.seed(5)
n, m = 14, 2000
with open("f14.csv", "w") as f:
    f.write(",".join(f"X{i + 1}" for i in range(n)) + "\n")
    for _ in range(m):
        z = random.gauss(0, 1)
        f.write(",".join(f"{z + random.gauss(0, 1):.10f}" for _ in range(n)) + "\n")
PY

dump() {  # dump CASE: the result's datasets that must not change
    h5dump -m %.17g -g /skeleton -g /cpdag -g /sepsets -g /pmax -d /levels/level -d /levels/removed \
        -d /levels/edges_after "$1.h5" >"$O/$1.dump" 2>&1
}
run() {  # run CASE RANKS ARGS...: cudag pc on RANKS ranks (0: without mpiexec)
    local name=$1 ranks=$2
    shift 2
    local cmd=("$B" pc --backend "$backend" -q --out "$name.h5" --format edges,amat,cl "$@")
    ((ranks > 0)) && cmd=("$mpiexec" -n "$ranks" --oversubscribe "${cmd[@]}")
    "${cmd[@]}" 2>"$name.err"
    echo $? >"$O/$name.rc"
    grep -v -i "seconds\| s$\|ms\b" "$name.err" >"$O/$name.err"
    for f in edges.tsv amat.csv cl.txt; do [[ -f $name.$f ]] && cp "$name.$f" "$O/$name.$f"; done
    [[ -f $name.h5 ]] && dump "$name"
}

run g300 0 --data g300.csv --alpha 0.05
run g300_s 0 --data g300.csv --alpha 0.05 --variant s --scan-levels 0
run g300_e 0 --data g300.csv --alpha 0.05 --variant e --scan-levels 0
run g300_scan6 0 --data g300.csv --alpha 0.05 --scan-levels 6 --scan-round-levels 6
run g300_one_round 0 --data g300.csv --alpha 0.05 --scan-round-levels 0
run g300_corr_rows 0 --data g300.csv --alpha 0.05 --corr-limit 0.0001  # C not held whole
run g2000 0 --data g2000.csv
run g2000_e 0 --data g2000.csv --variant e --scan-levels 0
run g5000 0 --data g5000.csv --alpha 0.02  # sparse pMax table (n > 4096)
run g5000_corr_rows 0 --data g5000.csv --alpha 0.02 --corr-limit 0.05
run f14_deep 0 --data f14.csv  # levels beyond 6: runtime-l kernels
run f14_deep_s 0 --data f14.csv --variant s --scan-levels 0
run f14_deep_e 0 --data f14.csv --variant e --scan-levels 0
run d70 0 --data d70.csv --test g-square --alpha 0.05
# Checkpoints (the engine's table comes back every level) and a resume after level 1.
run g300_ckpt 0 --data g300.csv --alpha 0.05 --checkpoint g300_ck.h5
run g300_stop 0 --data g300.csv --alpha 0.05 --checkpoint g300_rs.h5 --stop-after-level 1
run g300_resume 0 --data g300.csv --alpha 0.05 --checkpoint g300_rs.h5 --resume
for k in ${RANKS:-2 3}; do
    run "g300_np$k" "$k" --data g300.csv --alpha 0.05
    run "g5000_np$k" "$k" --data g5000.csv --alpha 0.02
done
echo "gpu_output_battery: $(ls "$O" | wc -l) files in $O"
