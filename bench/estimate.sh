#!/usr/bin/env bash
# Estimates against measured runs (issue 17): for every function whose cost
# grows with its input, three sizes, ts_estimate's seconds beside the time the
# call measured inside tsmine (ts_last_run: total_ms − input_ms, the best of
# REPS runs in one session) on the configured backend, and their ratio.
# Series: seeded random walks; shapelets: a seeded two-class training set.
#   BACKEND=gpu|cpu  (default: gpu where one is usable, else cpu)
#   THREADS=N        tsmine.cpu_threads for the CPU runs (default 0: every thread)
#   REPS=N           runs per size (default 3)
#   CLOCK=wall|cpu   wall (default): the best run's time inside tsmine, as
#                    above; cpu: the backend's mean CPU time for the call, less
#                    that of reading the same series alone (/proc/self/stat,
#                    10 ms ticks; one thread; a superuser), which other
#                    processes on a shared machine do not inflate
#   ONLY="ts_match ts_outliers"   the functions to run (default: all)
#   M=N              the window and pattern length (default 100)
#   MP_SIZES, MATCH_SIZES, OUT_SIZES="a b c"   log2 of the series lengths;
#   SHP_LENGTHS, SHP_COUNT   the shapelet training set: lengths, series each
# The default sizes follow the backend (the GPU's are 4–32 times larger).  The
# last line counts the rows whose ratio lies within a factor of 2.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
BACKEND=${BACKEND:-$backend}
THREADS=${THREADS:-0}
REPS=${REPS:-3}
ONLY=${ONLY:-ts_matrix_profile_arrays ts_discords ts_motifs ts_match ts_outliers ts_shapelets}
CLOCK=${CLOCK:-wall}
[ "$CLOCK" = cpu ] && THREADS=1  # the process's CPU time is the call's time only on one thread
settings="SET tsmine.backend = $BACKEND; SET tsmine.cpu_threads = $THREADS;"
hz=$(getconf CLK_TCK)

M=${M:-100}
if [ "$BACKEND" = gpu ]; then
  mp_sizes="18 19 20"; match_sizes="22 23 24"; out_sizes="22 23 24"; shp_lengths="256 384 512"; shp_count=100
else
  mp_sizes="13 14 15"; match_sizes="18 19 20"; out_sizes="22 23 24"; shp_lengths="64 96 128"; shp_count=20
fi
mp_sizes=${MP_SIZES:-$mp_sizes} match_sizes=${MATCH_SIZES:-$match_sizes} out_sizes=${OUT_SIZES:-$out_sizes}
shp_lengths=${SHP_LENGTHS:-$shp_lengths} shp_count=${SHP_COUNT:-$shp_count}
walk_sizes="$(printf '%s\n' $mp_sizes $match_sizes $out_sizes | sort -un | tr '\n' ' ')"

echo "device: $DEVICE; backend $BACKEND, tsmine.cpu_threads = $THREADS, $CLOCK time of $REPS runs, m = $M;" \
     "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
q -c "DROP TABLE IF EXISTS bench_est_walk, bench_est_train;
      CREATE TABLE bench_est_walk (log2n int, a float8[]);
      CREATE TABLE bench_est_train (id int, label int, len int, series float8[]);" >/dev/null
for e in $walk_sizes; do
  q -c "SELECT setseed(0.$e); INSERT INTO bench_est_walk SELECT $e, array_agg(s ORDER BY i)
        FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 1 << $e) i) w" >/dev/null
done
for L in $shp_lengths; do  # class 1 has a bump at a random place; noise everywhere
  q -c "SELECT setseed(0.$L); INSERT INTO bench_est_train
        SELECT s, s % 2, $L, array_agg(random() + CASE WHEN s % 2 = 1 AND t BETWEEN b AND b + 9 THEN 2 ELSE 0 END ORDER BY t)
        FROM (SELECT s, (random() * ($L - 10))::int AS b FROM generate_series(1, $shp_count) s) c,
             generate_series(1, $L) t GROUP BY s, b" >/dev/null
done

