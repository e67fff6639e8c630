#!/usr/bin/env bash
# bench/load.sh — many clients mixing every tsmine function over stored series:
# pgbench with 16 and 64 clients (CLIENTS), more than the GPU slots
# (tsmine.max_gpu_backends, 4 by default), tsmine.backend = auto, first with
# tsmine.gpu_busy = cpu, then = wait.  Per run: tps, mean and p95 latency
# (from pgbench's per-transaction log), transactions, errors (aborted
# clients), and at the end of each run: the server log's new lines checked for
# crashes (a backend killed by a signal, PANIC, a restart), the GPU slots held
# (pg_locks, once the clients are gone) and the device memory free compared
# with before the run.  Exits nonzero on any error, crash, slot left held or
# device memory not given back (more than DEV_TOL_MB, default 64 MiB, lower).
#
# A slot is held until the backend exits, so with gpu_busy = wait and
# persistent sessions the clients beyond the slots would wait as long as the
# slot holders live: the wait runs use a connection per transaction
# (pgbench -C), each backend holding a slot for one transaction at most; the
# cpu runs keep their sessions.
#   bench/load.sh                 16 and 64 clients, 30 s a run (about 2.5 minutes)
#   bench/load.sh short           4 and 16 clients, 5 s a run (the CPU build, for a check)
#   CLIENTS=".." SECONDS_PER_RUN=.. N=.. SERVER_LOG=path bench/load.sh
# The server log is found through the checkpointer's stderr (pg_ctl -l); set
# SERVER_LOG where that is not the log.  Needs a server on this machine (PG*
# variables; psql and pgbench connect to it) where the user may create tables.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
if [ "${1:-}" = short ]; then : "${CLIENTS:=4 16}" "${SECONDS_PER_RUN:=5}" "${N:=2048}"; fi
clients=${CLIENTS:-16 64}
secs=${SECONDS_PER_RUN:-30}
n=${N:-8192}
dev_tol=${DEV_TOL_MB:-64}
pgbench=${PGBENCH:-$(command -v pgbench || echo "${TSM_PGBIN:-/usr/lib/postgresql/15/bin}/pgbench")}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# stored series: 100 random walks of n points (arrays, and as rows for the query form), a training set, a model
q -c "SELECT setseed(0.5);
  DROP TABLE IF EXISTS tsm_load_points, tsm_load_series, tsm_load_train, tsm_load_model;
  CREATE TABLE tsm_load_points AS
    SELECT id, i, timestamptz '2026-01-01' + i * interval '1 minute' AS ts,
           sum(random() - 0.5) OVER (PARTITION BY id ORDER BY i) + sin(i * 0.05) AS v
    FROM generate_series(1, 100) id, generate_series(1, $n) i;
  CREATE INDEX ON tsm_load_points (id, i);
  CREATE INDEX ON tsm_load_points (id, ts);
  CREATE TABLE tsm_load_series AS
    SELECT id, array_agg(v ORDER BY i) AS s, array_agg(ts ORDER BY i) AS t FROM tsm_load_points GROUP BY id;
  CREATE UNIQUE INDEX ON tsm_load_series (id);
  CREATE TABLE tsm_load_train AS SELECT id, CASE WHEN id % 2 = 0 THEN 'bump' ELSE 'flat' END AS label,
      array_agg(sin(i * 0.3 + id) + CASE WHEN id % 2 = 0 AND i BETWEEN 20 AND 30 THEN 2 ELSE 0 END
                + random() * 0.1 ORDER BY i) AS s
    FROM generate_series(1, 16) id, generate_series(1, 64) i GROUP BY id;
  CREATE TABLE tsm_load_model AS SELECT ts_shapelet_tree('SELECT label, s FROM tsm_load_train ORDER BY id', 8, 16, 4) AS m;
  ANALYZE tsm_load_points; ANALYZE tsm_load_series;" >/dev/null

# one pgbench script per function (each picks a stored series at random)
i=0
while IFS= read -r stmt; do
  i=$((i + 1))
  printf '\\set id random(1, 100)\n%s\n' "$stmt" >"$dir/f$i.sql"
done <<'EOF'
SELECT count(*) FROM ts_outliers((SELECT s FROM tsm_load_series WHERE id = :id), 3);
SELECT count(*) FROM ts_outliers(format('SELECT v FROM tsm_load_points WHERE id = %s ORDER BY i', :id), 3.5, 'mad');
SELECT count(*) FROM ts_matrix_profile((SELECT s FROM tsm_load_series WHERE id = :id), 64);
SELECT cardinality(distance) FROM ts_matrix_profile_arrays(format('SELECT v FROM tsm_load_points WHERE id = %s ORDER BY i', :id), 64);
SELECT count(*) FROM ts_discords((SELECT s FROM tsm_load_series WHERE id = :id), 64, 3);
SELECT count(*) FROM ts_discords((SELECT s FROM tsm_load_series WHERE id = :id), 64, 3, method => 'pd3');
SELECT count(*) FROM ts_motifs((SELECT s FROM tsm_load_series WHERE id = :id), 64, 2);
SELECT count(*) FROM ts_motifs(format('SELECT v FROM tsm_load_points WHERE id = %s ORDER BY i', :id), 64, 2, method => 'matrix_profile');
SELECT count(*) FROM ts_match((SELECT s FROM tsm_load_series WHERE id = :id), (SELECT s[1000:1063] FROM tsm_load_series WHERE id = 1), k => 5);
SELECT count(*) FROM ts_shapelets('SELECT label, s FROM tsm_load_train ORDER BY id', 8, 16, 4, 2);
SELECT ts_shapelet_classify((SELECT m FROM tsm_load_model), (SELECT s FROM tsm_load_train WHERE id = :id % 16 + 1));
SELECT count(*) FROM ts_shapelet_classify((SELECT m FROM tsm_load_model), 'SELECT id, s FROM tsm_load_train ORDER BY id');
SELECT ts_shapelet_distance((SELECT s[1:16] FROM tsm_load_train WHERE id = 2), (SELECT s FROM tsm_load_train WHERE id = :id % 16 + 1)) >= 0;
SELECT count(*) FROM ts_discords((SELECT t FROM tsm_load_series WHERE id = :id), (SELECT s FROM tsm_load_series WHERE id = :id), 64, 3);
SELECT count(*) FROM ts_motifs(NULL::timestamptz, format('SELECT ts, v FROM tsm_load_points WHERE id = %s ORDER BY ts', :id), 64, 2);
SELECT length(ts_plot((SELECT s FROM tsm_load_series WHERE id = :id), '{"discords": [100, 1000]}', 64));
SELECT count(*) FROM ts_discords_from_tiles((SELECT s FROM tsm_load_series WHERE id = :id), (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(s, 64, g.tile, 4)) FROM tsm_load_series, generate_series(1, 4) g(tile) WHERE id = :id), 3);
SELECT count(*) FROM ts_device_info();
SELECT count(*) FROM ts_last_run();
EOF
scripts=()
for f in "$dir"/f*.sql; do scripts+=(-f "$f"); done

