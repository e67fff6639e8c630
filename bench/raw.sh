#!/usr/bin/env bash
# Raw-value matrix profile (normalized => false, issue 11 item 4) next to the
# z-normalised one: a random walk of n = 2^SIZES (default 2^17 and 2^20),
# m = 100 and 1024, ts_matrix_profile_arrays through SQL on the GPU (the CPU
# when there is none; then only n = 2^17 unless SIZES says otherwise).
# pairs/s counts n^2/2 pairs, as bench/matrix_profile.sh; the last column is
# the raw profile's kernel rate over the z-normalised one's (the issue asks
# for at least 0.9 at n = 2^20 on the GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
echo
echo "| n | m | normalized | backend | end-to-end ms | kernel ms | pairs/s (end to end) | pairs/s (kernels) | raw / z (kernels) |"
echo "|---|---|---|---|---|---|---|---|---|"
default_sizes="17 20"; [ "$HAS_GPU" = t ] || default_sizes="17"
for e in ${SIZES:-$default_sizes}; do
  n=$((1 << e))
  q -c "DROP TABLE IF EXISTS bench_raw; SELECT setseed(0.5);
        CREATE TABLE bench_raw AS SELECT array_agg(s ORDER BY i) AS a FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, $n) i) w" >/dev/null
  for m in 100 1024; do
    reps=3; [ "$backend" = cpu ] && reps=1
    zker=""
    for norm in true false; do
      sql="SELECT cardinality(distance) FROM ts_matrix_profile_arrays((SELECT a FROM bench_raw), $m, normalized => $norm)"
      read -r ms dev ker <<<"$(run_timed "$backend" $reps "$sql")"
      [ "$norm" = true ] && zker=$ker
      awk -v n=$n -v m=$m -v e=$e -v norm=$norm -v b=$backend -v ms=$ms -v ker=$ker -v zker=$zker 'BEGIN {
        p = n * n / 2.0;
        pk = (ker == "-") ? "-" : sprintf("%.3g", p / (ker / 1000));
        ratio = (norm == "false" && ker != "-" && zker != "-") ? sprintf("%.3f", zker / ker) : "-";
        printf "| 2^%d | %d | %s | %s | %s | %s | %.3g | %s | %s |\n", e, m, norm, b, ms, ker, p / (ms / 1000), pk, ratio }'
    done
  done
done
q -c "DROP TABLE IF EXISTS bench_raw" >/dev/null
