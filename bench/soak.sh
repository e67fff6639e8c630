#!/usr/bin/env bash
# bench/soak.sh — CALLS consecutive calls of every tsmine SQL function (each
# form: array, query, timed; several methods) in ONE session, each call its
# own statement.  Every CALLS/10 calls it samples the backend's resident
# memory (VmRSS of /proc/<backend pid>/status: psql must run on the server's
# machine) and, from ts_device_info(), the device memory tsmine holds
# (tsmine_memory, 0 between calls) and the device's free memory.  Prints one
# row per function and exits nonzero when, after the warm-up (the function's
# first WARMUP calls, default 100: caches, the staged profile buffer, the
# CUDA context, malloc's arenas), a function's
#   * RSS grew by more than RSS_TOL_KB (default 2048 KiB over the remaining
#     calls: a leak of about 2 KiB a call at CALLS = 1000), or
#   * tsmine_memory was not 0 at a sample, or
#   * the device's free memory fell by more than DEV_TOL_MB (default 32 MiB),
# or when any call failed.
#   bench/soak.sh                  CALLS=1000, series of N=4096 points, tsmine.backend = gpu where a GPU is, else cpu
#   bench/soak.sh short            CALLS=200, N=1024 (the CPU build, for a check)
#   CALLS=.. N=.. BACKEND=auto RSS_TOL_KB=.. DEV_TOL_MB=.. bench/soak.sh
#   ONLY='tiles' bench/soak.sh     the functions whose names match the regular expression
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
if [ "${1:-}" = short ]; then : "${CALLS:=200}" "${N:=1024}"; fi
calls=${CALLS:-1000}
warmup=${WARMUP:-100}
n=${N:-4096}
every=$(( calls / 10 > 0 ? calls / 10 : 1 ))
soak_backend=${BACKEND:-$backend}
rss_tol=${RSS_TOL_KB:-2048}
dev_tol=${DEV_TOL_MB:-32}

