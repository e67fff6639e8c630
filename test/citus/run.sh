#!/usr/bin/env bash
# test/citus/run.sh — tsmine on a Citus cluster (TAP; scripts/test.sh runs it
# with prove): a coordinator and two workers on this machine, Citus built
# from ../shared/deps once (test/citus/lib.sh caches the build) and installed
# into the PostgreSQL of pg_config, tsmine created on the coordinator.
#   - pushdown: array forms in LATERAL, in subqueries, correlated subqueries,
#     INSERT ... SELECT and UPDATE run as one task per shard on the workers;
#   - many series: every array form gives the rows of one node;
#   - one long series: its tiles on the workers, merged (README's query),
#     equal ts_matrix_profile bit for bit; discords and motifs from them;
#   - a worker down, or killed during a call: a clear error, nothing written;
#   - a cancelled distributed call: the workers stop, the session goes on.
# Skipped (1..0 # SKIP) when Citus is neither installed nor buildable here.
# CITUS_PORT: the coordinator's port (default 54340; the workers the next two).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
source "$TSM_ROOT/test/citus/lib.sh"
set +e

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

# Citus into this PostgreSQL, unless it has it: from CITUS_BUILD (a tarball of
# citus_pack, for a host without ../shared/deps), else built from ../shared/deps
if ! citus_installed && [ -n "${CITUS_BUILD:-}" ]; then
    citus_install_tarball "$CITUS_BUILD" || skip_all "Citus could not be installed from $CITUS_BUILD"
fi
if ! citus_installed; then
    [ -f "$CITUS_TARBALL" ] || skip_all "Citus is not installed and there is no $CITUS_TARBALL to build it from"
    missing="$(citus_missing_build_deps | tr '\n' ' ')"
    if [ -n "${missing// /}" ]; then
        tsm_log "installing $missing(the headers Citus's build needs)"
        # shellcheck disable=SC2086
        { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
              --no-install-recommends $missing; } >/dev/null 2>&1 \
            || skip_all "Citus needs $missing to build, and they could not be installed"
    fi
    stage="$(citus_build)" || skip_all "Citus did not build here (its log is above)"
    citus_install "$stage" || skip_all "Citus could not be installed into $(tsm_pg_config --pkglibdir)"
fi

# The backend on every node alike (default auto; scripts/test.sh's
# TSMINE_BACKEND), so that Citus and the one node choose alike: no fall-back
# for want of a GPU slot (gpu_busy = wait), and no more connections per worker
# than slots, or tasks would wait for slots held by the query's own idle
# connections (README: tsmine on Citus).
export CITUS_EXTRA_CONF="tsmine.backend = '${TSMINE_BACKEND:-auto}'
tsmine.gpu_busy = 'wait'
citus.max_adaptive_executor_pool_size = 2"
unset PGOPTIONS

# The same series in a distributed table (series) and in a local table of the
# coordinator (series_local: one node); a long series as a reference table;
# README's tiles table (one shard per worker, as many tiles on each).
setup_tables() {
    q >/dev/null <<SQL || { echo "Bail out! the tables were not created"; exit 1; }
CREATE TABLE series_local (id int PRIMARY KEY, a float8[] NOT NULL, top float8);
INSERT INTO series_local
SELECT id, (SELECT array_agg(sin(i * 0.05 * (1 + id % 5)) + ((i * 7919 + id * 104729) % 1009) / 3000.0
                             + CASE WHEN i BETWEEN 300 + 37 * id AND 330 + 37 * id THEN 0.8 ELSE 0 END ORDER BY i)
            FROM generate_series(1, 3000) i)
FROM generate_series(1, 24) id;
CREATE TABLE series (LIKE series_local INCLUDING ALL);
SELECT create_distributed_table('series', 'id');
INSERT INTO series SELECT * FROM series_local;
CREATE TABLE discords (id int, rank int, pos bigint, distance float8, neighbor bigint);
SELECT create_distributed_table('discords', 'id', colocate_with => 'series');

CREATE TABLE long_series (a float8[] NOT NULL);
SELECT create_reference_table('long_series');
INSERT INTO long_series
SELECT array_agg(sin(i * 0.01) + ((i * 7919) % 1013) / 2000.0 + CASE WHEN i BETWEEN 5000 AND 5040 THEN 0.5 ELSE 0 END
                 ORDER BY i)
FROM generate_series(1, 20000) i;
$(citus_profile_tiles_sql 8)
SQL
}

