#!/usr/bin/env bash
# Inputs of the side-by-side runs against the HPCC ns-3 simulator (the
# peer) in docs/validation.md, "Side by side with the peer": flow files
# made by rdmasim's own generator (or cut from the peer's reference flow
# file) and peer configs derived from the reference configs, so that no
# large file needs to be kept.
#
#   tools/peer-compare/make-inputs.sh RDMASIM REF_DIR OUT_DIR
#
# RDMASIM is an rdmasim binary; REF_DIR holds the peer's reference inputs
# (fat.txt, trace_none.txt, ws30_5ms.txt, ws30_5ms_dcqcn.cfg,
# ws30_5ms_hp.cfg; docs/performance.md, "The peer's reference run").
# OUT_DIR gets the flow files and configs; run each from there with
#
#   rdmasim compare CONFIG --peer PATH/TO/third
#
# Cases (all on the peer's 320-host fat tree, stop at 2.2 s):
#   ws30_1ms_{dcqcn,hp,timely,dctcp,pint}.cfg  WebSearch 30%, the first 1 ms
#                                              of the reference flow file
#   fb30_1ms_dcqcn.cfg                         FB_Hadoop 30%, 1 ms (seed 1)
#   incast_dcqcn.cfg                           WebSearch 10% for 1 ms and a
#                                              32-to-1 incast of 500 KB flows
#   ws50_2ms_buf2_dcqcn.cfg                    WebSearch 50%, 2 ms (seed 1),
#                                              BUFFER_SIZE 2: heavy PFC
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
ref="$(cd "$2" && pwd)"
mkdir -p "$3"
cd "$3"
cp "$ref/fat.txt" "$ref/trace_none.txt" .

# rdmasim's generator writes the flows into flows.csv of a run stopped
# before any of them ends; this turns them into a peer flow file.
gen() { # NAME WORKLOAD_TOML
    local dir
    dir="$(mktemp -d)"
    cat > "$dir/gen.toml" <<TOML
[run]
name = "$1"
seed = 1
stop = "2.0001s"
[topology]
kind = "peer_fat_tree"
$2
[cc]
kind = "dcqcn"
TOML
    "$bin" run "$dir/gen.toml" --out "$dir/run" -q > /dev/null 2>&1 || test $? -eq 1
    sort -t, -k5,5n -k1,1n <(tail -n +2 "$dir/run/flows.csv") |
        awk -F, '{ n++; l[n] = sprintf("%d %d %d %d %d %d.%09d", $2, $3, $10, $12, $4, int($5 / 1e9), $5 % 1000000000) }
                 END { print n; for (i = 1; i <= n; i++) print l[i] }' > "$1.txt"
    rm -rf "$dir"
}

# The first 1 ms of the reference flows (they start at 2.0 s).
awk 'NR > 1 && $6 < 2.001 { n++; l[n] = $0 } END { print n; for (i = 1; i <= n; i++) print l[i] }' \
    "$ref/ws30_5ms.txt" > ws30_1ms.txt
gen fb30_1ms '[workload]
kind = "poisson"
load = 0.3
duration = "1ms"
cdf = "fb_hadoop"
start = "2s"'
gen incast '[workload]
kind = "poisson"
load = 0.1
duration = "1ms"
cdf = "websearch"
start = "2s"
[[workload.extra]]
kind = "incast"
receiver = 0
senders_count = 32
size = "500KB"
start = "2.0005s"'
gen ws50_2ms '[workload]
kind = "poisson"
load = 0.5
duration = "2ms"
cdf = "websearch"
start = "2s"'

# Configs: the reference ones with the flow file and output names replaced.
cfg() { # FROM NAME FLOWS [SED...]
    local from="$1" name="$2" flows="$3"
    shift 3
    sed -e "s/^FLOW_FILE .*/FLOW_FILE $flows/" \
        -e "s#out/ws30_5ms_[a-z]*_#out/${name}_#" "$@" "$ref/$from" > "$name.cfg"
}
cfg ws30_5ms_dcqcn.cfg ws30_1ms_dcqcn ws30_1ms.txt
cfg ws30_5ms_hp.cfg ws30_1ms_hp ws30_1ms.txt
# TIMELY and DCTCP as the peer's run.py sets them (docs/validation.md).
cfg ws30_5ms_dcqcn.cfg ws30_1ms_timely ws30_1ms.txt \
    -e 's/^CC_MODE 1/CC_MODE 7/; s/^RATE_AI .*/RATE_AI 100Mb\/s/; s/^RATE_HAI .*/RATE_HAI 500Mb\/s/'
cfg ws30_5ms_dcqcn.cfg ws30_1ms_dctcp ws30_1ms.txt \
    -e 's/^CC_MODE 1/CC_MODE 8/; s/^EWMA_GAIN .*/EWMA_GAIN 0.0625/; s/^DCTCP_RATE_AI .*/DCTCP_RATE_AI 615Mb\/s/' \
    -e 's/^HAS_WIN 0/HAS_WIN 1/; s/^VAR_WIN 0/VAR_WIN 1/; s/^ACK_HIGH_PRIO 1/ACK_HIGH_PRIO 0/' \
    -e 's/^KMAX_MAP .*/KMAX_MAP 2 100000000000 300 400000000000 1200/' \
    -e 's/^KMIN_MAP .*/KMIN_MAP 2 100000000000 300 400000000000 1200/' \
    -e 's/^PMAX_MAP .*/PMAX_MAP 2 100000000000 1.0 400000000000 1.0/'
cfg ws30_5ms_hp.cfg ws30_1ms_pint ws30_1ms.txt -e 's/^CC_MODE 3/CC_MODE 10/; s/^PINT_LOG_BASE .*/PINT_LOG_BASE 1.05/'
cfg ws30_5ms_dcqcn.cfg fb30_1ms_dcqcn fb30_1ms.txt
cfg ws30_5ms_dcqcn.cfg incast_dcqcn incast.txt
cfg ws30_5ms_dcqcn.cfg ws50_2ms_buf2_dcqcn ws50_2ms.txt -e 's/^BUFFER_SIZE .*/BUFFER_SIZE 2/'
mkdir -p out
ls ./*.cfg
