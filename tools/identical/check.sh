#!/usr/bin/env bash
# Byte-identity check for refactors: run a fixed set of experiments with one
# rdmasim binary and write a digest of every output file, so that two
# binaries (before and after a change) can be compared file by file.
#
#   tools/identical/check.sh BIN OUT [PEER_DIR]
#   diff OUT_BEFORE/digests.txt OUT_AFTER/digests.txt
#
# BIN is an rdmasim binary; OUT a directory for the runs (emptied first).
# PEER_DIR, if given, holds the HPCC ns-3 simulator's reference inputs
# (fat.txt, ws30_5ms.txt, ws30_5ms_dcqcn.cfg, ws30_5ms_hp.cfg,
# trace_none.txt): both configs then run through `rdmasim hpcc`, and
# `rdmasim analyze` reads the DCQCN run.
#
# Timing fields (summary.json's "engine" object, index.csv's cpu/wall
# columns, report.md's speed lines) change from run to run and are left
# out of the digests; every other byte counts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="$2"
peer="${3:-}"
rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

for cfg in incast-pfc swing bifrost irn-loss cbfc quanta-failure; do
    "$bin" run "$here/$cfg.toml" --out "$out/$cfg" -q > "$out/$cfg.stdout"
done
"$bin" sweep "$here/sweep-cc.toml" --out "$out/sweep-cc" -q -j 2 > /dev/null
(cd "$out" && "$bin" analyze incast-pfc quanta-failure -o analyze.csv > analyze.stdout)
"$bin" buffer --help > /dev/null

if [ -n "$peer" ]; then
    peer="$(cd "$peer" && pwd)"
    for cfg in ws30_5ms_dcqcn ws30_5ms_hp; do
        mkdir -p "$out/peer-$cfg"
        # The peer's configs name their inputs relative to their folder and
        # write into out/ there: run from a copy.
        cp "$peer"/*.txt "$peer/$cfg.cfg" "$out/peer-$cfg/"
        (cd "$out/peer-$cfg" && mkdir -p out && "$bin" hpcc "$cfg.cfg" > stdout.txt)
    done
    (cd "$out" && "$bin" analyze peer-ws30_5ms_dcqcn/out/ws30_5ms_dcqcn_fct.txt > analyze-peer.stdout)
fi

# Digest every file, with the timing fields removed.
cd "$out"
strip() {
    case "$1" in
        *summary.json)
            # The "engine" object is last; drop it and the comma before it.
            sed -e '/"engine": {/,/}/d' "$1" ;;
        *.stdout | */stdout.txt)
            grep -v -E '^(simulated|output:|run [0-9]+/|sweep:)' "$1" | sed -E 's/[0-9.]+ (s|ms)\b/T/g' ;;
        *index.csv)
            # wall_s is the next-to-last column.
            sed -E 's/,[0-9.e+-]+,([^,]*)$/,wall,\1/' "$1" ;;
        *report.md)
            grep -v -E '(CPU|cpu|wall|events/s|RSS|^Written by)' "$1" ;;
        *)
            cat "$1" ;;
    esac
}
find . -type f ! -name digests.txt ! -name sweep.log | LC_ALL=C sort | while read -r f; do
    printf '%s  %s\n' "$(strip "$f" | sha256sum | cut -c1-16)" "$f"
done > digests.txt
echo "$(wc -l < digests.txt) files digested in $out/digests.txt"
