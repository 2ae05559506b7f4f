#!/bin/bash
# Scaling study: CPU time vs packet-hops over load, fat-tree size and simulated time.
# (docs/performance.md, "Scaling"). DCQCN + PFC + ECN, WebSearch Poisson
# arrivals, seed 1; CPU = user + sys of the whole process, minimum of REPS
# runs. Writes DIR/results.csv (and the configs and run outputs in DIR).
# usage: scaling.sh BIN [REPS] [DIR]
BIN=$(realpath "$1"); REPS=${2:-3}; DIR=${3:-scaling-runs}
mkdir -p "$DIR" && cd "$DIR" || exit 1
mk() { # name topo_block load duration
cat > $1.toml <<T
[run]
name = "$1"
seed = 1
[topology]
$2
[workload]
kind = "poisson"
load = $3
cdf = "websearch"
duration = "$4"
[cc]
kind = "dcqcn"
[pfc]
enabled = true
mode = "until_resume"
[ecn]
enabled = true
T
}
ft() { printf 'kind = "fat_tree"\nk = %s\nhost_rate = "100Gbps"\nfabric_rate = "400Gbps"\ndelay = "1us"' $1; }
echo "study,name,k,hosts,load,duration_ms,events,packet_hops,cpu_s" > results.csv
runone() { # study name k hosts load dur
  best=""
  for r in $(seq $REPS); do
    rm -rf out_$2
    /usr/bin/time -o tm.txt -f "%U %S" $BIN run $2.toml --out out_$2 -q > /dev/null 2>/dev/null; c=$(tail -1 tm.txt | awk "{print \$1+\$2}")
    if [ -z "$best" ] || awk "BEGIN{exit !($c < $best)}"; then best=$c; fi
  done
  ev=$(python3 -c "import json;e=json.load(open('out_$2/summary.json'))['engine'];print(e['events'],e['packet_hops'])")
  echo "$1,$2,$3,$4,$5,$6,${ev% *},${ev#* },$best" | tee -a results.csv
}
for l in 0.1 0.3 0.5 0.7; do mk load_$l "$(ft 8)" $l 0.5ms; runone load load_$l 8 128 $l 0.5; done
for k in 4 8 12 16; do mk size_$k "$(ft $k)" 0.3 0.2ms; runone size size_$k $k $((k*k*k/4)) 0.3 0.2; done
mk size_peer 'kind = "peer_fat_tree"' 0.3 0.2ms; runone size size_peer peer 320 0.3 0.2
for d in 0.25 0.5 1 2; do mk time_$d "$(ft 8)" 0.3 ${d}ms; runone time time_$d 8 128 0.3 $d; done
