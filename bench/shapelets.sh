#!/usr/bin/env bash
# Shapelet discovery (issue: shapelets): the GPU shapelet paper's Table II
# (GTX 480, distance computation, seconds), the same datasets and pivot
# ranges: every length 2..L (a length-1 window has no z-normalised shape),
# step 10 where the paper marks * (OSULeaf), and OSULeaf with every length
# (the paper: 20.2 minutes).  End to end through SQL: ts_shapelets(k => 1) on
# the TRAIN set; plus the test accuracy of a shapelet tree (and a logical one)
# built with the same pivots.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE, backend $backend"
echo
q -c "DROP TABLE IF EXISTS bench_ucr; CREATE TABLE bench_ucr (dataset text, part text, id bigserial, label text, series float8[])" >/dev/null
for d in ${DATASETS:-Coffee CBF GunPoint Trace FaceFour Beef OliveOil Car ItalyPowerDemand OSULeaf ArrowHead ECGFiveDays SonyAIBORobotSurface1}; do
  for part in TRAIN TEST; do
    q -c "CREATE TEMP TABLE raw (i bigserial, line text); COPY raw (line) FROM STDIN WITH (FORMAT text, DELIMITER '|');
          INSERT INTO bench_ucr (dataset, part, label, series)
          SELECT '$d', lower('$part'), split_part(line, E'\t', 1)::float8::int::text, (string_to_array(line, E'\t'))[2:]::float8[]
          FROM raw ORDER BY i" < "$shared/data/ucr/$d/${d}_$part.tsv"
  done
done
echo "| dataset | N | L | lengths | pivots | ms | device ms | paper (GTX 480) | speed-up | tree accuracy | logical tree accuracy |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
paper() { case $1 in Coffee) echo 3.0;; CBF) echo 0.4;; GunPoint) echo 1.2;; Trace) echo 34.2;; FaceFour) echo 3.8;;
  Beef) echo 18.1;; OliveOil) echo 31.2;; Car) echo 127.7;; ItalyPowerDemand) echo 0.0;; OSULeaf/10) echo 65.9;; OSULeaf/1) echo 1212;; esac; }
runs=()
for d in ${DATASETS:-Coffee CBF GunPoint Trace FaceFour Beef OliveOil Car ItalyPowerDemand OSULeaf ArrowHead ECGFiveDays SonyAIBORobotSurface1}; do
  if [ "$d" = OSULeaf ]; then runs+=("$d/10" "$d/1"); else runs+=("$d/1"); fi
done
for r in "${runs[@]}"; do
  d=${r%/*}; step=${r#*/}
  read -r N L <<<"$(q -F' ' -c "SELECT count(*), max(array_length(series, 1)) FROM bench_ucr WHERE dataset = '$d' AND part = 'train'")"
  # the training set in a table of its own, as a user would keep it
  q -c "DROP TABLE IF EXISTS bench_train; CREATE TABLE bench_train AS SELECT id, label, series FROM bench_ucr WHERE dataset = '$d' AND part = 'train'" >/dev/null
  train="SELECT label, series FROM bench_train ORDER BY id"
  read -r ms dev _ <<<"$(run_timed $backend 1 "SELECT count(*) FROM ts_shapelets('$train', 2, $L, $step, 1)")"
  pivots=$(awk -v N=$N -v L=$L -v s=$step 'BEGIN { p = 0; for (l = 2; l <= L; l += s) p += N * (L - l + 1); print p }')
  acc="-"; lacc="-"
  if [ "${ACCURACY:-yes}" = yes ] && [ "$r" != OSULeaf/1 ]; then
    acc=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -c "
      WITH m AS (SELECT ts_shapelet_tree('$train', 2, $L, $step) AS model)
      SELECT round(avg((ts_shapelet_classify(m.model, u.series) = u.label)::int), 4) FROM m, bench_ucr u WHERE u.dataset = '$d' AND u.part = 'test'")
    lacc=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -c "
      WITH m AS (SELECT ts_shapelet_tree('$train', 2, $L, $step, logical => true) AS model)
      SELECT round(avg((ts_shapelet_classify(m.model, u.series) = u.label)::int), 4) FROM m, bench_ucr u WHERE u.dataset = '$d' AND u.part = 'test'")
  fi
  p=$(paper "$r")
  [ -n "$p" ] || p=$(paper "$d")
  [ -n "$p" ] || p=-1   # not in the paper's table
  awk -v d="$d" -v N=$N -v L=$L -v s=$step -v pv=$pivots -v ms=$ms -v dev=$dev -v p=$p -v a=$acc -v la=$lacc 'BEGIN {
    sp = (p > 0) ? sprintf("%.0fx", p * 1000 / ms) : "-";
    if (p < 0) p = "-";
    printf "| %s | %d | %d | 2..%d step %d | %d | %s | %s | %s s | %s | %s | %s |\n", d, N, L, L, s, pv, ms, dev, p, sp, a, la }'
done
q -c "DROP TABLE IF EXISTS bench_ucr, bench_train" >/dev/null
