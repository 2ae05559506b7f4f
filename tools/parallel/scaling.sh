#!/usr/bin/env bash
# Wall and CPU time of one rdmasim run on 1, 2, ... threads, several runs
# each in turn, with what limits the speed-up (summary.json's engine
# section: windows, barrier wait, imbalance, frames across partitions).
#
#   tools/parallel/scaling.sh BIN PEER_DIR [RUNS] [THREADS...]
#
# PEER_DIR holds the HPCC simulator's reference inputs (fat.txt,
# ws30_5ms.txt, ws30_5ms_dcqcn.cfg, trace_none.txt); the run is
# `rdmasim hpcc ws30_5ms_dcqcn.cfg --threads N` from a copy of it.
# Prints one line per run: threads, wall s, CPU s, events, windows,
# windows run in two phases, frames across, longest barrier wait s,
# imbalance (busiest partition's events over the mean).
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
peer="$(cd "$2" && pwd)"
runs="${3:-3}"
shift $(( $# < 3 ? $# : 3 ))
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$peer"/*.txt "$peer/ws30_5ms_dcqcn.cfg" "$work/"
cd "$work"
mkdir -p out
echo "threads wall_s cpu_s events windows end_windows cut_frames barrier_wait_s imbalance"
# One warm-up run, then the thread counts in turn.
"$bin" hpcc ws30_5ms_dcqcn.cfg -q --threads 1 > /dev/null
for _ in $(seq "$runs"); do
    for t in "${threads[@]}"; do
        "$bin" hpcc ws30_5ms_dcqcn.cfg -q --threads "$t" --out "run-$t" > /dev/null
        python3 - "run-$t/summary.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["engine"]
print(e["threads"], round(e["wall_s"], 2), round(e["cpu_s"], 2), e["events"], e["windows"],
      e["end_windows"], e["cut_frames"], round(e["barrier_wait_s"], 2), round(e["imbalance"], 3))
PY
    done
done
