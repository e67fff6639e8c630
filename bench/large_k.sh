#!/usr/bin/env bash
# bench/large_k.sh — huge k against the profile's own cost: on a 16,384-point
# random walk (seeded), m = 16, the matrix profile alone, then ts_motifs with
# k = 100000 from the profile, ts_discords with k = 2^31 − 1 (the profile,
# and pd3), and ts_match with k = 2^31 − 1; server-side ms (best of REPS,
# default 3), on the CPU and, where there is one, the GPU.
#   bench/large_k.sh            N=16384 REPS=3
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
n=${N:-16384}
reps=${REPS:-3}
q -c "SELECT setseed(0.16);
  DROP TABLE IF EXISTS tsm_large_k;
  CREATE TABLE tsm_large_k AS SELECT array_agg(v ORDER BY i) AS a
    FROM (SELECT i, sum(random() - 0.5) OVER (ORDER BY i) AS v FROM generate_series(1, $n) i) w;" >/dev/null
s="(SELECT a FROM tsm_large_k)"
calls=(
  "ts_matrix_profile_arrays(s, 16)|SELECT cardinality(distance) FROM ts_matrix_profile_arrays($s, 16)"
  "ts_motifs(s, 16, 100000, method => 'matrix_profile')|SELECT count(*) FROM ts_motifs($s, 16, 100000, method => 'matrix_profile')"
  "ts_discords(s, 16, 2^31 − 1)|SELECT count(*) FROM ts_discords($s, 16, 2147483647)"
  "ts_discords(s, 16, 2^31 − 1, method => 'pd3')|SELECT count(*) FROM ts_discords($s, 16, 2147483647, method => 'pd3')"
  "ts_match(s, s[100:115], k => 2^31 − 1)|SELECT count(*) FROM ts_match($s, (SELECT a[100:115] FROM tsm_large_k), k => 2147483647)"
)
backends=cpu
[ "$HAS_GPU" = t ] && backends="cpu gpu"
echo "# large_k: $(date -u +%F), $n-point random walk, m = 16, best of $reps, on $DEVICE"
echo
echo "| call | rows | backend | ms |"
echo "|---|---|---|---|"
for b in $backends; do
  for c in "${calls[@]}"; do
    name=${c%%|*} sql=${c#*|}
    rows=$(PGOPTIONS="$PGOPTIONS -c tsmine.backend=$b" q -c "$sql")
    read -r best _ < <(run_timed "$b" "$reps" "$sql")
    echo "| \`$name\` | $rows | $b | $best |"
  done
done
