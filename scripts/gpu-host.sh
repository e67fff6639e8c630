#!/usr/bin/env bash
# On the GPU host (after `source .gpuhost/setup-postgres.sh`): build, the
# suites with tsmine.backend = gpu, then the benchmarks.  Logs go to OUTDIR.
#   scripts/gpu-host.sh OUTDIR [--suites LIST] [bench ...]
#     LIST: suites separated by commas, run in this order: unit (the C++ unit
#       tests), sql (pg_regress, pgTAP, the shell tests), citus (tsmine on
#       Citus); all (the three: the default) or none
#     bench: outliers, ... (default: all; none: no benchmark)
#   Each suite writes OUTDIR/test-<suite>.log and a line "suite <suite>: N
#   passed, N failed, N skipped" into OUTDIR/steps.log (all suites: a total
#   line after them).  The suites fit separate commands: a later command on
#   this host reuses the build and install of an earlier one when the build's
#   sources and settings are the same (OUTDIR/build.log says so).
#   TSMINE_COMMIT=<hash> records the commit of the tree in OUTDIR/host.txt
set -uo pipefail
usage="usage: scripts/gpu-host.sh OUTDIR [--suites unit,sql,citus|all|none] [bench ...]"
out="${1:?$usage}"
shift
suites=all
if [ "${1:-}" = --suites ]; then
    suites="${2:?$usage}"
    shift 2
fi
case ",$suites," in
*,all,*) suites="unit sql citus" ;;
*,none,*) suites="" ;;
*) suites="${suites//,/ }" ;;
esac
for s in $suites; do
    case "$s" in unit | sql | citus) ;; *) echo "$usage (unknown suite $s)" >&2; exit 2 ;; esac
done
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

# What the build reads (the sources and extension scripts make compiles or
# assembles, the unit tests') and the settings it takes, hashed: the same hash,
# the same build.
build_inputs() {
    find Makefile tsmine.control src kernels extension versions test/unit -type f \
        \( -name Makefile -o -name '*.control' -o -name '*.c' -o -name '*.h' -o -name '*.cpp' \
           -o -name '*.cu' -o -name '*.cuh' -o -name '*.sql' \) | LC_ALL=C sort | xargs sha256sum
    echo "CUDA_ARCH=${CUDA_ARCH:-} WITH_CUDA=${WITH_CUDA:-} CUDA_HOME=${CUDA_HOME:-} NVCC=${NVCC:-} TSM_CXX=${TSM_CXX:-}"
    "${PG_CONFIG:-pg_config}" --bindir --version
    "${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}" --version 2>/dev/null | tail -1
}

# A clean build, unless this tree's last build here had the same inputs: then
# its outputs are marked up to date (make -t: the copy of the tree that
# brought the sources may have given them newer times), and kept.
build() {
    local stamp=.gpu-host-build hash
    hash="$(build_inputs | sha256sum | cut -d' ' -f1)"
    if [ -f tsmine.so ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
        echo "build reused: the same sources and settings as this host's last build ($hash)" >"$out/build.log"
        make -t all >>"$out/build.log" 2>&1 || return 1
        if [ -f test/unit/run_unit_tests ]; then make -t unittest_bin >>"$out/build.log" 2>&1 || return 1; fi
    else
        rm -f "$stamp"
        make clean >/dev/null 2>&1
        make -j"$(nproc)" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; return 1; }
        echo "$hash" >"$stamp"
    fi
    make install >>"$out/build.log" 2>&1
}

step "build"
build || exit 1
total_passed=0 total_failed=0 total_skipped=0
for s in $suites; do
    step "suite $s, tsmine.backend = gpu"
    TSMINE_SUITES=$s TSMINE_BACKEND=gpu TSMINE_SKIP_CPU_FLAVOUR=1 TSMINE_SKIP_PYTHON=1 TSMINE_SKIP_PACKAGE=1 \
        TSMINE_SKIP_RENDER=1 scripts/test.sh >"$out/test-$s.log" 2>&1
    line="$(tail -1 "$out/test-$s.log")"
    echo "suite $s: $line" | tee -a "$out/steps.log"
    if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
        total_passed=$((total_passed + BASH_REMATCH[1]))
        total_failed=$((total_failed + BASH_REMATCH[2]))
        total_skipped=$((total_skipped + BASH_REMATCH[3]))
    else
        total_failed=$((total_failed + 1))  # the suite did not finish
    fi
done
if [ "$suites" = "unit sql citus" ]; then
    echo "all suites: $total_passed passed, $total_failed failed, $total_skipped skipped" | tee -a "$out/steps.log"
fi
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=($(ls bench/*.sh | xargs -n1 basename | sed 's/\.sh$//' | grep -vx lib))  # lib.sh: their helpers
for b in "${benches[@]}"; do
    [ "$b" = none ] && continue
    step "bench $b"
    timeout "${BENCH_TIMEOUT:-300}" bash "bench/$b.sh" >"$out/bench-$b.md" 2>&1
    tail -3 "$out/bench-$b.md"
done
step "done"
