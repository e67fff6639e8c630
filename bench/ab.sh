#!/usr/bin/env bash
# The AB-join's throughput next to the self-join's (issue #11: pairs/s within
# 10% at n = 2^20), through SQL (array input), m = 100 and 1024, on the GPU
# (on the CPU where there is none, at a smaller n): ts_matrix_profile (the
# self-join, n^2/2 pairs) and ts_matrix_profile_ab of two series of n values
# (n^2 pairs) and of n against n/4 (n^2/4 pairs: A longer than B) and n/4
# against n (B longer); with raw values (normalized => false) the self-join
# and the AB-join of n against n.  pairs/s (kernels) is the figure to compare: both
# return one row per window of the first series, whose cost is in the
# end-to-end time.
# usage: bench/ab.sh            (SIZES="20" on a GPU, "15" on the CPU; M="100 1024")
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
echo
default_sizes=15; [ "$HAS_GPU" = t ] && default_sizes=20
echo "| n | m | call | backend | pairs | end-to-end ms | device ms | kernel ms | pairs/s (end to end) | pairs/s (kernels) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for e in ${SIZES:-$default_sizes}; do
  n=$((1 << e)); q4=$((n / 4))
  # two random walks of n values
  q -c "DROP TABLE IF EXISTS bench_ab; SELECT setseed(0.5);
        CREATE TEMP TABLE w0 AS SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 2 * $n) i;
        CREATE TABLE bench_ab AS SELECT (SELECT array_agg(s ORDER BY i) FROM w0 WHERE i <= $n) AS a,
                                        (SELECT array_agg(s ORDER BY i) FROM w0 WHERE i > $n) AS b" >/dev/null
  for m in ${M:-100 1024}; do
    w=$((n - m + 1)); w4=$((q4 - m + 1))
    # call | SQL | pairs
    calls=("self-join, n|SELECT count(*) FROM ts_matrix_profile((SELECT a FROM bench_ab), $m)|$w * ($w - 1) / 2"
           "AB, n against n|SELECT count(*) FROM ts_matrix_profile_ab((SELECT a FROM bench_ab), (SELECT b FROM bench_ab), $m)|$w * $w"
           "AB, n against n/4|SELECT count(*) FROM ts_matrix_profile_ab((SELECT a FROM bench_ab), (SELECT b[1:$q4] FROM bench_ab), $m)|$w * $w4"
           "AB, n/4 against n|SELECT count(*) FROM ts_matrix_profile_ab((SELECT a[1:$q4] FROM bench_ab), (SELECT b FROM bench_ab), $m)|$w4 * $w"
           "raw self-join, n|SELECT count(*) FROM ts_matrix_profile((SELECT a FROM bench_ab), $m, normalized => false)|$w * ($w - 1) / 2"
           "raw AB, n against n|SELECT count(*) FROM ts_matrix_profile_ab((SELECT a FROM bench_ab), (SELECT b FROM bench_ab), $m, normalized => false)|$w * $w")
    for c in "${calls[@]}"; do
      IFS='|' read -r what sql pairs <<<"$c"
      reps=3; [ "$backend" = cpu ] && reps=1
      read -r ms dev ker <<<"$(run_timed "$backend" $reps "$sql")"
      awk -v e=$e -v m=$m -v what="$what" -v b=$backend -v ms=$ms -v dev=$dev -v ker=$ker -v p="$(( pairs ))" 'BEGIN {
        pe = p / (ms / 1000); pk = (ker == "-") ? "-" : sprintf("%.4g", p / (ker / 1000));
        printf "| 2^%d | %d | %s | %s | %.4g | %s | %s | %s | %.4g | %s |\n", e, m, what, b, p, ms, dev, ker, pe, pk }'
    done
  done
done
q -c "DROP TABLE IF EXISTS bench_ab" >/dev/null
