#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ctrl-C in a long cudag::pc call (CALL=pc, the default) or cudag::boot.strength (CALL=boot, 400
# replicates of pc.stable on worker threads): an R session runs the call, gets SIGINT DELAY seconds
# (default 1) into it and must end the call with an R error (caught, the session goes on); prints
# the latency from the signal to the error. cudag looks at R's interrupt between levels and, every
# ~50 ms, inside them and while a bootstrap waits for its replicates (measured, never asserted).
# Needs the package installed (scripts/r-check.sh: R_LIBS=build-r/Rlib).
set -euo pipefail
cd "$(dirname "$0")/.."
export R_LIBS="$PWD/${BUILD:-build-r}/Rlib${R_LIBS:+:$R_LIBS}"
out=$(mktemp)
script=$(mktemp --suffix=.R)
# An interactive session, as at the console (a non-interactive one halts on any interrupt).
cat > "$script" <<'RCODE'
call <- Sys.getenv("CALL", "pc")
library(cudag); set.seed(1); n <- 2000; p <- if (call == "pc") 400 else 200
x <- matrix(rnorm(n * p), n, p)
for (j in 2:p) { pa <- sample(seq_len(j - 1), min(j - 1, 6)); x[, j] <- x[, j] + x[, pa, drop = FALSE] %*% runif(length(pa), 0.2, 0.5) }
cat("start:", sprintf("%.3f", as.numeric(Sys.time())), "\n")
r <- tryCatch(switch(call,
                     pc = cudag::pc(list(data = x), "gaussCItest", alpha = 0.05, p = p, threads = 2, verbose = TRUE),
                     boot = cudag::boot.strength(as.data.frame(x), R = 400, algorithm = "pc.stable",
                                                 algorithm.args = list(threads = 2))),
              error = function(e) conditionMessage(e),
              interrupt = function(e) "R's own interrupt (the signal came while R code ran)")
cat("after:", sprintf("%.3f", as.numeric(Sys.time())), if (is.character(r)) r else "finished", "\n")
cat("session alive\n")
RCODE
R --no-save --no-restore --interactive --quiet < "$script" > "$out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q "^start:" "$out" && break; sleep 0.1; done
sleep "${DELAY:-1}"
sent=$(date +%s.%N)
kill -INT "$pid" 2>/dev/null || true
wait "$pid" || true
grep -E "^(start|after):|level|interrupted" "$out" || true
after=$(sed -n 's/^after: \([0-9.]*\).*/\1/p' "$out")
if grep -q "interrupted by the user" "$out" && grep -q "session alive" "$out"; then
    awk -v a="$after" -v s="$sent" 'BEGIN { printf "r-interrupt: R error %.3f s after SIGINT, session alive\n", a - s }'
else
    echo "r-interrupt: the call was not interrupted (it finished before the signal, or failed)"
    tail -6 "$out"; exit 1
fi
rm -f "$out" "$script"