# the server log: the file behind the checkpointer's stderr (pg_ctl -l), unless SERVER_LOG says
log=${SERVER_LOG:-$(readlink -f "/proc/$(q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")/fd/2" 2>/dev/null || true)}
[ -f "$log" ] || log=""

slots_held() { q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7631725"; }
device_free_mb() {
  q -c "SELECT coalesce((SELECT round(free_memory / 1048576.0)::text FROM ts_device_info()
                         WHERE kind = 'gpu' AND backend <> '-' LIMIT 1), '-')"
}
checkpointer_pid() { q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'"; }
# waits (up to 60 s) until the server takes connections (after a crash it
# restarts) and no other session is connected to this database
wait_clients_gone() {
  for _ in $(seq 120); do q -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
  for _ in $(seq 60); do
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")" = 0 ] && return
    sleep 0.5
  done
}

echo "# load: $(date -u +%F) tsmine $(q -c 'SELECT version FROM ts_device_info() LIMIT 1'), $DEVICE"
slots=$(q -c "SELECT count(*) FROM ts_device_info()" -c "SHOW tsmine.max_gpu_backends" | tail -1)
echo "# $(nproc) CPUs; tsmine.backend = auto; GPU slots (tsmine.max_gpu_backends): $slots; $(( ${#scripts[@]} / 2 )) statements mixed (every function), series of $n points; $secs s a run"
[ -n "$log" ] && echo "# server log: $log" || echo "# server log not found (set SERVER_LOG): crashes are seen by the checkpointer pid only"
echo
echo "| gpu_busy | clients | connections | tps | mean ms | p95 ms | transactions | errors | crashes | slots held after | device free MiB before → after |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for busy in cpu wait; do
  for c in $clients; do
    conn=session; connect=()
    [ "$busy" = wait ] && { conn=per-transaction; connect=(-C); }
    free0=$(device_free_mb)
    checkpointer=$(checkpointer_pid)
    logsize=$( [ -n "$log" ] && stat -c %s "$log" || echo 0)
    rm -f "$dir"/tx*
    j=$(( c < 16 ? c : 16 ))
    PGOPTIONS="-c client_min_messages=warning -c tsmine.backend=auto -c tsmine.gpu_busy=$busy -c statement_timeout=120s" \
      "$pgbench" -n "${connect[@]}" "${scripts[@]}" -c "$c" -j "$j" -T "$secs" -l --log-prefix="$dir/tx" \
      >"$dir/run.log" 2>&1 || true
    wait_clients_gone
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$dir/run.log" | head -1)
    tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$dir/run.log")
    errors=$(grep -c "aborted in command\|ERROR:" "$dir/run.log" || true)
    # per-transaction log: client, transaction, latency in µs, ...
    read -r mean p95 < <(cat "$dir"/tx* 2>/dev/null | awk '$3 ~ /^[0-9]+$/ {print $3}' | sort -n |
      awk '{ v[NR] = $1; s += $1 } END { if (NR == 0) { print "- -"; exit }
             k = int(0.95 * NR); if (k < 1) k = 1; printf "%.1f %.1f\n", s / NR / 1000, v[k] / 1000 }')
    crashes=0
    if [ -n "$log" ]; then
      crashes=$(tail -c +"$((logsize + 1))" "$log" | grep -c "terminated by signal\|PANIC\|was terminated by exception\|all server processes terminated" || true)
    fi
    [ "$(checkpointer_pid)" = "$checkpointer" ] || crashes="$crashes (restarted)"
    slots=$(slots_held)
    free1=$(device_free_mb)
    printf '| %s | %d | %s | %.1f | %s | %s | %s | %s | %s | %s | %s → %s |\n' "$busy" "$c" "$conn" "${tps:-0}" "$mean" "$p95" \
      "${tx:-0}" "$errors" "$crashes" "$slots" "$free0" "$free1"
    if [ "$errors" != 0 ] || [ "$crashes" != 0 ] || [ "$slots" != 0 ] || [ -z "$tx" ]; then
      status=1
      grep -m5 "aborted\|ERROR\|FATAL" "$dir/run.log" >&2 || true
    fi
    if [ "$free0" != - ] && [ $(( free0 - free1 )) -gt "$dev_tol" ]; then status=1; fi
  done
done
echo
echo "# $( [ $status = 0 ] && echo '0 errors, 0 crashes, slots and device memory given back' || echo 'FAILED: see the row(s) above')"
exit $status
