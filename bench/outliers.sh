#!/usr/bin/env bash
# Benchmark of ts_outliers (issue: foundation §6).  Run where tsmine is
# installed and a server is reachable (PGHOST etc.), on the GPU host:
#   bench/outliers.sh [log2 sizes...]     default: 20 24 28 (best of 3 up to 2^24, one run above)
# For each n: the array form and the query form end to end through SQL, the
# device part alone (ts_last_run: transfers + kernels, kernels alone, achieved
# bandwidth), and the plain-SQL equivalent (avg/stddev_pop, then a filter).
# Prints a Markdown table, then notes (table creation times); progress on
# stderr.  Per size: the table, the forms, then the plain SQL.
#
# The data: a table bench_t(i, v) of n rows, v a deterministic function of i
# (uniform noise in [-5, 5) from hashint8(i), plus 40 where i % 10000 = 0), so
# the outliers are exactly the rows i = 10000, 20000, ... and every run, on
# every machine, has the same values.  For speed the table is partitioned by
# ranges of i into unlogged slices that parallel sessions fill at once.  Each
# slice is written by one session, in i order, so its physical order is i
# order, and a plain scan of bench_t reads the slices in partition order
# (range partitions are scanned in bound order; synchronized scans, which may
# start a scan mid-table, are turned off): the query form in physical order
# ('SELECT v FROM bench_t', no ORDER BY) therefore reads the series in i
# order, and position = i.  The bench checks it: the column "positions" says
# whether every outlier found is at a position that is a multiple of 10,000.
#
# Forms: array (the same values by array_agg over generate_series, stored in
# a table; an array holds at
# most 1 GB, so only up to 2^26 values), query (ORDER BY i through an index,
# up to 2^24), query-scan (physical order, as plain SQL reads the table).
# Above 2^24, only the backend in use (GPU when there is one).  Each form runs
# in its own session after a warm-up call (the first call of a session starts
# the GPU context and loads the kernels); the row shows the fastest run.
set -euo pipefail
sizes=("$@")
[ $# -gt 0 ] || sizes=(20 24 28)
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning -c synchronize_seqscans=off"
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION IF NOT EXISTS tsmine" >/dev/null
bw=$(q -c "SELECT round(max(memory_bandwidth_gbs)) FROM ts_device_info()")
dev=$(q -c "SELECT string_agg(name, ', ') FROM ts_device_info()")
backends=(cpu)
[ "$(q -c "SELECT count(*) FROM ts_device_info() WHERE kind = 'gpu'")" -gt 0 ] && backends=(gpu cpu)
jobs=$(nproc 2>/dev/null || echo 4)
[ "$jobs" -le 16 ] || jobs=16
notes=()
# the value of row i
val="hashint8(i)::float8 / 4294967296 * 10 + CASE WHEN i % 10000 = 0 THEN 40 ELSE 0 END"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}'; }

# make_table E: bench_t with 2^E rows, in slices filled by parallel sessions.
make_table() {
    local e=$1 n=$((1 << $1)) slices=1 t0
    [ "$e" -lt 20 ] || slices=$jobs
    t0=$(now)
    q -c "DROP TABLE IF EXISTS bench_t, bench_a" >/dev/null
    {
        echo "CREATE TABLE bench_t (i bigint NOT NULL, v float8 NOT NULL) PARTITION BY RANGE (i);"
        for ((s = 0; s < slices; s++)); do
            echo "CREATE UNLOGGED TABLE bench_t_$s PARTITION OF bench_t
                  FOR VALUES FROM ($((n / slices * s + 1))) TO ($((s == slices - 1 ? n + 1 : n / slices * (s + 1) + 1)));"
        done
    } | q >/dev/null
    local pids=()
    for ((s = 0; s < slices; s++)); do
        local lo=$((n / slices * s + 1)) hi=$((s == slices - 1 ? n : n / slices * (s + 1)))
        q -c "INSERT INTO bench_t_$s SELECT i, $val FROM generate_series($lo::bigint, $hi) i" -c "VACUUM bench_t_$s" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    [ "$e" -gt 24 ] || q -c "CREATE INDEX ON bench_t (i)" >/dev/null
    q -c "ANALYZE bench_t" >/dev/null
    notes+=("2^$e: table of $n rows created in $(since "$t0") s ($slices parallel slices, VACUUM and ANALYZE included$([ "$e" -gt 24 ] || echo ", index on i"))")
}

