#!/usr/bin/env bash
# bench/pgbench_clients.sh — throughput as clients grow: pgbench with 1, 8 and
# 32 clients (CLIENTS) on three workloads over stored series, for each
# tsmine.backend in BACKENDS:
#   lateral  ts_discords(s, 32) over 100 stored series of 512 points (LATERAL), a block at random
#   single   one ts_discords(s, 32) call on one stored 512-point series
#   large    ts_matrix_profile_arrays(s, 64) of one stored 16,384-point series
# Prints one markdown row per run: tps, series a second, mean latency, failed
# transactions.  Throughput should not fall as clients grow.
#   bench/pgbench_clients.sh                 # BACKENDS="cpu auto", 10 s a run (about 3.5 minutes)
#   SECONDS_PER_RUN=5 BACKENDS=cpu bench/pgbench_clients.sh
# Needs a running server (PG* variables) where the user may create tables; the
# series tables (tsm_bench_short, tsm_bench_long) are made once and kept.
# CPU_THREADS sets tsmine.cpu_threads for the runs (default: the server's setting).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
secs=${SECONDS_PER_RUN:-10}
backends=${BACKENDS:-cpu auto}
clients=${CLIENTS:-1 8 32}
pgbench=${PGBENCH:-$(command -v pgbench || echo "${TSM_PGBIN:-/usr/lib/postgresql/15/bin}/pgbench")}

# the series: random walks, the same every time (setseed)
q -c "SELECT setseed(0.16);
  CREATE TABLE IF NOT EXISTS tsm_bench_short AS
    SELECT id, array_agg(v ORDER BY i) AS s
    FROM (SELECT id, i, sum(random() - 0.5) OVER (PARTITION BY id ORDER BY i) AS v
          FROM generate_series(1, 5000) id, generate_series(1, 512) i) w GROUP BY id;
  CREATE UNIQUE INDEX IF NOT EXISTS tsm_bench_short_id ON tsm_bench_short (id);
  CREATE TABLE IF NOT EXISTS tsm_bench_long AS
    SELECT id, array_agg(v ORDER BY i) AS s
    FROM (SELECT id, i, sum(random() - 0.5) OVER (PARTITION BY id ORDER BY i) AS v
          FROM generate_series(1, 64) id, generate_series(1, 16384) i) w GROUP BY id;
  CREATE UNIQUE INDEX IF NOT EXISTS tsm_bench_long_id ON tsm_bench_long (id);
  ANALYZE tsm_bench_short; ANALYZE tsm_bench_long;" >/dev/null

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/lateral.sql" <<'EOF'
\set lo random(1, 4901)
SELECT count(*) FROM tsm_bench_short t, LATERAL ts_discords(t.s, 32) d WHERE t.id >= :lo AND t.id < :lo + 100;
EOF
cat >"$dir/single.sql" <<'EOF'
\set id random(1, 5000)
SELECT count(*) FROM ts_discords((SELECT s FROM tsm_bench_short WHERE id = :id), 32);
EOF
cat >"$dir/large.sql" <<'EOF'
\set id random(1, 64)
SELECT cardinality(distance) FROM ts_matrix_profile_arrays((SELECT s FROM tsm_bench_long WHERE id = :id), 64);
EOF
declare -A per_tx=([lateral]=100 [single]=1 [large]=1)   # series a transaction

opts="-c client_min_messages=warning"
[ -n "${CPU_THREADS:-}" ] && opts="$opts -c tsmine.cpu_threads=$CPU_THREADS"
threads=${CPU_THREADS:-$(q -c "SELECT count(*) FROM ts_device_info()" -c "SHOW tsmine.cpu_threads" | tail -1)}
echo "# pgbench_clients: $(date -u +%F), tsmine $(q -c 'SELECT version FROM ts_device_info() LIMIT 1'), on $DEVICE"
echo "# $(nproc) CPUs; tsmine.cpu_threads = $threads; ${secs} s a run"
echo
echo "| backend | workload | clients | tps | series/s | mean latency ms | failed |"
echo "|---|---|---|---|---|---|---|"
status=0
for b in $backends; do
    for w in lateral single large; do
        for c in $clients; do
            j=$(( c < 8 ? c : 8 ))
            log="$dir/$b-$w-$c.log"
            if ! PGOPTIONS="$opts -c tsmine.backend=$b" "$pgbench" -n -f "$dir/$w.sql" -c "$c" -j "$j" -T "$secs" >"$log" 2>&1; then
                status=1
            fi
            tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$log")
            lat=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$log")
            failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$log")
            grep -q "aborted" "$log" && { failed="aborted"; status=1; }
            series=$(awk -v t="${tps:-0}" -v k="${per_tx[$w]}" 'BEGIN { printf "%.1f", t * k }')
            printf '| %s | %s | %d | %.2f | %s | %s | %s |\n' "$b" "$w" "$c" "${tps:-0}" "$series" "${lat:--}" "${failed:-?}"
            [ "${failed:-0}" = 0 ] || { status=1; sed -n '1,5p' "$log" >&2; }
        done
    done
done
exit $status