# name|statement: every SQL function of tsmine, small inputs (temp tables made below)
functions=(
  "ts_outliers(array)|SELECT count(*) FROM ts_outliers((SELECT a FROM soak_s), 3)"
  "ts_outliers(query, mad)|SELECT count(*) FROM ts_outliers('SELECT v FROM soak_p ORDER BY i', 3.5, 'mad')"
  "ts_matrix_profile(array)|SELECT count(*) FROM ts_matrix_profile((SELECT a FROM soak_s), 32)"
  "ts_matrix_profile(query)|SELECT count(*) FROM ts_matrix_profile('SELECT v FROM soak_p ORDER BY i', 32)"
  "ts_matrix_profile_arrays(array)|SELECT cardinality(distance) FROM ts_matrix_profile_arrays((SELECT a FROM soak_s), 32)"
  "ts_matrix_profile_arrays(query)|SELECT cardinality(distance) FROM ts_matrix_profile_arrays('SELECT v FROM soak_p ORDER BY i', 32)"
  "ts_discords(array)|SELECT count(*) FROM ts_discords((SELECT a FROM soak_s), 32, 3)"
  "ts_discords(query, pd3)|SELECT count(*) FROM ts_discords('SELECT v FROM soak_p ORDER BY i', 32, 3, method => 'pd3')"
  "ts_discords(array, range)|SELECT count(*) FROM ts_discords((SELECT a FROM soak_s), 32, NULL, 2.0)"
  "ts_motifs(array, mk)|SELECT count(*) FROM ts_motifs((SELECT a FROM soak_s), 32, 2, method => 'mk')"
  "ts_motifs(query, matrix_profile)|SELECT count(*) FROM ts_motifs('SELECT v FROM soak_p ORDER BY i', 32, 2, method => 'matrix_profile')"
  "ts_match(array)|SELECT count(*) FROM ts_match((SELECT a FROM soak_s), (SELECT a[100:131] FROM soak_s), k => 5)"
  "ts_match(query)|SELECT count(*) FROM ts_match('SELECT v FROM soak_p ORDER BY i', (SELECT a[100:131] FROM soak_s), 3.0)"
  "ts_shapelets|SELECT count(*) FROM ts_shapelets('SELECT label, s FROM soak_train ORDER BY id', 8, 16, 4, 2)"
  "ts_shapelet_tree|SELECT jsonb_typeof(ts_shapelet_tree('SELECT label, s FROM soak_train ORDER BY id', 8, 16, 4))"
  "ts_shapelet_distance|SELECT ts_shapelet_distance((SELECT a[1:16] FROM soak_s), (SELECT a FROM soak_s)) >= 0"
  "ts_shapelet_classify(scalar)|SELECT ts_shapelet_classify((SELECT m FROM soak_model), (SELECT s FROM soak_train WHERE id = 3))"
  "ts_shapelet_classify(batch)|SELECT count(*) FROM ts_shapelet_classify((SELECT m FROM soak_model), 'SELECT id, s FROM soak_train ORDER BY id')"
  "ts_matrix_profile(times, array)|SELECT count(*) FROM ts_matrix_profile((SELECT t FROM soak_s), (SELECT a FROM soak_s), 32)"
  "ts_matrix_profile_arrays(time_type, query)|SELECT cardinality(distance) FROM ts_matrix_profile_arrays(NULL::timestamptz, 'SELECT ts, v FROM soak_p ORDER BY ts', 32)"
  "ts_discords(times, array)|SELECT count(*) FROM ts_discords((SELECT t FROM soak_s), (SELECT a FROM soak_s), 32, 3)"
  "ts_motifs(time_type, query)|SELECT count(*) FROM ts_motifs(NULL::timestamptz, 'SELECT ts, v FROM soak_p ORDER BY ts', 32, 2)"
  "ts_match(times, array)|SELECT count(*) FROM ts_match((SELECT t FROM soak_s), (SELECT a FROM soak_s), (SELECT a[100:131] FROM soak_s), k => 5)"
  "ts_outliers(time_type, query)|SELECT count(*) FROM ts_outliers(NULL::timestamptz, 'SELECT ts, v FROM soak_p ORDER BY ts', 3)"
  "ts_shapelets(time_type)|SELECT count(*) FROM ts_shapelets(NULL::timestamptz, 'SELECT label, t, s FROM soak_train ORDER BY id', 8, 16, 4, 2)"
  "ts_plot(array)|SELECT length(ts_plot((SELECT a FROM soak_s), '{\"discords\": [100, 300]}', 32, width => 600, height => 200))"
  "ts_plot(query, times)|SELECT length(ts_plot('SELECT ts, v FROM soak_p ORDER BY ts', '{\"outliers\": [5]}'))"
  "ts_matrix_profile_tile, ts_matrix_profile_merge (aggregate)|SELECT cardinality(ts_matrix_profile_merge(ts_matrix_profile_tile(a, 32, g.tile, 4))) FROM soak_s, generate_series(1, 4) g(tile)"
  "ts_matrix_profile_merge(a, b)|SELECT cardinality(ts_matrix_profile_merge(ts_matrix_profile_tile(a, 32, 1, 2), ts_matrix_profile_tile(a, 32, 2, 2))) FROM soak_s"
  "ts_matrix_profile_from_tiles|SELECT count(*) FROM soak_s, soak_tiles, ts_matrix_profile_from_tiles(a, merged)"
  "ts_discords_from_tiles|SELECT count(*) FROM soak_s, soak_tiles, ts_discords_from_tiles(a, merged, 3)"
  "ts_motifs_from_tiles|SELECT count(*) FROM soak_s, soak_tiles, ts_motifs_from_tiles(a, merged, 2)"
  "ts_device_info|SELECT count(*) FROM ts_device_info()"
  "ts_last_run|SELECT count(*) FROM ts_last_run()"
)

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
script="$dir/soak.sql"
{
  echo '\set ON_ERROR_STOP 1'
  echo "SET tsmine.backend = $soak_backend;"
  echo "SET client_min_messages = warning;"
  echo "SELECT setseed(0.5) \\g /dev/null"
  echo "CREATE TEMP TABLE soak_p AS SELECT i, timestamptz '2026-01-01' + i * interval '1 minute' AS ts,
          sum(random() - 0.5) OVER (ORDER BY i) + sin(i * 0.05) AS v FROM generate_series(1, $n) i;"
  echo "CREATE TEMP TABLE soak_s AS SELECT array_agg(v ORDER BY i) AS a, array_agg(ts ORDER BY i) AS t FROM soak_p;"
  echo "CREATE TEMP TABLE soak_train AS SELECT id, CASE WHEN id % 2 = 0 THEN 'bump' ELSE 'flat' END AS label,
          array_agg(sin(i * 0.3 + id) + CASE WHEN id % 2 = 0 AND i BETWEEN 20 AND 30 THEN 2 ELSE 0 END + random() * 0.1 ORDER BY i) AS s,
          array_agg(timestamptz '2026-01-01' + i * interval '1 s' ORDER BY i) AS t
        FROM generate_series(1, 12) id, generate_series(1, 64) i GROUP BY id;"
  echo "CREATE TEMP TABLE soak_tiles AS SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(a, 32, g.tile, 4)) AS merged
        FROM soak_s, generate_series(1, 4) g(tile);"
  echo "CREATE TEMP TABLE soak_model AS SELECT ts_shapelet_tree('SELECT label, s FROM soak_train ORDER BY id', 8, 16, 4) AS m;"
  echo "CREATE TEMP TABLE soak_samples (ord int, fn text, calls int, rss_kb bigint, tsm_bytes bigint, free_bytes bigint);"
  echo "SELECT pg_backend_pid() AS pid \\gset"
  for ord in "${!functions[@]}"; do
    f=${functions[$ord]}
    name=${f%%|*} stmt=${f#*|}
    [[ -z "${ONLY:-}" || "$name" =~ $ONLY ]] || continue
    for ((c = 1; c <= calls; c++)); do
      echo "$stmt \\g /dev/null"
      if (( c % every == 0 )); then
        echo "\\set rss \`awk '/^VmRSS/ {print \$2}' /proc/:pid/status\`"
        echo "INSERT INTO soak_samples SELECT $ord, '$name', $c, :rss, coalesce(tsmine_memory, 0),
                CASE WHEN kind = 'gpu' THEN free_memory END FROM ts_device_info() WHERE backend <> '-' LIMIT 1;"
      fi
    done
  done
  echo "\\pset format unaligned"
  echo "\\pset tuples_only on"
  echo "\\pset fieldsep '|'"
  echo "SELECT fn, max(calls), string_agg(round(rss_kb / 1024.0, 1)::text, ' ' ORDER BY calls),
               (array_agg(rss_kb ORDER BY calls DESC))[1]
                 - coalesce((array_agg(rss_kb ORDER BY calls) FILTER (WHERE calls >= $warmup))[1],
                            (array_agg(rss_kb ORDER BY calls DESC))[1]),
               max(tsm_bytes),
               round((array_agg(free_bytes ORDER BY calls))[1] / 1048576.0, 1),
               round((array_agg(free_bytes ORDER BY calls DESC))[1] / 1048576.0, 1)
        FROM soak_samples GROUP BY ord, fn ORDER BY ord;"
} >"$script"

echo "# soak: $(date -u +%F) tsmine $(q -c 'SELECT version FROM ts_device_info() LIMIT 1'), $DEVICE"
echo "# $calls calls of each function in one session, tsmine.backend = $soak_backend, series of $n points; samples every $every calls"
echo "# after the first $warmup calls of each: RSS +$rss_tol KiB at most, tsmine device memory 0 between calls, device free memory -$dev_tol MiB"
echo
start=$(date +%s)
if ! q -f "$script" >"$dir/out" 2>"$dir/err"; then
  cat "$dir/err" >&2
  echo "FAILED: a call raised an error (above)"
  exit 1
fi
echo "| function | calls | RSS MiB at each sample | RSS growth after $warmup calls KiB | tsmine device bytes (max) | device free MiB first → last | ok |"
echo "|---|---|---|---|---|---|---|"
status=0
while IFS='|' read -r fn c rss grow tsm free0 free1; do
  [ -n "$fn" ] || continue
  ok=yes
  [ "$grow" -le "$rss_tol" ] || ok="NO: RSS"
  [ "$tsm" -eq 0 ] || ok="NO: device memory held"
  if [ -n "$free0" ] && awk -v a="$free0" -v b="$free1" -v t="$dev_tol" 'BEGIN { exit !(a - b > t) }'; then
    ok="NO: device free memory"
  fi
  [ "$ok" = yes ] || status=1
  echo "| $fn | $c | $rss | $grow | $tsm | ${free0:--} → ${free1:--} | $ok |"
done <"$dir/out"
echo
echo "# $(( $(date +%s) - start )) s; $( [ $status = 0 ] && echo 'every function flat' || echo 'GROWTH: see the rows marked NO')"
exit $status