test_pushdown() {
    local plan p
    for p in "${CITUS_PORTS[@]}"; do
        tap_is "$(q -p "$p" -c "SELECT extversion FROM pg_extension WHERE extname = 'tsmine'")" \
               "$(q -c "SELECT default_version FROM pg_available_extensions WHERE name = 'tsmine'")" \
               "tsmine, created on the coordinator, is on node $p"
    done
    plan="$(q -c 'EXPLAIN (COSTS OFF) SELECT s.id, d.* FROM series s, LATERAL ts_discords(s.a, 50, 2) d')"
    tap_like "$plan" 'Task Count: 32' 'LATERAL ts_discords over a distributed table: one task per shard'
    tap_like "$plan" "Node: host=.* port=($W1|$W2) " '... on the workers'
    tap_like "$plan" 'Function Scan on ts_discords d' '... each calling ts_discords there'
    plan="$(q -c 'EXPLAIN (COSTS OFF) SELECT * FROM (SELECT s.id, d.* FROM series s, LATERAL ts_motifs(s.a, 50) d) x
                  WHERE distance < 1 ORDER BY id')"
    tap_like "$plan" 'Task Count: 32' 'in a subquery too (IMMUTABLE): filtered on the workers'
    tap_unlike "$plan" 'Distributed Subplan' '... with no step on the coordinator'
    plan="$(q -c 'EXPLAIN (COSTS OFF) SELECT s.id, (SELECT max(distance) FROM ts_matrix_profile(s.a, 50)) FROM series s')"
    tap_like "$plan" 'Task Count: 32' 'a correlated subquery over ts_matrix_profile is pushed down'
    plan="$(q -c 'EXPLAIN (COSTS OFF) INSERT INTO discords SELECT s.id, d.* FROM series s, LATERAL ts_discords(s.a, 50, 2) d')"
    tap_like "$plan" 'Insert on discords_' 'INSERT ... SELECT writes on the workers'
    tap_unlike "$plan" 'repartition|pull to coordinator' '... without a trip through the coordinator'
    tap_is "$(q -c 'UPDATE series SET top = (SELECT max(distance) FROM ts_matrix_profile(a, 50))' \
                -c 'UPDATE series_local SET top = (SELECT max(distance) FROM ts_matrix_profile(a, 50))' \
                -c 'SELECT count(*) FROM series s JOIN series_local l USING (id) WHERE s.top IS NOT DISTINCT FROM l.top')" \
           24 'UPDATE ... SET = (SELECT ... ts_matrix_profile(column)) runs on the workers, as on one node'
}

# same_rows NAME SELECT: the SELECT (its table written @T@) over the
# distributed table gives the rows it gives over the local one, not none
same_rows() {
    local got
    got="$(q -c "CREATE TEMP TABLE c AS ${2//@T@/series}" -c "CREATE TEMP TABLE o AS ${2//@T@/series_local}" \
             -c 'SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM ((TABLE c EXCEPT ALL TABLE o)
                                                                         UNION ALL (TABLE o EXCEPT ALL TABLE c)) x)')"
    tap_like "$got" '^[1-9][0-9]*\|0$' "$1: Citus gives the rows of one node (rows|differences: $got)"
}

test_many_series() {
    same_rows 'ts_discords' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_discords(s.a, 50, 3) d'
    same_rows 'ts_discords, range, pd3' "SELECT s.id, d.* FROM @T@ s, LATERAL ts_discords(s.a, 50, NULL, 1.0, method => 'pd3') d"
    same_rows 'ts_motifs' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_motifs(s.a, 50, 2) d'
    same_rows 'ts_motifs, mk' "SELECT s.id, d.* FROM @T@ s, LATERAL ts_motifs(s.a, 40, 1, method => 'mk') d"
    same_rows 'ts_match' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_match(s.a, s.a[500:549], k => 4) d'
    same_rows 'ts_outliers' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_outliers(s.a, 2.5) d'
    same_rows "ts_outliers, mad" "SELECT s.id, d.* FROM @T@ s, LATERAL ts_outliers(s.a, 1.2, 'mad') d"
    same_rows 'ts_matrix_profile' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_matrix_profile(s.a, 50) d'
    same_rows 'ts_matrix_profile_arrays' 'SELECT s.id, d.* FROM @T@ s, LATERAL ts_matrix_profile_arrays(s.a, 64) d'
}

# README's query: the profile of a long series from its tiles, computed on the
# workers and merged there and on the coordinator, which finishes it
PROFILE_FROM_TILES="SELECT p.*
FROM long_series s,
     ts_matrix_profile_from_tiles(s.a, (SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, 50, t.tile, 8))
                                        FROM profile_tiles t, long_series r)) p"