# measure BACKEND REPS SQL: "ms backend device_ms kernel_ms GB/s count bad" of the
# fastest of REPS runs of SQL (which returns the count and the number of
# positions that are not multiples of 10,000), in one session after a warm-up.
measure() {
    PGOPTIONS="$PGOPTIONS -c tsmine.backend=$1" q -F' ' -c "SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[])" -c "
      DO \$\$ DECLARE t0 timestamptz; ms float8; c bigint; bad bigint; best float8 := 'Infinity'; BEGIN
        FOR r IN 1..$2 LOOP
          t0 := clock_timestamp();
          EXECUTE \$q\$ $3 \$q\$ INTO c, bad;
          ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
          IF ms < best THEN
            best := ms;
            PERFORM set_config('bench.row', (SELECT concat_ws(' ', round(ms::numeric, 1), backend,
                coalesce(round(device_ms::numeric, 2)::text, '-'), coalesce(round(kernel_ms::numeric, 3)::text, '-'),
                coalesce(round(bandwidth_gbs::numeric)::text, '-'), c, bad) FROM ts_last_run()), false);
          END IF;
        END LOOP; END \$\$;" -c "SELECT current_setting('bench.row')" | tail -1
}
# best_ms REPS SQL: the fastest of REPS runs of SQL, in ms, measured in the server.
best_ms() {
    q -c "DO \$\$ DECLARE t0 timestamptz; best float8 := 'Infinity'; BEGIN
      FOR r IN 1..$1 LOOP t0 := clock_timestamp(); EXECUTE \$q\$ $2 \$q\$;
        best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000); END LOOP;
      PERFORM set_config('bench.best', best::text, false); END \$\$;" -c "SELECT round(current_setting('bench.best')::numeric, 1)" | tail -1
}

echo "device: $dev (theoretical memory bandwidth ${bw:-?} GB/s)"
echo
echo "| n | form | backend | end-to-end ms | device ms (H2D + kernels) | kernels ms | kernel bandwidth GB/s | % of peak | plain SQL ms | outliers | positions |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for e in "${sizes[@]}"; do
    n=$((1 << e))
    reps=3; [ "$e" -le 24 ] || reps=1
    make_table "$e"
    echo "${notes[-1]}" >&2  # progress, on stderr
    bl=("${backends[@]}"); [ "$e" -le 24 ] || bl=("${backends[0]}")
    forms=(array query query-scan)
    [ "$e" -le 24 ] || forms=(array query-scan)
    rows=()  # the forms first, then the plain SQL (its time goes in every row)
    for backend in "${bl[@]}"; do
        for form in "${forms[@]}"; do
            if [ "$form" = array ] && [ "$e" -gt 26 ]; then
                rows+=("| 2^$e | array | - | - | - | - | - | - | PLAIN | - | not run: an array holds at most 1 GB (fewer than 2^27 float8 values); the query form reads any length |")
                continue
            fi
            case $form in
            array)
                # the same values, aggregated in generate_series order (no sort)
                q -c "CREATE UNLOGGED TABLE IF NOT EXISTS bench_a AS SELECT array_agg($val) AS a FROM generate_series(1::bigint, $n) i" >/dev/null
                src="(SELECT a FROM bench_a)" ;;
            query) src="'SELECT v FROM bench_t ORDER BY i'" ;;
            query-scan) src="'SELECT v FROM bench_t'" ;;
            esac
            read -r ms used dms kms gbs count bad <<<"$(measure "$backend" $reps "SELECT count(*), count(*) FILTER (WHERE pos % 10000 <> 0) FROM ts_outliers($src, 3)")"
            pct="-"
            if [ "$gbs" != "-" ] && [ -n "$bw" ]; then pct=$(awk -v a="$gbs" -v b="$bw" 'BEGIN{printf "%.0f%%", 100*a/b}'); fi
            pos="ok"
            [ "$bad" = 0 ] && [ "$count" = $((n / 10000)) ] || pos="WRONG ($bad not multiples of 10000, $((n / 10000)) expected)"
            rows+=("| 2^$e | $form | $used | $ms | $dms | $kms | $gbs | $pct | PLAIN | $count | $pos |")
            echo "${rows[-1]}" >&2
        done
    done
    q -c "DROP TABLE IF EXISTS bench_a" >/dev/null
    plain=$(best_ms $reps "SELECT count(*) FROM bench_t, (SELECT avg(v) m, stddev_pop(v) sd FROM bench_t) s WHERE abs(v - m) > 3 * sd")
    echo "2^$e plain SQL: $plain ms" >&2
    for row in "${rows[@]}"; do echo "${row/PLAIN/$plain}"; done
    q -c "DROP TABLE IF EXISTS bench_t, bench_a" >/dev/null
done
echo
for note in "${notes[@]}"; do echo "- $note"; done
