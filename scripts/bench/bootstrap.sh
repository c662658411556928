#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `cudag pc --bootstrap` (issue 38) on a DREAM5-sized Gaussian set (n = 1643, m = 850,
# about 10 neighbours per variable, as scripts/bench/gpu_pc.sh's "dream"):
#   cpu      B = CPU_B replicates on the CPU engine, all threads (bounded by CPU_LIMIT s;
#            the time for B = 100 is extrapolated from it)
#   gpu      B = CPU_B on one GPU: its freq table must equal the CPU's (identical: yes/no)
#   gpu100   B = 100 on one GPU (goal: under 10 s)
#   gpuG     B on G GPUs (GPU_COUNTS, default 2 .. GPUS) driven by one process, and
#   gpuG_mpi the same under mpiexec, G ranks of one GPU each (MPI_RANKS=0: not run): tables
#            equal to gpu100's; end-to-end speedups against gpu100 (goal for 4 GPUs: 3.5x)
#   (gpu, gpu100: CUDA_VISIBLE_DEVICES=0, since a process runs its replicates on every GPU
#   it sees)
# and the AUC, against the true skeleton, of gpu100's adjacency frequencies beside that of
# one plain run's p-values (1 - pMax; h5py or h5dump). Every configuration is bounded by
# `timeout`, so the script ends in a few minutes.
#
# Then bnlearn's ALARM, INSURANCE and HEPAR2 sampled at 1,000 rows (chi-square): B on the
# CPU and on one GPU (frequencies identical?) with the AUC of the frequencies; with CL=1,
# causal-learn's pc run serially on CL_B of the same resamples (bnlearn's boot.strength
# way), its time for B = 100 extrapolated; and `cudag mcmc --bootstrap` on ALARM (or a random
# 37-variable discrete network where ALARM is not read), on the CPU, one GPU and every GPU of
# one process.
#
# Usage: scripts/bench/bootstrap.sh [build-dir]
#   env: OUT=dir (logs, tables), B=100, CPU_B=10, CPU_LIMIT=300, GPU_LIMIT=300,
#        GPUS=(visible GPUs), MPIEXEC=mpiexec, RESAMPLE=bootstrap|half, ALPHA=0.01,
#        N=1643 M=850 (another shape), PYTHON=python3 (AUC; causal-learn for CL=1),
#        GPU_COUNTS="2 3 4", MPI_RANKS=1, NETS="alarm insurance hepar2" ("" for none), DREAM=0 (skip the DREAM5-sized set),
#        SHARED=../shared/data, MCMC_B=20, MCMC=0 (no mcmc runs), CL=1, CL_B=3,
#        CL_LIMIT=600, OLD=build-dir (B on one GPU also with that build's cudag, side by side)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cudag=$(realpath "$build/cudag")
out=${OUT:-$(mktemp -d)}/bootstrap
mkdir -p "$out"
b=${B:-100}
cpu_b=${CPU_B:-10}
cpu_limit=${CPU_LIMIT:-300}
gpu_limit=${GPU_LIMIT:-300}
resample=${RESAMPLE:-bootstrap}
alpha=${ALPHA:-0.01}
n=${N:-1643}
m=${M:-850}
py=${PYTHON:-python3}
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec}"  # a launcher with its options
if [[ -z ${GPUS:-} ]]; then
    GPUS=$( (nvidia-smi -L 2>/dev/null || true) | grep -c "^GPU" || true)
fi
export NCCL_NVLS_ENABLE=0
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
d=$(awk -v n="$n" 'BEGIN { printf "%.6g", 10 / (n - 1) }')
data=$out/dream.h5
truth=$out/dream.truth.tsv
"$cudag" simulate gaussian --overwrite --vars "$n" --samples "$m" --density "$d" --seed 1 --out "$data" --truth "$truth" -q
echo "data: n=$n m=$m d=$d; B=$b (CPU: $cpu_b), --resample $resample, alpha $alpha; $GPUS GPU(s)"

