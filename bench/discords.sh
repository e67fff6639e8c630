#!/usr/bin/env bash
# Top-k discords (issue: discords): k = 1, 10, 50, 100 on the PD3 paper's
# series and on a 2^20-point random walk, pd3 against matrix_profile, time per
# discord, through SQL on the configured backend (gpu where there is one).
# One timed call each (REPS=n: the best of n calls in one session).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE, backend $backend"
echo
q -c "DROP TABLE IF EXISTS bench_series; CREATE TABLE bench_series (name text, m int, a float8[])" >/dev/null
load() {  # name m file column
  awk -v c="$4" '{gsub("\r",""); split($0, f, /[ \t]+/); if ($0 ~ /^[ \t]/) c2 = c + 2; else c2 = c + 1; print f[c2]}' "$3" \
    | q -c "CREATE TEMP TABLE t (i bigserial, v float8); COPY t (v) FROM STDIN; INSERT INTO bench_series SELECT '$1', $2, array_agg(v ORDER BY i) FROM t"
}
load "ECG qtdbsel102" 256 "$shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt" 1
load "space shuttle TEK16" 128 "$shared/data/anomaly/keogh_discords/space_shuttle/TEK16.txt" 0
load "respiration nprs44" 256 "$shared/data/anomaly/keogh_discords/respiration/nprs44.txt" 0
load "power demand" 512 "$shared/data/anomaly/keogh_discords/power_demand/power_data.txt" 0
q -c "SELECT setseed(0.5); INSERT INTO bench_series SELECT 'random walk 2^${RW_LOG2:-20}', 100, array_agg(s ORDER BY i)
      FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 1 << ${RW_LOG2:-20}) i) w" >/dev/null
if [ -n "${RANGE:-}" ]; then
  # range mode: r = the distance of the 10th (non-overlapping) discord, so
  # that a handful of windows qualify
  echo "| series | n | m | r | range discords | pd3 ms | matrix_profile ms | faster | same rows |"
  echo "|---|---|---|---|---|---|---|---|---|"
  q -F'|' -c "SELECT name, m, array_length(a, 1) FROM bench_series ORDER BY array_length(a, 1)" | while IFS='|' read -r name m n; do
    sel="(SELECT a FROM bench_series WHERE name = '$name')"
    r=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -c "SELECT distance FROM ts_discords($sel, $m, 10) ORDER BY rank DESC LIMIT 1")
    read -r pd _ _ <<<"$(run_timed $backend 1 "SELECT count(*) FROM ts_discords($sel, $m, NULL, $r, method => 'pd3')")"
    read -r mp _ _ <<<"$(run_timed $backend 1 "SELECT count(*) FROM ts_discords($sel, $m, NULL, $r, method => 'matrix_profile')")"
    read -r cnt same <<<"$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -F' ' -c "SELECT (SELECT count(*) FROM ts_discords($sel, $m, NULL, $r, method => 'pd3')),
        (SELECT count(*) = 0 FROM (SELECT pos FROM ts_discords($sel, $m, NULL, $r, method => 'pd3') EXCEPT SELECT pos FROM ts_discords($sel, $m, NULL, $r, method => 'matrix_profile')) d)")"
    awk -v s="$name" -v n=$n -v m=$m -v r=$r -v c=$cnt -v a=$pd -v b=$mp -v same=$same 'BEGIN {
      printf "| %s | %d | %d | %.4f | %d | %s | %s | %s | %s |\n", s, n, m, r, c, a, b, (a < b ? "pd3" : "matrix_profile"), same }'
  done
  q -c "DROP TABLE IF EXISTS bench_series" >/dev/null
  exit 0
fi
echo "| series | n | m | k | pd3 ms | pd3 ms/discord | matrix_profile ms | matrix_profile ms/discord | faster | same rows |"
echo "|---|---|---|---|---|---|---|---|---|---|"
q -F'|' -c "SELECT name, m, array_length(a, 1) FROM bench_series ORDER BY array_length(a, 1)" | while IFS='|' read -r name m n; do
  for k in ${KS:-1 10 50 100}; do
    sel="(SELECT a FROM bench_series WHERE name = '$name')"
    read -r pd _ _ <<<"$(run_timed $backend ${REPS:-1} "SELECT count(*) FROM ts_discords($sel, $m, $k, method => 'pd3')")"
    read -r mp _ _ <<<"$(run_timed $backend ${REPS:-1} "SELECT count(*) FROM ts_discords($sel, $m, $k, method => 'matrix_profile')")"
    same=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -c "SELECT count(*) = 0 FROM (
        (SELECT rank, pos FROM ts_discords($sel, $m, $k, method => 'pd3') EXCEPT SELECT rank, pos FROM ts_discords($sel, $m, $k, method => 'matrix_profile'))) d")
    awk -v s="$name" -v n=$n -v m=$m -v k=$k -v a=$pd -v b=$mp -v same=$same 'BEGIN {
      printf "| %s | %d | %d | %d | %s | %.2f | %s | %.2f | %s | %s |\n", s, n, m, k, a, a / k, b, b / k, (a < b ? "pd3" : "matrix_profile"), same }'
  done
done
q -c "DROP TABLE IF EXISTS bench_series" >/dev/null
