#!/usr/bin/env bash
# tsmine through Citus (issue #12): a coordinator and two workers on this
# host, against one node (the coordinator alone, on local tables), on the GPU
# when there is one (tsmine.backend = gpu on every node), else the CPU:
#   - one long series (n = 2^22, m = 100): ts_matrix_profile (rows, counted)
#     and ts_discords (top 1) on one node; through Citus the same from 16
#     tiles computed on the workers and merged (README's query), finished on
#     the coordinator;
#   - many series (1,000 of 2^16 points, m = 100): the top-3 discords of each,
#     LATERAL over a local table (one node) and over a distributed table.
# BACKEND=cpu|gpu overrides the choice.  Each time is the best of REPS (default 2) runs, in one session warmed up
# first (CUDA contexts started, Citus connections open); then the rows of
# Citus and of one node are compared (not timed).
#   SHORT=1 (the default without a GPU): 2^15 and 40 series of 2^12, m = 50.
# Several GPUs (issue 13): WORKERS=N (default 2) workers, and PIN=1 pins
# worker i to GPU i-1 (its tsmine.gpu_devices) while the coordinator, the
# one node, lists them all (0,1,..,N-1): the tiled profile on a GPU per worker
# against the single-node multi-GPU call.  LONG_EXP sets the long series'
# 2^LONG_EXP points; CASES (default 'profile discord many') the rows measured.
#   WORKERS=2 PIN=1 LONG_EXP=23 TILES=2 CASES=profile bash bench/citus.sh
# Citus comes from this PostgreSQL if it has it, else from CITUS_BUILD (a
# tarball written by `test/citus/lib.sh`'s citus_pack, see README: tsmine on
# Citus), else it is built from ../shared/deps.  Uses its own cluster (in
# /tmp, ports CITUS_PORT = 55440 .. 55442); tsmine must be installed (make
# install).  Prints a Markdown table.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
source test/citus/lib.sh
set +e

if ! citus_installed; then
    if [ -n "${CITUS_BUILD:-}" ]; then
        citus_install_tarball "$CITUS_BUILD" || { echo "could not install Citus from $CITUS_BUILD" >&2; exit 1; }
    else
        citus_install || { echo "no Citus: install it, or pass CITUS_BUILD (README: tsmine on Citus)" >&2; exit 1; }
    fi
fi

# BACKEND: gpu where nvidia-smi lists a GPU, else cpu
backend="${BACKEND:-$( (nvidia-smi -L 2>/dev/null | grep -q '^GPU') && echo gpu || echo cpu)}"
SHORT="${SHORT:-$([ "$backend" = cpu ] && echo 1)}"
if [ -n "$SHORT" ]; then LONG_EXP=${LONG_EXP:-15} MANY=40 MANY_EXP=12 M=50; else LONG_EXP=${LONG_EXP:-22} MANY=1000 MANY_EXP=16 M=100; fi
TILES="${TILES:-16}" REPS="${REPS:-2}" SLOTS=4 CASES="${CASES:-profile discord many}"
export CITUS_WORKERS="${WORKERS:-2}"
# every node alike; no more connections per worker than GPU slots, all kept
# open (a new backend would start a CUDA context in the timed call)
export CITUS_EXTRA_CONF="tsmine.backend = '$backend'
tsmine.gpu_busy = 'wait'
tsmine.max_gpu_backends = $SLOTS
citus.max_adaptive_executor_pool_size = $SLOTS
citus.max_cached_conns_per_worker = $SLOTS
shared_buffers = '1GB'
work_mem = '256MB'"
dir="$(mktemp -d /tmp/tsmine-citus-bench.XXXXXX)"
citus_cluster_start "$dir" "${CITUS_PORT:-55440}" || { echo "the Citus cluster did not start" >&2; exit 1; }
q() { psql -qAtX -v ON_ERROR_STOP=1 "$@"; }
pinned="every node: tsmine.gpu_devices unset"
if [ -n "${PIN:-}" ]; then  # worker i on GPU i-1; the coordinator (the one node) on all of them
    for ((i = 1; i <= CITUS_WORKERS; i++)); do
        q -p "${CITUS_PORTS[i]}" -c "LOAD 'tsmine'" -c "ALTER SYSTEM SET tsmine.gpu_devices = '$((i - 1))'" \
          -c 'SELECT pg_reload_conf()' >/dev/null || { echo "worker $i was not pinned" >&2; exit 1; }
    done
    q -c "LOAD 'tsmine'" -c "ALTER SYSTEM SET tsmine.gpu_devices = '$(seq -s, 0 $((CITUS_WORKERS - 1)))'" \
      -c 'SELECT pg_reload_conf()' >/dev/null || { echo "the coordinator was not given the GPUs" >&2; exit 1; }
    pinned="worker i pinned to GPU i-1; the one node (the coordinator) on GPUs $(seq -s, 0 $((CITUS_WORKERS - 1)))"