test_long_series() {
    local plan got
    tap_is "$(q -c "SELECT string_agg(n::text, ',') FROM (SELECT count(*) n FROM profile_tiles t JOIN pg_dist_placement p
                    ON p.shardid = get_shard_id_for_distribution_column('profile_tiles', t.slot) GROUP BY p.groupid) x")" \
           '4,4' 'the tiles table puts 4 of the 8 tiles on each worker'
    plan="$(q -c 'SET citus.explain_all_tasks = on' -c 'EXPLAIN (COSTS OFF, VERBOSE)
                  SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, 50, t.tile, 8)) FROM profile_tiles t, long_series r')"
    tap_like "$plan" "port=$W1 " 'the tiles are computed on worker 1'
    tap_like "$plan" "port=$W2 " '... and on worker 2'
    tap_like "$plan" 'worker_partial_agg.*ts_matrix_profile_tile' '... and merged there before the coordinator merges'
    got="$(q -c "CREATE TEMP TABLE tiled AS $PROFILE_FROM_TILES" \
             -c 'CREATE TEMP TABLE single AS SELECT p.* FROM long_series s, ts_matrix_profile(s.a, 50) p' \
             -c 'SELECT count(*), count(*) FILTER (WHERE t.neighbor IS DISTINCT FROM o.neighbor
                                                   OR t.distance IS DISTINCT FROM o.distance)
                 FROM tiled t FULL JOIN single o USING (pos)')"
    tap_is "$got" '19951|0' 'one long series: the merged tiles equal ts_matrix_profile bit for bit (rows|differences)'
    got="$(q -c 'CREATE TEMP TABLE merged AS
                 SELECT ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, 50, t.tile, 8, exclusion_zone => 50)) AS p
                 FROM profile_tiles t, long_series r' \
             -c 'CREATE TEMP TABLE a AS SELECT d.* FROM long_series s, merged, ts_discords_from_tiles(s.a, p, 3) d' \
             -c 'CREATE TEMP TABLE b AS SELECT d.* FROM long_series s, ts_discords(s.a, 50, 3) d' \
             -c 'CREATE TEMP TABLE c AS SELECT d.* FROM long_series s, merged, ts_motifs_from_tiles(s.a, p, 2) d' \
             -c 'CREATE TEMP TABLE e AS SELECT d.* FROM long_series s, ts_motifs(s.a, 50, 2) d' \
             -c 'SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM ((TABLE a EXCEPT ALL TABLE b)
                                                                          UNION ALL (TABLE b EXCEPT ALL TABLE a)) x),
                        (SELECT count(*) FROM c), (SELECT count(*) FROM ((TABLE c EXCEPT ALL TABLE e)
                                                                          UNION ALL (TABLE e EXCEPT ALL TABLE c)) x),
                        (SELECT pos BETWEEN 4951 AND 5040 FROM a WHERE rank = 1)')"
    tap_is "$got" '3|0|2|0|t' 'its discords (the planted one first) and motifs from the merged tiles are those of ts_discords and ts_motifs'
    got="$(q -c 'BEGIN' -c 'DELETE FROM profile_tiles WHERE tile = 3' -c "$PROFILE_FROM_TILES" 2>&1)"
    tap_like "$got" 'the merged tiles lack 1 of the 8 tiles: 3' 'a tile missing from the tiles table: an error names it'
}

# wait_until PORT SQL: polls (up to 60 s) until SQL on node PORT returns t
wait_until() {
    local i
    for ((i = 0; i < 300; i++)); do
        [ "$(q -p "$1" -c "$2")" = t ] && return 0
        sleep 0.2
    done
    return 1
}
RUNNING="SELECT count(*) > 0 FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE"

test_worker_down() {
    local got
    citus_node_stop "$W2"
    got="$(q -c 'SELECT count(*) FROM series s, LATERAL ts_discords(s.a, 50, 1) d')"
    tap_like "$got" "connection to the remote node .*$W2.* failed" 'a worker down: an error names the worker'
    got="$(q -c 'INSERT INTO discords SELECT s.id, d.* FROM series s, LATERAL ts_discords(s.a, 50, 2) d')"
    tap_like "$got" "connection to the remote node .*$W2.* failed" '... for an INSERT ... SELECT too'
    got="$(q -c "$PROFILE_FROM_TILES")"
    tap_like "$got" "connection to the remote node .*$W2.* failed" '... and for the tiles of a long series'
    citus_node_start "$W2"
    tap_is "$(q -c 'SELECT count(*) FROM discords')" 0 'the worker back: the INSERT wrote nothing'
    tap_is "$(q -c 'INSERT INTO discords SELECT s.id, d.* FROM series s, LATERAL ts_discords(s.a, 50, 2) d' \
                -c 'SELECT count(*) FROM discords' -c 'TRUNCATE discords')" 48 '... and runs again'
}

