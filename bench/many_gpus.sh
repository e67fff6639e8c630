#!/usr/bin/env bash
# Many series over several GPUs (issue 13): SERIES series (default 1,000) of
# 2^EXP points (default 16), the top-3 discords of each (m = 100) by
# `LATERAL ts_discords`, from SESSIONS concurrent sessions (default 8), each
# taking every SESSIONS-th series, with tsmine.gpu_devices set to each list in
# LISTS (default '0' and then '0,1', '0,1,2,3', ... as far as the machine has
# GPUs).  Every session starts its CUDA context first, then all begin at one
# instant (pg_sleep_until); the time is from that instant to the last
# session's end.  Prints a Markdown row per list: series/s, the speed-up over
# the first list, how the sessions spread over the GPUs (ts_gpu_slots: the
# GPUs a session holds a slot of x sessions; a series shorter than
# tsmine.gpu_split_min_length runs on its session's GPU alone), and whether
# the rows equal the first list's.
#   LISTS='0 0,1' SESSIONS=8 bash bench/many_gpus.sh
# Needs a running server (PG* variables) with tsmine installed and a GPU;
# tsmine.max_gpu_backends is set to SESSIONS for the runs (a superuser's
# setting), so that one GPU can hold every session.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
if [ "$HAS_GPU" != t ]; then echo "no GPU: nothing to measure"; exit 0; fi
SERIES=${SERIES:-1000} EXP=${EXP:-16} SESSIONS=${SESSIONS:-8} M=${M:-100}
gpus=$(q -c "SELECT count(*) FROM ts_gpu_slots()")
if [ -z "${LISTS:-}" ]; then
  LISTS=0
  for k in 2 4 8; do [ "$k" -le "$gpus" ] && LISTS="$LISTS $(seq -s, 0 $((k - 1)))"; done
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# the series (citus.sh's): written by SESSIONS sessions at once
q -c "DROP TABLE IF EXISTS bench_many_gpus; CREATE UNLOGGED TABLE bench_many_gpus (id int PRIMARY KEY, a float8[] NOT NULL)"
for ((k = 0; k < SESSIONS; k++)); do
  q -c "INSERT INTO bench_many_gpus
        SELECT id, (SELECT array_agg(sin(i * 0.01 * (1 + id % 7)) + ((i * 7919::bigint + id * 104729) % 1009) / 3000.0 ORDER BY i)
                    FROM generate_series(1, (1 << $EXP)) i)
        FROM generate_series(1, $SERIES) id WHERE id % $SESSIONS = $k" &
done
wait
q -c "ANALYZE bench_many_gpus"

echo
echo "| series | points | m | sessions | tsmine.gpu_devices | s | series/s | speed-up | sessions per GPU (ordinal x sessions) | rows = first list's |"
echo "|---|---|---|---|---|---|---|---|---|---|"
first_s='' first_list=''
for list in $LISTS; do
  tag=${list//,/_}
  q -c "DROP TABLE IF EXISTS bench_many_gpus_$tag; CREATE UNLOGGED TABLE bench_many_gpus_$tag (id int, pos bigint, distance float8, neighbor bigint)"
  start=$(q -c "SELECT (clock_timestamp() + interval '20 seconds')::text")
  for ((k = 0; k < SESSIONS; k++)); do
    PGOPTIONS="$PGOPTIONS -c tsmine.backend=gpu -c tsmine.gpu_devices=$list -c tsmine.max_gpu_backends=$SESSIONS -c tsmine.gpu_busy=wait" q -F' ' \
      -c "SELECT count(*) FROM ts_outliers(ARRAY[1, 2, 3]::float8[])" \
      -c "SELECT CASE WHEN clock_timestamp() < '$start' THEN 'ready' ELSE 'late' END, pg_sleep_until('$start')" \
      -c "INSERT INTO bench_many_gpus_$tag SELECT s.id, d.pos, d.distance, d.neighbor
          FROM bench_many_gpus s, LATERAL ts_discords(s.a, $M, 3) d WHERE s.id % $SESSIONS = $k" \
      -c "SELECT extract(epoch FROM clock_timestamp() - '$start'::timestamptz),
                 (SELECT string_agg(device_id::text, '+' ORDER BY device_id) FROM ts_gpu_slots() WHERE held_slot IS NOT NULL)" >"$dir/$tag.$k" &
  done
  wait
  if grep -q '^late' "$dir/$tag".*; then echo "a session started its GPU context after the common start: the time below includes it" >&2; fi
  secs=$(cat "$dir/$tag".* | tail -n 1 -q | awk '{print $1}' | sort -g | tail -1)
  spread=$(for f in "$dir/$tag".*; do tail -1 "$f" | awk '{print $2}'; done | sort -n | uniq -c | awk '{printf "%s%sx%s", sep, $2, $1; sep=" "}')
  [ -n "$first_s" ] || { first_s=$secs; first_list=$tag; }
  diff=$(q -c "SELECT count(*) FROM ((TABLE bench_many_gpus_$tag EXCEPT ALL TABLE bench_many_gpus_$first_list)
                UNION ALL (TABLE bench_many_gpus_$first_list EXCEPT ALL TABLE bench_many_gpus_$tag)) x")
  rows=$(q -c "SELECT count(*) FROM bench_many_gpus_$tag")
  same=yes; [ "$diff" = 0 ] || same="NO ($diff differ)"
  awk -v s=$SERIES -v e=$EXP -v m=$M -v c=$SESSIONS -v l="$list" -v t=$secs -v f=$first_s -v sp="$spread" -v same="$same ($rows rows)" 'BEGIN {
    printf "| %d | 2^%d | %d | %d | %s | %.2f | %.0f | %.2fx | %s | %s |\n", s, e, m, c, l, t, s / t, f / t, sp, same }'
done
for list in $LISTS; do q -c "DROP TABLE IF EXISTS bench_many_gpus_${list//,/_}"; done
q -c "DROP TABLE bench_many_gpus"