fi

# the long series (a local table and a reference table), its tiles (README's
# table: one shard per worker, as many tiles on each), many series (a local
# and a distributed table)
q >/dev/null <<SQL || { echo "the tables were not created" >&2; exit 1; }
CREATE TABLE long_local AS
SELECT array_agg(sin(i * 0.0007) + sin(i * 0.013) + ((i * 7919::bigint) % 1009) / 1500.0 ORDER BY i) AS a
FROM generate_series(1, (1 << $LONG_EXP)) i;
CREATE TABLE long_series (a float8[] NOT NULL);
SELECT create_reference_table('long_series');
INSERT INTO long_series SELECT a FROM long_local;
$(citus_profile_tiles_sql "$TILES")
CREATE TABLE many_local (id int PRIMARY KEY, a float8[] NOT NULL);
CREATE TABLE many (LIKE many_local INCLUDING ALL);
SELECT create_distributed_table('many', 'id');
SQL
if [[ " $CASES " == *" many "* ]]; then
    q >/dev/null <<SQL || { echo "the tables were not filled" >&2; exit 1; }
INSERT INTO many_local
SELECT id, (SELECT array_agg(sin(i * 0.01 * (1 + id % 7)) + ((i * 7919::bigint + id * 104729) % 1009) / 3000.0 ORDER BY i)
            FROM generate_series(1, (1 << $MANY_EXP)) i)
FROM generate_series(1, $MANY) id;
INSERT INTO many SELECT * FROM many_local;
SQL
fi

TILED="ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, $M, t.tile, $TILES))"
TILED_M="ts_matrix_profile_merge(ts_matrix_profile_tile(r.a, $M, t.tile, $TILES, exclusion_zone => $M))"
LONG_ONE="SELECT count(*) FROM long_local s, ts_matrix_profile(s.a, $M) p"
LONG_CITUS="SELECT count(*) FROM long_series s,
  ts_matrix_profile_from_tiles(s.a, (SELECT $TILED FROM profile_tiles t, long_series r)) p"
DISC_ONE="SELECT d.* FROM long_local s, ts_discords(s.a, $M, 1) d"
DISC_CITUS="SELECT d.* FROM long_series s, ts_discords_from_tiles(s.a, (SELECT $TILED_M FROM profile_tiles t, long_series r), 1) d"
MANY_ONE="SELECT count(*) FROM many_local s, LATERAL ts_discords(s.a, $M, 3) d"
MANY_CITUS="SELECT count(*) FROM many s, LATERAL ts_discords(s.a, $M, 3) d"
WARM="SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[]) UNION ALL
      SELECT count(*) FROM many s, LATERAL ts_outliers(s.a[1:10]) o"

# timed SQL: the best of REPS runs of SQL (ms, psql's \timing), in one session warmed up first
timed() {
    local reps=() i
    for ((i = 0; i < REPS; i++)); do reps+=(-c "$1"); done
    q -c "$WARM" -c '\timing on' "${reps[@]}" 2>&1 | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | sort -g | head -1
}

# same SQL_A SQL_B: 0 when the two give the same rows (else how many differ)
same() {
    q -c "CREATE TEMP TABLE a AS $1" -c "CREATE TEMP TABLE b AS $2" \
      -c 'SELECT count(*) FROM ((TABLE a EXCEPT ALL TABLE b) UNION ALL (TABLE b EXCEPT ALL TABLE a)) x'
}