table=$out/table.tsv
printf 'config\tB\tseconds\tper_replicate_s\tB100_s\tidentical\n' >"$table"
# run NAME LIMIT B BACKEND [launcher...]: one bootstrap run; its time in the table.
run() {
    local name=$1 limit=$2 reps=$3 backend=$4
    shift 4
    local t0 rc=0 s
    t0=$(now)
    timeout "$limit" "$@" "${bin:-$cudag}" pc --data "$data" --alpha "$alpha" --backend "$backend" --bootstrap "$reps" \
        --resample "$resample" --seed 1 -v --out "$out/$name.h5" --format freq >"$out/$name.log" 2>&1 || rc=$?
    s=$(since "$t0")
    if [[ $rc != 0 ]]; then
        echo "$name: failed or over ${limit} s (exit $rc); see $out/$name.log, whose last lines are:"
        grep -v "replicate [0-9]* of" "$out/$name.log" | tail -n 4 | sed 's/^/  /'
        printf '%s\t%s\t>%s\t\t\t\n' "$name" "$reps" "$s" >>"$table"
        return 1
    fi
    local per b100
    per=$(awk -v s="$s" -v r="$reps" 'BEGIN { printf "%.4f", s / r }')
    b100=$(awk -v p="$per" 'BEGIN { printf "%.2f", 100 * p }')
    echo "$name: B=$reps in $s s ($per s a replicate; B=100 ~ $b100 s)"
    printf '%s\t%s\t%s\t%s\t%s\t' "$name" "$reps" "$s" "$per" "$b100" >>"$table"
}
same() { if cmp -s "$1" "$2"; then echo yes; else echo no; fi; }

if [[ ${DREAM:-1} != 0 ]]; then
    if run cpu "$cpu_limit" "$cpu_b" cpu; then echo "(reference)" >>"$table"; fi
    if [[ $GPUS -ge 1 ]]; then
        # One GPU: CUDA_VISIBLE_DEVICES=0 (a process runs its replicates on every GPU it sees).
        one=(env CUDA_VISIBLE_DEVICES=0)
        if run gpu "$gpu_limit" "$cpu_b" cuda "${one[@]}"; then
            ident=$( [[ -f $out/cpu.freq.tsv ]] && same "$out/cpu.freq.tsv" "$out/gpu.freq.tsv" || echo "no CPU run")
            echo "gpu vs cpu, B=$cpu_b: frequencies identical: $ident"
            echo "$ident (vs cpu)" >>"$table"
        fi
        if run gpu100 "$gpu_limit" "$b" cuda "${one[@]}"; then echo "(reference)" >>"$table"; fi
        if [[ -n ${OLD:-} ]] && bin=$OLD/cudag run gpu100_old "$gpu_limit" "$b" cuda "${one[@]}"; then
            ident=$(same "$out/gpu100.freq.tsv" "$out/gpu100_old.freq.tsv")
            echo "B=$b on one GPU, $OLD's cudag against this build's: frequencies identical: $ident"
            echo "$ident (vs gpu100)" >>"$table"
        fi
        # G GPUs: one process driving them all (GPUs 0 .. G-1 visible), and G ranks under
        # mpiexec, one GPU each (when MPI_RANKS=1, the default); speedups against gpu100.
        speedup() {
            [[ -f $out/$1.freq.tsv && -f $out/gpu100.freq.tsv ]] || return 0
            local ident
            ident=$(same "$out/gpu100.freq.tsv" "$out/$1.freq.tsv")
            echo "$1 vs gpu100, B=$b: frequencies identical: $ident; $(awk -v a="$(awk -F'\t' '$1 == "gpu100" { print $3 }' "$table")" \
                -v c="$(awk -F'\t' -v n="$1" '$1 == n { print $3 }' "$table")" 'BEGIN { printf "%.2fx one GPU end to end", a / c }')"
            echo "$ident (vs gpu100)" >>"$table"
        }
        for g in ${GPU_COUNTS:-$(seq 2 "$GPUS")}; do
            [[ $g -le $GPUS ]] || continue
            if run "gpu${g}" "$gpu_limit" "$b" cuda env CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((g - 1)))"; then
                speedup "gpu${g}"
            fi
            if [[ ${MPI_RANKS:-1} != 0 ]] && command -v "${mpiexec[0]}" >/dev/null &&
                run "gpu${g}_mpi" "$gpu_limit" "$b" cuda "${mpiexec[@]}" -n "$g" --bind-to none \
                    -x CUDA_VISIBLE_DEVICES="$(seq -s, 0 $((g - 1)))"; then
                speedup "gpu${g}_mpi"
            fi
        done
    fi
