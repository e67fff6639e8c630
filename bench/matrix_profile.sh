#!/usr/bin/env bash
# Matrix profile throughput (issue: discords): n = 2^17 and 2^20, m = 100 and
# 1024, float64, through SQL (array input) on the GPU (and on the CPU for the
# smaller n): ts_matrix_profile (a row per window), ts_matrix_profile_arrays
# (the profile as two arrays) and ts_discords (top 1, by way of the same
# profile), for the SQL overhead of each way out.  pairs/s counts n^2/2
# pairs, as SCAMP's figures do.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
echo
echo "| n | m | function | backend | end-to-end ms | device ms | kernel ms | pairs/s (end to end) | pairs/s (kernels) | overhead (1 - device/end-to-end) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for e in ${SIZES:-17 18 20}; do
  n=$((1 << e))
  q -c "DROP TABLE IF EXISTS bench_mp; SELECT setseed(0.5);
        CREATE TABLE bench_mp AS SELECT array_agg(s ORDER BY i) AS a FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, $n) i) w" >/dev/null
  for m in 100 1024; do
    backends=(cpu); [ "$HAS_GPU" = t ] && backends=(gpu); [ "$HAS_GPU" = t ] && [ "$e" -le 17 ] && [ -z "${NO_CPU:-}" ] && backends=(gpu cpu)
    for b in "${backends[@]}"; do
      for f in ts_matrix_profile ts_matrix_profile_arrays ts_discords; do
        [ "$b" = cpu ] && [ "$f" != ts_matrix_profile ] && continue
        reps=3; [ "$b" = cpu ] && reps=1
        args="(SELECT a FROM bench_mp), $m"; [ "$f" = ts_discords ] && args="$args, 1"
        sql="SELECT count(*) FROM $f($args)"
        [ "$f" = ts_matrix_profile_arrays ] && sql="SELECT cardinality(distance) FROM $f($args)"
        read -r ms dev ker <<<"$(run_timed "$b" $reps "$sql")"
        awk -v n=$n -v m=$m -v f=$f -v b=$b -v ms=$ms -v dev=$dev -v ker=$ker -v e=$e 'BEGIN {
          p = n * n / 2.0;
          pe = p / (ms / 1000); pk = (ker == "-") ? "-" : sprintf("%.3g", p / (ker / 1000));
          ov = (dev == "-") ? "-" : sprintf("%.1f%%", 100 * (1 - dev / ms));
          printf "| 2^%d | %d | %s | %s | %s | %s | %s | %.3g | %s | %s |\n", e, m, f, b, ms, dev, ker, pe, pk, ov }'
      done
    done
  done
  # PostgreSQL alone producing one row per window: the floor under ts_matrix_profile's overhead
  read -r ms _ _ <<<"$(run_timed cpu 3 "SELECT count(*) FROM generate_series(1, $n)")"
  echo "| 2^$e | - | generate_series($n) (no tsmine) | - | $ms | - | - | - | - | - |"
done
q -c "DROP TABLE IF EXISTS bench_mp" >/dev/null