row() {  # row CASE N SERIES QUERY ONE_SQL CITUS_SQL COMPARE_ONE COMPARE_CITUS
    local one citus diff
    one=$(timed "$5")
    citus=$(timed "$6")
    diff=$(same "$7" "$8")
    awk -v c="$1" -v n="$2" -v s="$3" -v f="$4" -v o="$one" -v k="$citus" -v d="$diff" -v m="$M" -v b="$backend" 'BEGIN {
        printf "| %s | %s | %s | %d | %s | %s | %.1f | %.1f | %.2f | %s |\n", c, n, s, m, f, b, o, k, (k > 0 ? o / k : 0), d }'
}

echo "device: $(q -c "SELECT string_agg(DISTINCT name, ', ') FROM ts_device_info()"); backend $backend;" \
     "Citus $(q -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), coordinator + $CITUS_WORKERS workers on this host ($pinned);" \
     "$TILES tiles (README's tiles table)"
echo
echo "| case | n | series | m | query | backend | one node ms | Citus ms | one node / Citus | rows that differ |"
echo "|---|---|---|---|---|---|---|---|---|---|"
case " $CASES " in *" profile "*)
    row "one long series" "2^$LONG_EXP" 1 "matrix profile (rows, counted)" "$LONG_ONE" "$LONG_CITUS" \
    "SELECT p.* FROM long_local s, ts_matrix_profile(s.a, $M) p" \
    "SELECT p.* FROM long_series s, ts_matrix_profile_from_tiles(s.a, (SELECT $TILED FROM profile_tiles t, long_series r)) p" ;;
esac
case " $CASES " in *" discord "*)
    row "one long series" "2^$LONG_EXP" 1 "top-1 discord" "$DISC_ONE" "$DISC_CITUS" "$DISC_ONE" "$DISC_CITUS" ;;
esac
case " $CASES " in *" many "*)
    row "many series" "2^$MANY_EXP" "$MANY" "top-3 discords of each" "$MANY_ONE" "$MANY_CITUS" \
    "SELECT s.id, d.* FROM many_local s, LATERAL ts_discords(s.a, $M, 3) d" \
    "SELECT s.id, d.* FROM many s, LATERAL ts_discords(s.a, $M, 3) d" ;;
esac
# STAGES=1: where the tiled profile's time goes (each the best of REPS, in a
# warmed-up session): tile 1 computed on worker 1 alone; the merge of every
# tile through Citus (the tiles on the workers, their merges shipped to the
# coordinator), kept in a table; the profile from that merge on the coordinator.
if [ -n "${STAGES:-}" ]; then
    tile_ms=$(WARM="SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[])" PGPORT="${CITUS_PORTS[1]}" \
              timed "SELECT cardinality(ts_matrix_profile_tile(a, $M, 1, $TILES)) FROM long_series")
    merge_ms=$(timed "DROP TABLE IF EXISTS merged; CREATE TABLE merged AS SELECT $TILED AS p FROM profile_tiles t, long_series r")
    finish_ms=$(timed "SELECT count(*) FROM long_local s, ts_matrix_profile_from_tiles(s.a, (SELECT p FROM merged)) p")
    echo "stages of the tiled profile (ms): tile 1 of $TILES alone on worker 1 $tile_ms;" \
         "every tile merged through Citus $merge_ms; the profile's rows from the merge on the coordinator $finish_ms"
fi
# where the workers' GPU work ran: each worker's backends that hold a GPU slot now (Citus keeps its connections open)
for ((i = 1; i <= CITUS_WORKERS; i++)); do
    echo "worker $i (tsmine.gpu_devices = '$(q -p "${CITUS_PORTS[i]}" -c "LOAD 'tsmine'" -c 'SHOW tsmine.gpu_devices')'):" \
         "$(q -p "${CITUS_PORTS[i]}" -c "SELECT coalesce(string_agg(format('GPU %s holds %s backends', device_id, backends), ', '), 'no GPU slot held')
                                         FROM ts_gpu_slots() WHERE backends > 0")"
done
exit 0