fi

# bnlearn networks at 1,000 rows (chi-square): B on the CPU and on one GPU, identical?
one_gpu=(CUDA_VISIBLE_DEVICES=0)  # a process runs its replicates on every GPU it sees
for net in ${NETS-alarm insurance hepar2}; do
    bif=${SHARED:-../shared/data}/bnlearn/$net.bif.gz
    [[ -f $bif ]] || { echo "$net: no $bif, skipped"; continue; }
    zcat "$bif" >"$out/$net.bif"
    "$cudag" simulate bif --overwrite --bif "$out/$net.bif" --samples 1000 --seed 1 --out "$out/$net.csv" --truth "$out/$net.truth.tsv" -q
    for backend in cpu cuda; do
        [[ $backend == cuda && $GPUS -lt 1 ]] && continue
        t0=$(now)
        if timeout "$cpu_limit" env ${one_gpu[@]+"${one_gpu[@]}"} "$cudag" pc --data "$out/$net.csv" --backend "$backend" --bootstrap "$b" \
            --resample "$resample" --seed 1 -q --out "$out/$net.$backend.h5" --format freq; then
            s=$(since "$t0")
            echo "$net ($backend): B=$b in $s s"
            printf '%s\t%s\t%s\t\t\t%s\n' "$net-$backend" "$b" "$s" \
                "$([[ $backend == cuda ]] && same "$out/$net.cpu.freq.tsv" "$out/$net.cuda.freq.tsv" || echo '(reference)')" >>"$table"
        else
            echo "$net ($backend): failed or over $cpu_limit s"
        fi
    done
    if [[ -f $out/$net.cpu.freq.tsv ]]; then
        vars=$(head -1 "$out/$net.csv" | tr ',' '\n' | wc -l)
        "$cudag" pc --data "$out/$net.csv" --backend cpu -q --out "$out/$net.single.h5"
        echo "$net: AUC of adjacency frequencies $("$py" scripts/bench/edge_auc.py "$out/$net.truth.tsv" freq \
            "$out/$net.cpu.freq.tsv" "$vars"), of one run's p-values $("$py" scripts/bench/edge_auc.py \
            "$out/$net.truth.tsv" pmax "$out/$net.single.h5" 2>/dev/null || echo n/a)"
    fi
done

# cudag mcmc --bootstrap (BDeu, MCMC_B replicates of 10,000 iterations) on ALARM, or without
# it on a random 37-variable discrete network (1,000 rows): the CPU, one GPU and every GPU
# of one process (a replicate at a time on each), frequencies identical?
mcmc_data=$out/alarm.csv
if [[ ! -f $mcmc_data && ${MCMC:-1} != 0 ]]; then
    mcmc_data=$out/discrete37.csv
    "$cudag" simulate discrete --overwrite --vars 37 --samples 1000 --density 0.1 --states 3 --max-parents 3 --seed 1 \
        --out "$mcmc_data" -q