# measure SQL CONTROL: in ms, the best (total_ms − input_ms) of REPS runs of
# SQL, or (CLOCK=cpu) the mean of SQL's CPU time less CONTROL's (reading the
# same input); the first call of the session starts the GPU context, if any
# (not counted)
measure() {
  local cpu_ms="SELECT 0::float8"
  [ "$CLOCK" = cpu ] && cpu_ms="SELECT (split_part(s, ' ', 14)::float8 + split_part(s, ' ', 15)::float8) * 1000.0 / $hz
                                FROM pg_read_file('/proc/self/stat') s"
  q -c "$settings
        SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[]);
        CREATE FUNCTION pg_temp.cpu_ms() RETURNS float8 LANGUAGE sql AS \$f\$ $cpu_ms \$f\$;
        CREATE TEMP TABLE r (wall float8, cpu float8);
        DO \$\$ DECLARE c0 float8; c1 float8; BEGIN FOR i IN 1..$REPS LOOP
          c0 := pg_temp.cpu_ms();
          EXECUTE \$q\$ SELECT count(*) FROM ($2) x \$q\$;
          c1 := pg_temp.cpu_ms();
          EXECUTE \$q\$ SELECT count(*) FROM ($1) x \$q\$;
          INSERT INTO r SELECT total_ms - coalesce(input_ms, 0), pg_temp.cpu_ms() - c1 - (c1 - c0) FROM ts_last_run();
        END LOOP; END \$\$;
        SELECT CASE WHEN '$CLOCK' = 'cpu' THEN avg(cpu) ELSE min(wall) END FROM r;" | tail -1
}

# row FUNCTION METHOD N M K SQL CONTROL [ESTIMATE ARGS]: one line of the table
rows=0 within=0
row() {
  local f=$1 method=$2 n=$3 m=$4 k=$5 sql=$6 control=$7 extra=${8:-}
  local est ms
  est=$(q -F' ' -c "$settings SELECT seconds, coalesce(method, '-'), backend FROM ts_estimate('$f', $n, $m, $k, '$method'$extra)" | tail -1)
  ms=$(measure "$sql" "$control")
  read -r es em eb <<<"$est"
  ms=$(awk -v ms="$ms" 'BEGIN { print (ms > 0.001 ? ms : 0.001) }')  # a ratio, even for the fastest call
  awk -v f="$f" -v me="$em" -v n="$n" -v m="$m" -v k="$k" -v b="$eb" -v es="$es" -v ms="$ms" 'BEGIN {
    r = es / (ms / 1000); printf "| %s | %s | %s | %s | %s | %s | %.3f | %.3f | %.2f |\n", f, me, n, m, k, b, es, ms / 1000, r }'
  rows=$((rows + 1))
  if awk -v es="$es" -v ms="$ms" 'BEGIN { r = es / (ms / 1000); exit !(r >= 0.5 && r <= 2) }'; then within=$((within + 1)); fi
}

walk() { echo "(SELECT a FROM bench_est_walk WHERE log2n = $1)"; }
read_walk() { echo "SELECT array_length(a, 1) FROM bench_est_walk WHERE log2n = $1"; }  # the input alone
echo "| function | method | n | m | k | backend | estimate s | measured s | estimate / measured |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in $ONLY; do
  case $f in
    ts_matrix_profile_arrays)
      for e in $mp_sizes; do row $f auto $((1 << e)) $M 1 "SELECT * FROM ts_matrix_profile_arrays($(walk $e), $M)" "$(read_walk $e)"; done;;
    ts_discords)
      for method in matrix_profile pd3; do for k in 1 10; do for e in $mp_sizes; do
        row $f $method $((1 << e)) $M $k "SELECT * FROM ts_discords($(walk $e), $M, $k, method => '$method')" "$(read_walk $e)"
      done; done; done;;
    ts_motifs)
      for method in mk matrix_profile; do for e in $mp_sizes; do
        row $f $method $((1 << e)) $M 1 "SELECT * FROM ts_motifs($(walk $e), $M, 1, method => '$method')" "$(read_walk $e)"
      done; done;;
    ts_match)
      for e in $match_sizes; do
        row $f auto $((1 << e)) $M 1 "SELECT * FROM ts_match($(walk $e), (SELECT a[1000:$((999 + M))] FROM bench_est_walk WHERE log2n = $e), k => 10)" \
            "$(read_walk $e)"
      done;;
    ts_outliers)
      for method in sigma mad; do for e in $out_sizes; do
        row $f $method $((1 << e)) NULL 1 "SELECT * FROM ts_outliers($(walk $e), 3, '$method')" "$(read_walk $e)"
      done; done;;
    ts_shapelets)
      for L in $shp_lengths; do
        row $f auto "$L" "$L" 1 "SELECT * FROM ts_shapelets('SELECT label, series FROM bench_est_train WHERE len = $L ORDER BY id', 3, $L)" \
            "SELECT label, series FROM bench_est_train WHERE len = $L" ", series_count => $shp_count, min_length => 3"
      done;;
  esac
done
echo
echo "within a factor of 2: $within of $rows rows (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
q -c "DROP TABLE IF EXISTS bench_est_walk, bench_est_train" >/dev/null
