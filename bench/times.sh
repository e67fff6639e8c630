#!/usr/bin/env bash
# The timed query form against the value-only one (issue #11: within 10% at
# 2^24 rows).  A readings table bench_times(ts timestamptz, v float8) of 2^E
# rows, an index on ts; the same series read two ways by ts_outliers, whose
# own work is a few passes over the values, so reading the query is most of
# its time and the difference is what the times cost:
#   value-only  ts_outliers('SELECT v FROM bench_times ORDER BY ts', 3)
#   timed       ts_outliers(NULL::timestamptz, 'SELECT ts, v FROM bench_times ORDER BY ts', 3)
# (every timed form reads its query the same way, so this is what the times
# cost any of them).
#   bench/times.sh [log2 sizes...]      default: 24; REPS (default 5) runs per form, best shown
# JIT is off: on, it compiles the value-only form's projection (SELECT v of
# a two-column table) and not the timed form's, a cost of its own (seconds
# on a loaded machine) that would flatter the timed form.
# The two forms run in turns, REPS times each, in one session (after a
# warm-up call of each, not counted: the first call of a session starts the
# GPU context if any), so that a change of load on the machine falls on
# both; the table shows the best end-to-end time of each, the time reading
# the query (ts_last_run's input_ms) and timed / value-only.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
export PGOPTIONS="$PGOPTIONS -c jit=off"
sizes=("$@")
[ $# -gt 0 ] || sizes=(24)
reps=${REPS:-5}
echo "device: $DEVICE; backend: $backend; best of $reps"
echo
echo "| n | form | end-to-end ms | input ms | timed / value-only (end to end) | (input) |"
echo "|---|---|---|---|---|---|"

# PLAIN and TIMED in turns, $reps times each, in one session: prints the
# best "ms input_ms" of PLAIN, then of TIMED, on one line
best_of_both() {
    PGOPTIONS="$PGOPTIONS -c tsmine.backend=$backend" q -F' ' -c "
      SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[]);
      CREATE TEMP TABLE r (form int, ms float8, input float8);
      DO \$\$ DECLARE t0 timestamptz; BEGIN
        FOR i IN 0..$reps LOOP
          FOR f IN 1..2 LOOP
            t0 := clock_timestamp();
            EXECUTE CASE f WHEN 1 THEN \$q\$ $1 \$q\$ ELSE \$q\$ $2 \$q\$ END;
            IF i > 0 THEN  -- round 0 is the warm-up
              INSERT INTO r SELECT f, extract(epoch FROM clock_timestamp() - t0) * 1000, input_ms FROM ts_last_run();
            END IF;
          END LOOP;
        END LOOP; END \$\$;
      SELECT string_agg(concat_ws(' ', round(ms::numeric, 1), round(input::numeric, 1)), ' ' ORDER BY form)
      FROM (SELECT DISTINCT ON (form) form, ms, input FROM r ORDER BY form, ms) b;" | tail -1
}

for e in "${sizes[@]}"; do
    n=$((1 << e))
    echo "building bench_times with 2^$e rows" >&2
    q -c "DROP TABLE IF EXISTS bench_times;
          CREATE UNLOGGED TABLE bench_times AS
            SELECT timestamptz '2024-01-01 00:00+00' + i * interval '1 second' AS ts,
                   hashint8(i)::float8 / 4294967296 * 10 + CASE WHEN i % 10000 = 0 THEN 40 ELSE 0 END AS v
            FROM generate_series(1, $n) i;
          CREATE INDEX ON bench_times (ts);" -c "VACUUM ANALYZE bench_times" >/dev/null
    read -r ms0 in0 ms1 in1 <<<"$(best_of_both \
        "SELECT count(*) FROM ts_outliers('SELECT v FROM bench_times ORDER BY ts', 3)" \
        "SELECT count(*) FROM ts_outliers(NULL::timestamptz, 'SELECT ts, v FROM bench_times ORDER BY ts', 3)")"
    echo "| 2^$e | value-only | $ms0 | $in0 | | |"
    awk -v e=$e -v ms0=$ms0 -v in0=$in0 -v ms1=$ms1 -v in1=$in1 'BEGIN {
        printf "| 2^%d | timed | %s | %s | %.3f | %.3f |\n", e, ms1, in1, ms1 / ms0, in1 / in0 }'
done
q -c "DROP TABLE IF EXISTS bench_times" >/dev/null
