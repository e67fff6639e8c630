#!/usr/bin/env bash
# Benchmark of ts_outliers (issue: foundation §6).  Run where tsmine is
# installed and a server is reachable (PGHOST etc.), on the GPU host:
#   bench/outliers.sh [log2 sizes...]     default: 20 24 28 (best of 3 up to 2^24, one run above)
# For each n: the array form and the query form end to end through SQL (best
# of 3), the device part alone (ts_last_run: transfers + kernels, kernels
# alone, achieved bandwidth), and the plain-SQL equivalent (avg/stddev_pop,
# then a filter).  Prints a Markdown table.
set -euo pipefail
sizes=("${@:-20 24 28}")
[ $# -gt 0 ] || sizes=(20 24 28)
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION IF NOT EXISTS tsmine" >/dev/null
bw=$(q -c "SELECT round(max(memory_bandwidth_gbs)) FROM ts_device_info()")
dev=$(q -c "SELECT string_agg(name, ', ') FROM ts_device_info()")
backends=(cpu)
[ "$(q -c "SELECT count(*) FROM ts_device_info() WHERE kind = 'gpu'")" -gt 0 ] && backends=(gpu cpu)
echo "device: $dev (theoretical memory bandwidth ${bw:-?} GB/s)"
echo
echo "| n | form | backend | end-to-end ms | device ms (H2D + kernels) | kernels ms | kernel bandwidth GB/s | % of peak | plain SQL ms | outliers |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# best of 3 wall-clock ms of a statement, measured in the server
reps=3
best_ms() {
    q -c "DO \$\$ DECLARE t0 timestamptz; best float8 := 'Infinity'; BEGIN
      FOR i IN 1..$reps LOOP t0 := clock_timestamp(); EXECUTE \$q\$ $1 \$q\$;
        best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000); END LOOP;
      PERFORM set_config('bench.best', best::text, false); END \$\$;" -c "SELECT round(current_setting('bench.best')::numeric, 1)"
}
for e in "${sizes[@]}"; do
    n=$((1 << e))
    reps=3; [ "$e" -le 24 ] || reps=1
    q -c "DROP TABLE IF EXISTS bench_t, bench_a" >/dev/null
    # planted outliers: one in 10,000 values is shifted by 40
    q -c "SELECT setseed(0.5); CREATE UNLOGGED TABLE bench_t AS SELECT i::bigint AS i, (random() - 0.5) * 10 + CASE WHEN i % 10000 = 0 THEN 40 ELSE 0 END AS v FROM generate_series(1, $n) i" >/dev/null
    if [ "$e" -le 24 ]; then q -c "CREATE INDEX ON bench_t (i)" >/dev/null; fi
    q -c "VACUUM ANALYZE bench_t" >/dev/null
    plain=$(best_ms "SELECT count(*) FROM bench_t, (SELECT avg(v) m, stddev_pop(v) sd FROM bench_t) s WHERE abs(v - m) > 3 * sd")
    bl=("${backends[@]}"); [ "$e" -le 24 ] || bl=("${backends[0]}")
    for backend in "${bl[@]}"; do
        # query: in time order (index scan on i); query-scan: in physical
        # order (the table was written in time order), as plain SQL reads it.
        # Above 2^24: no index, the configured backend only; the array form
        # up to 2^26 (an array holds at most 1 GB).
        forms=(array query query-scan)
        if [ "$e" -gt 24 ]; then forms=(query-scan); [ "$e" -le 26 ] && forms=(array query-scan); fi
        for form in "${forms[@]}"; do
            if [ "$form" = array ]; then
                q -c "CREATE UNLOGGED TABLE IF NOT EXISTS bench_a AS SELECT array_agg(v ORDER BY i) AS a FROM bench_t" >/dev/null
                sql="SELECT count(*) FROM ts_outliers((SELECT a FROM bench_a), 3)"
            elif [ "$form" = query ]; then
                sql="SELECT count(*) FROM ts_outliers('SELECT v FROM bench_t ORDER BY i', 3)"
            else
                sql="SELECT count(*) FROM ts_outliers('SELECT v FROM bench_t', 3)"
            fi
            ms=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" best_ms "$sql")
            row=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -F' ' -c "$sql" -c "SELECT backend, coalesce(round(device_ms::numeric, 2)::text, '-'), coalesce(round(kernel_ms::numeric, 3)::text, '-'), coalesce(round(bandwidth_gbs::numeric)::text, '-') FROM ts_last_run()")
            count=$(echo "$row" | head -1)
            read -r used dms kms gbs <<<"$(echo "$row" | tail -1)"
            pct="-"
            if [ "$gbs" != "-" ] && [ -n "$bw" ]; then pct=$(awk -v a="$gbs" -v b="$bw" 'BEGIN{printf "%.0f%%", 100*a/b}'); fi
            echo "| 2^$e | $form | $used | $ms | $dms | $kms | $gbs | $pct | $plain | $count |"
        done
    done
    q -c "DROP TABLE IF EXISTS bench_t, bench_a" >/dev/null
done
