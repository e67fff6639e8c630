#!/usr/bin/env bash
# Motifs (issue: motifs): the MK thesis's table, n = 4·10^5, m = 128 and 1024,
# on a random walk (seed 0.5) and on an ECG: qtdbsel102 lead 1 (45,000 points)
# tiled 9 times with independent Gaussian noise of 0.01·σ added to each tile
# (so that no window repeats exactly), cut to 4·10^5 points.  mk against
# matrix_profile and auto, through SQL on the configured backend, best of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
n=${N:-400000}
echo "device: $DEVICE, backend $backend, n = $n"
echo
q -c "DROP TABLE IF EXISTS bench_motif; CREATE TABLE bench_motif (name text, a float8[]);
      SELECT setseed(0.5);
      INSERT INTO bench_motif SELECT 'random walk', array_agg(s ORDER BY i)
        FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, $n) i) w" >/dev/null
tr -d '\r' < "$shared/data/anomaly/keogh_discords/ecg/qtdbsel102.txt" | cut -f2 \
  | q -c "CREATE TEMP TABLE e (i bigserial, v float8); COPY e (v) FROM STDIN;
          SELECT setseed(0.25);
          INSERT INTO bench_motif SELECT 'ECG qtdbsel102 tiled', array_agg(v ORDER BY t, i)
          FROM (SELECT t, e.i, e.v + 0.01 * (SELECT stddev_pop(v) FROM e) * (random() + random() + random() + random() - 2) * sqrt(3) AS v
                FROM generate_series(0, 8) t, e ORDER BY t, e.i LIMIT $n) x" >/dev/null
echo "| series | n | m | method | ms | pair (pos_a, pos_b) | distance | thesis (RTX 2080 Ti) | speed-up |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in "random walk" "ECG qtdbsel102 tiled"; do
  for m in 128 1024; do
    case "$name/$m" in
      "random walk/128") paper=26.8;; "random walk/1024") paper=5.1;;
      "ECG qtdbsel102 tiled/128") paper=71.3;; *) paper=69.3;;
    esac
    for method in ${METHODS:-mk matrix_profile auto}; do
      sql="SELECT * FROM ts_motifs((SELECT a FROM bench_motif WHERE name = '$name'), $m, 1, method => '$method')"
      read -r ms _ _ <<<"$(run_timed $backend 3 "SELECT count(*) FROM ($sql) x")"
      res=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -F' ' -c "SELECT pos_a, pos_b, round(distance::numeric, 6) FROM ($sql) x")
      read -r pa pb d <<<"$res"
      awk -v s="$name" -v n=$n -v m=$m -v me=$method -v ms=$ms -v pa=$pa -v pb=$pb -v d=$d -v p=$paper 'BEGIN {
        printf "| %s | %d | %d | %s | %s | (%s, %s) | %s | %.1f s | %.0fx |\n", s, n, m, me, ms, pa, pb, d, p, p * 1000 / ms }'
    done
  done
done
q -c "DROP TABLE IF EXISTS bench_motif" >/dev/null
