#!/usr/bin/env bash
# Gaps (issue #11 item 2): the matrix profile of a random walk of n = 2^20
# values (SIZES: exponents), m = 100, without gaps and with a few per cent of
# its values NULL (scattered at random, 2%; in runs of 50, 3%), through SQL
# (ts_matrix_profile_arrays, array input), on the GPU where there is one (else
# the CPU).  The target: a series with gaps under 5% slower than the same
# series without them (ratio < 1.05); the gap-free series runs the code it ran
# before gaps existed.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
echo
echo "| n | m | series | windows with a gap | backend | end-to-end ms | device ms | kernel ms | ratio to no gaps (end to end) | ratio (kernels) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
m=${M:-100}
for e in ${SIZES:-20}; do
  n=$((1 << e))
  q -c "DROP TABLE IF EXISTS bench_gaps; SELECT setseed(0.25);
        CREATE TABLE bench_gaps AS
        SELECT array_agg(s ORDER BY i) AS clean,
               array_agg(CASE WHEN random() < 0.02 THEN NULL ELSE s END ORDER BY i) AS scattered,
               array_agg(CASE WHEN (i / 50) % 33 = 7 THEN NULL ELSE s END ORDER BY i) AS runs
        FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, $n) i) w" >/dev/null
  base_ms=""; base_ker=""
  for series in clean scattered runs; do
    # windows of m values that hold a NULL
    flagged=$(q -c "SELECT round(100.0 * count(*) FILTER (WHERE g > 0) / count(*), 1) || '%'
        FROM (SELECT count(*) OVER w - count(v) OVER w AS g, row_number() OVER (ORDER BY o) AS k
              FROM bench_gaps, unnest($series) WITH ORDINALITY u(v, o)
              WINDOW w AS (ORDER BY o ROWS BETWEEN CURRENT ROW AND $((m - 1)) FOLLOWING)) x
        WHERE k <= $((n - m + 1))")
    read -r ms dev ker <<<"$(run_timed "$backend" 3 "SELECT cardinality(distance) FROM ts_matrix_profile_arrays((SELECT $series FROM bench_gaps), $m)")"
    [ "$series" = clean ] && { base_ms=$ms; base_ker=$ker; }
    awk -v e=$e -v m=$m -v s=$series -v f="$flagged" -v b=$backend -v ms=$ms -v dev=$dev -v ker=$ker \
        -v bm=$base_ms -v bk=$base_ker 'BEGIN {
      rk = (ker == "-" || bk == "-") ? "-" : sprintf("%.3f", ker / bk);
      printf "| 2^%d | %d | %s | %s | %s | %s | %s | %s | %.3f | %s |\n", e, m, s, f, b, ms, dev, ker, ms / bm, rk }'
  done
done
q -c "DROP TABLE IF EXISTS bench_gaps" >/dev/null
