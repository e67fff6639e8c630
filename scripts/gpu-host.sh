#!/usr/bin/env bash
# On the GPU host (after `source .gpuhost/setup-postgres.sh`): build, every
# suite with tsmine.backend = gpu, then the benchmarks.  Logs go to $1.
#   scripts/gpu-host.sh OUTDIR [bench ...]     bench: outliers, ... (default: all; none: no benchmark)
#   TSMINE_COMMIT=<hash> records the commit of the tree in OUTDIR/host.txt
set -uo pipefail
out="${1:?usage: scripts/gpu-host.sh OUTDIR [bench ...]}"
shift
mkdir -p "$out"
cd "$(dirname "$0")/.."
step() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$out/steps.log"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  # the device's copy of the tree may carry a stale .git: pass TSMINE_COMMIT
  if [ -n "${TSMINE_COMMIT:-}" ]; then echo "commit $TSMINE_COMMIT (given)"
  else git log -1 --format='commit %H %cd (from this copy of .git, which may be stale)' 2>/dev/null || true; fi
} >"$out/host.txt" 2>&1
step "build"
make clean >/dev/null 2>&1
make -j"$(nproc)" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
make install >>"$out/build.log" 2>&1
step "all suites, tsmine.backend = gpu"
TSMINE_BACKEND=gpu TSMINE_SKIP_CPU_FLAVOUR=1 TSMINE_SKIP_PYTHON=1 TSMINE_SKIP_PACKAGE=1 TSMINE_SKIP_RENDER=1 scripts/test.sh >"$out/test-gpu.log" 2>&1
tail -1 "$out/test-gpu.log" | tee -a "$out/steps.log"
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=($(ls bench/*.sh | xargs -n1 basename | sed 's/\.sh$//'))
for b in "${benches[@]}"; do
    [ "$b" = none ] && continue
    step "bench $b"
    timeout "${BENCH_TIMEOUT:-300}" bash "bench/$b.sh" >"$out/bench-$b.md" 2>&1
    tail -3 "$out/bench-$b.md"
done
step "done"