fi
if [[ -f $mcmc_data && ${MCMC:-1} != 0 ]]; then
    net=$(basename "$mcmc_data" .csv)
    for config in cpu gpu1 gpus; do
        launch=()
        backend=cuda
        case $config in
        cpu) backend=cpu ;;
        gpu1) [[ $GPUS -ge 1 ]] || continue; launch=(env CUDA_VISIBLE_DEVICES=0) ;;
        gpus) [[ $GPUS -ge 2 ]] || continue ;;
        esac
        t0=$(now)
        if timeout "$cpu_limit" ${launch[@]+"${launch[@]}"} "$cudag" mcmc --data "$mcmc_data" --score bdeu --space all \
            --backend "$backend" --bootstrap "${MCMC_B:-20}" --seed 1 -q --out "$out/$net.mcmc.$config.h5" \
            --format freq; then
            s=$(since "$t0")
            echo "$net mcmc ($config): B=${MCMC_B:-20} in $s s"
            printf '%s\t%s\t%s\t\t\t%s\n' "$net-mcmc-$config" "${MCMC_B:-20}" "$s" \
                "$([[ $config != cpu && -f $out/$net.mcmc.cpu.freq.tsv ]] && same "$out/$net.mcmc.cpu.freq.tsv" \
                    "$out/$net.mcmc.$config.freq.tsv" || echo '(reference)')" >>"$table"
        else
            echo "$net mcmc ($config): failed or over $cpu_limit s"
        fi
    done
    for config in gpu1 gpus; do
        [[ -f $out/$net.mcmc.$config.freq.tsv && -f $out/$net.mcmc.cpu.freq.tsv ]] &&
            echo "$net mcmc: CPU and $config frequencies identical: $(same "$out/$net.mcmc.cpu.freq.tsv" \
                "$out/$net.mcmc.$config.freq.tsv")"
    done
fi

# bnlearn-style serial bootstrapping of causal-learn's PC (CL=1; causal-learn installed in
# PYTHON): CL_B replicates on the resamples cudag writes (--write-resample), each bounded by
# CL_LIMIT s; the time for B = 100 extrapolated.
if [[ -n ${CL:-} ]]; then
    cl_b=${CL_B:-3}
    cat >"$out/cl_pc.py" <<'PY'
import sys, time
import numpy as np
from causallearn.search.ConstraintBased.PC import pc
path, test, alpha = sys.argv[1], sys.argv[2], float(sys.argv[3])
if test == "chisq":
    import pandas as pd
    data = pd.read_csv(path).apply(lambda c: c.astype("category").cat.codes).to_numpy()
else:
    data = np.loadtxt(path, delimiter=",", skiprows=1)
t0 = time.perf_counter()
pc(data, alpha, test, True, 0, -1, show_progress=False)
print(f"{time.perf_counter() - t0:.3f}")
PY
    for set in dream ${NETS-alarm insurance hepar2}; do
        src=$data test=fisherz
        [[ $set != dream ]] && src=$out/$set.csv test=chisq
        [[ -f $src ]] || continue
        total=0
        for ((r = 0; r < cl_b; r++)); do
            "$cudag" pc --data "$src" --write-resample "$out/cl_rep.csv" --replicate "$r" --resample "$resample" \
                --seed 1 -q
            t=$(timeout "${CL_LIMIT:-600}" "$py" "$out/cl_pc.py" "$out/cl_rep.csv" "$test" "$alpha") || { total=; break; }
            total=$(awk -v a="$total" -v b="$t" 'BEGIN { print a + b }')
        done
        if [[ -n $total ]]; then
            echo "causal-learn pc ($test) on $set: $cl_b replicates in $total s; B=100 ~ $(awk -v t="$total" -v n="$cl_b" 'BEGIN { printf "%.1f", 100 * t / n }') s"
        else
            echo "causal-learn pc ($test) on $set: a replicate failed or took over ${CL_LIMIT:-600} s"
        fi
    done
fi

if [[ ${DREAM:-1} != 0 ]]; then
    # Edge confidence against the truth: the frequencies' AUC beside one run's p-values'.
    best=$out/gpu100.freq.tsv
    [[ -f $best ]] || best=$out/cpu.freq.tsv
    if [[ -f $best ]]; then
        echo "AUC of adjacency frequencies ($(basename "$best")): $("$py" scripts/bench/edge_auc.py "$truth" freq "$best" "$n")"
    fi
    backend=cpu
    [[ $GPUS -ge 1 ]] && backend=cuda
    if timeout "$gpu_limit" "$cudag" pc --data "$data" --alpha "$alpha" --backend "$backend" -q --out "$out/single.h5"; then
        echo "AUC of one run's p-values (1 - pMax): $("$py" scripts/bench/edge_auc.py "$truth" pmax "$out/single.h5" 2>/dev/null || echo 'n/a (needs h5py or h5dump)')"
    fi
fi
echo "table: $table"
tr '\t' '|' <"$table"  # (no `column` on every machine)
