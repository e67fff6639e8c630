#!/usr/bin/env bash
# One series' matrix profile split over several GPUs (tsmine.gpu_devices;
# issue 12, measured by issue 13): ts_matrix_profile_arrays end to end through
# SQL, n = 2^SIZES (default 22 23), m = 100, on each list of GPUs in LISTS
# (space-separated; default '0' and then '0,1', '0,1,2,3', ... as far as the
# machine has GPUs, or '0,0' on one GPU), REPS timed runs each (default 1,
# the best is kept) after one run that fingerprints the profile (md5 of its
# arrays as text): the speed-up over the first list, and whether the profile
# is the first list's, bit for bit.  pairs/s counts n^2/2 pairs.
#   LISTS='0 0,1 0,1,2,3' SIZES='22 23' bash bench/multi_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
echo "device: $DEVICE"
if [ "$HAS_GPU" != t ]; then echo "no GPU: nothing to measure"; exit 0; fi
gpus=$(q -c "SELECT count(*) FROM ts_gpu_slots()")
if [ -z "${LISTS:-}" ]; then
  LISTS=0; [ "$gpus" -eq 1 ] && LISTS="0 0,0"
  for k in 2 4 8; do [ "$k" -le "$gpus" ] && LISTS="$LISTS $(seq -s, 0 $((k - 1)))"; done
fi
echo
echo "| n | m | tsmine.gpu_devices | end-to-end ms | device ms | pairs/s (end to end) | speed-up | profile = first list's |"
echo "|---|---|---|---|---|---|---|---|"
for e in ${SIZES:-22 23}; do
  n=$((1 << e))
  q -c "DROP TABLE IF EXISTS bench_mgpu; SELECT setseed(0.5);
        CREATE TABLE bench_mgpu AS SELECT array_agg(s ORDER BY i) AS a FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS s FROM generate_series(1, $n) i) w" >/dev/null
  first_ms='' first_md5=''
  for list in $LISTS; do
    md5=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=gpu -c tsmine.gpu_devices=$list" q -c \
      "SELECT md5(distance::text || neighbor::text) FROM ts_matrix_profile_arrays((SELECT a FROM bench_mgpu), 100)")
    read -r ms dev _ <<<"$(PGOPTIONS="$PGOPTIONS -c tsmine.gpu_devices=$list" run_timed gpu "${REPS:-1}" \
      "SELECT cardinality(distance) FROM ts_matrix_profile_arrays((SELECT a FROM bench_mgpu), 100)")"
    [ -n "$first_ms" ] || { first_ms=$ms; first_md5=$md5; }
    same=yes; [ "$md5" = "$first_md5" ] || same=NO
    awk -v n=$n -v e=$e -v l="$list" -v ms=$ms -v dev=$dev -v f=$first_ms -v same=$same 'BEGIN {
      printf "| 2^%d | 100 | %s | %s | %s | %.3g | %.2fx | %s |\n", e, l, ms, dev, n * n / 2.0 / (ms / 1000), f / ms, same }'
  done
done
q -c "DROP TABLE IF EXISTS bench_mgpu" >/dev/null
