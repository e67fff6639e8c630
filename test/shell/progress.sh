#!/usr/bin/env bash
# tsmine.progress: the NOTICEs a call sends to its own client, as psql shows
# them.  tsmine.progress = 0 reports from the start, so every call sends at
# least one (at its first check between chunks); the test compares their text
# with the numbers taken out, never their count, which depends on speed.  A
# call that cannot end on its own (a CPU matrix profile of 2^20 points on one
# thread) is watched until it reports a fraction done and a time left, however
# long that takes, then cancelled.  ts_progress() from another session:
# test/pgtap/progress.sql.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
set +e
[ -n "${PGHOST:-}" ] || tsm_start_cluster
export PGDATABASE=tsmine_progress
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $PGDATABASE" -c "CREATE DATABASE $PGDATABASE" >/dev/null 2>&1
psql -qX -c 'CREATE EXTENSION tsmine' -c 'SELECT setseed(0.3)' \
     -c 'CREATE TABLE walk AS SELECT array_agg(s ORDER BY i) AS a
         FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, 20000) i) w' >/dev/null

# notices SETTING SQL: the NOTICE lines of SQL on the CPU, one thread, every number as N
notices() {
    psql -qX -v ON_ERROR_STOP=1 -c "SET tsmine.backend = cpu" -c "SET tsmine.cpu_threads = 1" \
         ${1:+-c "SET tsmine.progress = $1"} -c "$2" 2>&1 >/dev/null \
        | grep '^NOTICE: ' | sed -E 's/[0-9]+(\.[0-9]+)?/N/g' | sort -u
}
# check NAME LINES REGEX: at least one line, every line matching REGEX
check() {
    local bad
    bad="$(grep -vE -- "$3" <<<"$2")"
    [ -n "$2" ] && [ -z "$bad" ] && tap_result 0 "$1" || tap_result 1 "$1" "lines:" "$2" "want every line to match /$3/"
}
fraction='(N% done after N s(, about N s left)?|running for N s)'

out="$(notices 0 'SELECT count(*) FROM ts_matrix_profile((SELECT a FROM walk), 100)')"
check 'ts_matrix_profile: the fraction done and the time left' "$out" \
      "^NOTICE:  ts_matrix_profile: $fraction \(on the cpu\)$"
out="$(notices 0 "SELECT count(*) FROM ts_discords((SELECT a FROM walk), 100, 3, method => 'pd3')")"
check 'ts_discords with pd3: the time left depends on the data' "$out" \
      '^NOTICE:  ts_discords: running for N s, the time left depends on the data \(pdN on the cpu\)$'
out="$(notices 0 "SELECT count(*) FROM ts_discords((SELECT a FROM walk), 100, 3, method => 'matrix_profile')")"
check 'ts_discords by the matrix profile: its fraction' "$out" \
      "^NOTICE:  ts_discords: $fraction \(matrix_profile on the cpu\)$"
out="$(notices 0 "SELECT count(*) FROM ts_motifs((SELECT a FROM walk), 100, 1, method => 'mk')")"
check 'ts_motifs with mk: the time left depends on the data' "$out" \
      '^NOTICE:  ts_motifs: running for N s, the time left depends on the data \(mk on the cpu\)$'
out="$(notices 0 'SELECT count(*) FROM ts_match((SELECT a FROM walk), (SELECT a[100:199] FROM walk), k => 5)')"
check 'ts_match: its fraction' "$out" "^NOTICE:  ts_match: $fraction \(on the cpu\)$"
out="$(notices 0 'SELECT count(*) FROM ts_outliers((SELECT a FROM walk), 3)')"
check 'ts_outliers: how long it has run' "$out" '^NOTICE:  ts_outliers: running for N s \(on the cpu\)$'
out="$(notices 0 "SELECT count(*) FROM ts_shapelets('SELECT i % 2, a[i * 100:i * 100 + 99] FROM walk, generate_series(1, 8) i', 5, 20)")"
check 'ts_shapelets: its fraction' "$out" "^NOTICE:  ts_shapelets: $fraction \(on the cpu\)$"
out="$(notices '' 'SELECT count(*) FROM ts_matrix_profile((SELECT a FROM walk), 100)')"
tap_is "$out" '' 'no NOTICE by default (tsmine.progress = -1)'

# a call that does not end on its own: its NOTICEs come while it runs, with a
# fraction and a time left once its sweep has started; then a cancel stops it
log=$(mktemp)
psql -qX -c 'SET tsmine.backend = cpu' -c 'SET tsmine.cpu_threads = 1' -c 'SET tsmine.progress = 0' \
     -c "CREATE TEMP TABLE big AS SELECT array_agg(random()) AS a FROM generate_series(1, 1 << 20)" \
     -c "SELECT count(*) FROM ts_matrix_profile((SELECT a FROM big), 100)" >"$log" 2>&1 &
client=$!
for _ in $(seq 6000); do  # at most 10 minutes: a guard against a hang, not a time bound
    grep -q '% done after .* s left' "$log" && break
    kill -0 "$client" 2>/dev/null || break  # it ended: the checks below say how
    sleep 0.1
done
out="$(grep '^NOTICE: ' "$log" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g' | sort -u)"
tap_like "$out" '^NOTICE:  ts_matrix_profile: N% done after N s, about N s left \(on the cpu\)$' \
    'a long call reports its fraction done and the time left while it runs'
check '... and only NOTICEs of that shape' "$out" "^NOTICE:  ts_matrix_profile: $fraction \(on the cpu\)$"
psql -qXAt -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND query LIKE 'SELECT count(*) FROM ts_matrix_profile(%'" >/dev/null
wait "$client"
tap_like "$(cat "$log")" '^ERROR:  canceling statement due to user request' 'a cancel stops it, NOTICEs on'
rm -f "$log"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $PGDATABASE" >/dev/null 2>&1
tap_done
