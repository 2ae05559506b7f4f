#!/bin/sh
# The switches' buffer occupancy of every run of a sweep that records a
# time series of every switch port (fig02a-buffer-scaled.toml): at each
# sample, each switch's queues summed (its shared buffer's use), then the
# points of that occupancy's CDF over every switch and sample while flows
# run: mean, median, 90th, 99th, 99.9th percentile and maximum, in kB.
#
#   experiments/flowsail/buffer_cdf.sh runs/flowsail-fig02a-scaled
set -eu
printf '%-28s %9s %9s %9s %9s %9s %9s\n' run mean_kB p50_kB p90_kB p99_kB p999_kB max_kB
for d in "$1"/*/; do
  f="$d/timeseries.csv"
  [ -f "$f" ] || continue
  awk -F, '$5 == "queue_bytes" { s[$1 "," $2] += $6 } END { for (k in s) print s[k] }' "$f" |
    sort -n |
    awk -v run="$(basename "$d")" '
      { v[NR] = $1; t += $1 }
      END {
        if (NR == 0) exit
        q = "p50 p90 p99 p999"
        printf "%-28s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", run, t / NR / 1e3,
          v[int(NR * 0.5) + 1] / 1e3, v[int(NR * 0.9) + 1] / 1e3,
          v[int(NR * 0.99) + 1] / 1e3, v[int(NR * 0.999) + 1] / 1e3, v[NR] / 1e3
      }'
done
