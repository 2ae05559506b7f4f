#!/bin/sh
# The average switch queue of every run of a sweep that records a time
# series (fig16-thresholds-scaled.toml): the mean of queue_bytes over every
# sample of every switch port while any flow is still running, and over the
# samples where the port held something ("busy").
#
#   experiments/flowsail/queue_avg.sh runs/flowsail-fig16-scaled
set -eu
printf '%-40s %14s %14s\n' run avg_queue_B busy_avg_B
for d in "$1"/*/; do
  f="$d/timeseries.csv"
  [ -f "$f" ] || continue
  awk -F, -v run="$(basename "$d")" '
    $5 == "queue_bytes" { n++; s += $6; if ($6 > 0) { b++; bs += $6 } }
    END { printf "%-40s %14.0f %14.0f\n", run, (n ? s / n : 0), (b ? bs / b : 0) }' "$f"
done