# A worker killed while it computes its part of an INSERT ... SELECT (the
# other worker has written its part by then): an error, nothing written.
# The long part runs on the CPU on every host (SET LOCAL, propagated to the
# workers), so that it lasts until the worker is seen at it and killed.
test_worker_killed() {
    local id out bg
    id="$(q -c "SELECT v FROM generate_series(1000, 9999) v JOIN pg_dist_shard_placement p
                ON p.shardid = get_shard_id_for_distribution_column('series', v) WHERE p.nodeport = $W2 LIMIT 1")"
    q -c "INSERT INTO series SELECT $id, array_agg(sin(i * 0.001) + (i * 7919::bigint % 1013) / 2000.0 ORDER BY i)
          FROM generate_series(1, 300000) i" >/dev/null || { echo "Bail out! no long series on worker 2 (id $id)"; exit 1; }
    out="$(mktemp)"
    q -c "SET citus.propagate_set_commands = 'local'" -c 'BEGIN' -c "SET LOCAL tsmine.backend = 'cpu'" \
      -c 'INSERT INTO discords SELECT s.id, d.* FROM series s, LATERAL ts_discords(s.a, 64, 1) d' -c 'COMMIT' >"$out" &
    bg=$!
    wait_until "$W2" "$RUNNING '%ts_discords%'" && citus_node_stop "$W2"
    wait "$bg"
    tap_like "$(cat "$out")" 'ERROR|connection|terminat' 'a worker killed during an INSERT ... SELECT: the statement fails'
    citus_node_start "$W2"
    tap_is "$(q -c 'SELECT count(*) FROM discords')" 0 '... and nothing of it is written, on either worker'
    q -c "DELETE FROM series WHERE id = $id" >/dev/null
    rm -f "$out"
}

# pg_cancel_backend on the coordinator while both workers compute tiles (on
# the CPU, as above): the call ends with 57014, the workers stop, the session
# goes on.
test_cancel() {
    local out bg
    q -c 'CREATE TABLE big_series (a float8[] NOT NULL)' -c "SELECT create_reference_table('big_series')" \
      -c 'INSERT INTO big_series SELECT array_agg(sin(i * 0.001) + (i * 7919::bigint % 1013) / 2000.0 ORDER BY i)
          FROM generate_series(1, 300000) i' >/dev/null || { echo "Bail out! no long series for the cancel"; exit 1; }
    out="$(mktemp)"
    psql -AtX -c "SET application_name = 'tsmine_cancel'" -c "SET citus.propagate_set_commands = 'local'" \
         -c 'BEGIN' -c "SET LOCAL tsmine.backend = 'cpu'" \
         -c 'SELECT cardinality(ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, 64, t.tile, 8)))
             FROM profile_tiles t, big_series r' -c 'ROLLBACK' \
         -c "SELECT 'after', count(*) FROM series s, LATERAL ts_discords(s.a, 50, 1) d" >"$out" 2>&1 &
    bg=$!
    wait_until "$W1" "$RUNNING '%ts_matrix_profile_tile%'" && wait_until "$W2" "$RUNNING '%ts_matrix_profile_tile%'" \
        && q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'tsmine_cancel'" >/dev/null
    wait "$bg"
    tap_like "$(cat "$out")" 'canceling statement due to user request' 'a distributed call cancelled on the coordinator ends with a cancel'
    tap_ok 'worker 1 stops computing its tiles' wait_until "$W1" "SELECT NOT ($RUNNING '%ts_matrix_profile_tile%')"
    tap_ok 'worker 2 too' wait_until "$W2" "SELECT NOT ($RUNNING '%ts_matrix_profile_tile%')"
    tap_like "$(cat "$out")" '^after\|24$' 'the session goes on: its next distributed call runs'
    rm -f "$out"
}

dir="$(mktemp -d /tmp/tsmine-citus.XXXXXX)"
citus_cluster_start "$dir" "${CITUS_PORT:-54340}" || { echo "Bail out! the Citus cluster did not start"; exit 1; }
W1="${CITUS_PORTS[1]}" W2="${CITUS_PORTS[2]}"
q() { psql -qAtX -v ON_ERROR_STOP=1 "$@" 2>&1; }

for step in setup_tables test_pushdown test_many_series test_long_series test_worker_down test_worker_killed test_cancel; do
    t0=$SECONDS
    "$step"
    echo "# $step: $((SECONDS - t0)) s"
done
tap_done
