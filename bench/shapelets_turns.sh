#!/usr/bin/env bash
# Shapelet discovery's kernel time of several builds on one machine, in turns
# (issue #15's comparisons with 533b72e): for each UCR set and round, each
# binary's `bench_shapelets gpu SET_TRAIN.tsv 1 3 lazy` (every length, step 1,
# k = 1, three timed calls after a warm-up), then every binary's first call's
# row (the shapelet, gain and threshold, which must agree).
# usage: bench/shapelets_turns.sh NAME=BINARY [NAME=BINARY ...]
#   SETS (default GunPoint Coffee OliveOil Beef), ROUNDS (2), MODE (gpu; cpu
#   for a machine without one), UCR (default ../shared/data/ucr).
# A binary of another tree: copy bench/bench_shapelets.cpp into it (without
# the settle_lazily lines where that tree has none) and link it with that
# tree's objects (RESULTS, "Shapelets: …" sections).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,13p' "$0"; exit 2; }
ucr=${UCR:-../shared/data/ucr}
echo "| set | round | build | kernel ms of the three calls | call ms |"
echo "|---|---|---|---|---|"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for s in ${SETS:-GunPoint Coffee OliveOil Beef}; do
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for nb in "$@"; do
      name=${nb%%=*} bin=${nb#*=}
      out=$("$bin" "${MODE:-gpu}" "$ucr/$s/${s}_TRAIN.tsv" 1 3 lazy)
      echo "$out" | awk -v s="$s" -v r="$r" -v b="$name" '/call/ { gsub(/[()]/, ""); k = k " " $6; c = c " " $3 } END { printf "| %s | %d | %s |%s |%s |\n", s, r, b, k, c }'
      echo "$out" | grep "call 1" | sed "s/^ *call 1: [^,]*,/$s $name:/" >> "$rows"
    done
  done
done
echo
sort -u "$rows"
