# bench/lib.sh — shared by the benchmark scripts: psql helpers and timing.
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
q -c "CREATE EXTENSION IF NOT EXISTS tsmine" >/dev/null
HAS_GPU=$(q -c "SELECT count(*) > 0 FROM ts_device_info() WHERE kind = 'gpu'")
DEVICE=$(q -c "SELECT string_agg(name, ', ') FROM ts_device_info()")
backend=cpu; [ "$HAS_GPU" = t ] && backend=gpu   # the backend the scripts measure
shared=${TSMINE_SHARED:-../shared}
# run_timed BACKEND REPS SQL: runs SQL REPS times in one session (the first
# call of a session pays the CUDA context start; it is not counted) and
# prints "best_ms device_ms kernel_ms" of the best run, server-side times.
run_timed() {
    local backend=$1 reps=$2 sql=$3
    PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -F' ' -c "
      SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[]);  -- starts the GPU context, if any
      CREATE TEMP TABLE r (ms float8, dev float8, ker float8);
      DO \$\$ DECLARE t0 timestamptz; BEGIN
        FOR i IN 1..$reps LOOP
          t0 := clock_timestamp();
          EXECUTE \$q\$ $sql \$q\$;
          INSERT INTO r SELECT extract(epoch FROM clock_timestamp() - t0) * 1000, device_ms, kernel_ms FROM ts_last_run();
        END LOOP; END \$\$;
      SELECT round(ms::numeric, 1), coalesce(round(dev::numeric, 1)::text, '-'), coalesce(round(ker::numeric, 1)::text, '-')
      FROM r ORDER BY ms LIMIT 1;" | tail -1
}
