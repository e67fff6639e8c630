#!/usr/bin/env bash
# Runs every tsmine test suite on a throwaway cluster: the C++ unit tests of
# the core, the pg_regress suite (make installcheck), the pgTAP suite
# (pg_prove), the shell tests (test/shell: the install check, the release
# files, the Python example, the report rendered in Chromium), tsmine on a
# Citus cluster of three nodes (test/citus/run.sh) and the Debian package
# (built, installed, used, removed; the source build is installed again after
# it).  Installs what it needs on Debian 12.  Last line:
#   N passed, N failed, N skipped      (skipped: GPU unit tests without a GPU,
#                                       shell tests that cannot run here, e.g.
#                                       the report without Chromium, and the
#                                       Citus suite where Citus cannot be
#                                       built: a SKIP line says why)
# Environment: TSMINE_BACKEND=gpu|cpu|auto runs the SQL suites with that
# tsmine.backend (default: the GUC's default, auto).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TSM_ROOT"
# TSMINE_SKIP_PYTHON / TSMINE_SKIP_PACKAGE: a machine with no package registry
# (the GPU host) leaves out the Python example and the Debian package
groups=(build test)
[ -n "${TSMINE_SKIP_PYTHON:-}" ] || groups+=(python)
[ -n "${TSMINE_SKIP_PACKAGE:-}" ] || groups+=(package)
tsm_install_deps "${groups[@]}"
tsm_build_install
tsm_start_cluster
export TSMINE_SHARED="$(tsm_shared)"
if [ -n "${TSMINE_BACKEND:-}" ]; then export PGOPTIONS="${PGOPTIONS:-} -c tsmine.backend=$TSMINE_BACKEND"; fi

passed=0 failed=0 skipped=0
count() { passed=$((passed + $1)); failed=$((failed + $2)); }
# count_prove LOG: counts the tests of a prove / pg_prove run from its summary
count_prove() {
  local line tests bad
  line=$(grep -E '^Files=' "$1" | tail -1 || true)
  tests=$(echo "$line" | sed -nE 's/.*Tests=([0-9]+).*/\1/p')
  bad=$(grep -E '^Failed [0-9]+/[0-9]+ subtests' "$1" | sed -E 's#^Failed ([0-9]+)/.*#\1#' | awk '{s += $1} END {print s + 0}' || true)
  if grep -qE '^Result: PASS' "$1"; then count "${tests:-0}" 0
  else count "$(( ${tests:-0} - bad ))" "$(( bad > 0 ? bad : 1 ))"; fi
}

tsm_log "C++ unit tests of the core"
make -s unittest_bin >/dev/null
set +e
./test/unit/run_unit_tests | tee /tmp/tsmine-unit.log
set -e
line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' /tmp/tsmine-unit.log | tail -1 || true)
skipped=$(echo "$line" | sed -nE 's/.*failed, ([0-9]+) skipped.*/\1/p'); skipped=${skipped:-0}
if [ -n "$line" ]; then count "$(echo "$line" | sed -E 's/unit: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')"; else count 0 1; fi

tsm_log "pg_regress suite (make installcheck)"
set +e
make installcheck PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config 2>&1 | tee /tmp/tsmine-regress.log
set -e
[ -f regression.diffs ] && cat regression.diffs
r_ok=$(grep -cE '^(ok|test) .* \.\.\. ok|^ok [0-9]+ ' /tmp/tsmine-regress.log || true)
r_fail=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ ' /tmp/tsmine-regress.log || true)
if [ "$r_ok" -eq 0 ] && [ "$r_fail" -eq 0 ]; then r_fail=1; fi
count "$r_ok" "$r_fail"

tsm_log "pgTAP suite (pg_prove)"
psql -qX -c "CREATE DATABASE tsmine_tap" >/dev/null
set +e
PGDATABASE=tsmine_tap pg_prove --ext .sql -r test/pgtap 2>&1 | tee /tmp/tsmine-tap.log
set -e
count_prove /tmp/tsmine-tap.log

tsm_log "shell tests (prove test/shell)"
set +e
prove --exec bash --ext .sh test/shell 2>&1 | tee /tmp/tsmine-shell.log
set -e
count_prove /tmp/tsmine-shell.log
# a shell test that skipped itself ("1..0 # SKIP ...") is neither passed nor failed: said and counted
sk=$(grep -cE '\.\. skipped' /tmp/tsmine-shell.log || true)
[ "$sk" -eq 0 ] || { grep -E '\.\. skipped' /tmp/tsmine-shell.log | sed 's/^/SKIPPED: /'; skipped=$((skipped + sk)); }

# tsmine on Citus: builds Citus from ../shared/deps once (cached in
# ~/.cache/tsmine-citus) into this PostgreSQL, then a coordinator and two
# workers.  Where Citus cannot be built, one skip and a SKIP line, no passes.
tsm_log "tsmine on Citus: a coordinator and two workers (test/citus/run.sh)"
citus_started=$SECONDS
set +e
prove --exec bash test/citus/run.sh 2>&1 | tee /tmp/tsmine-citus.log
set -e
if grep -qE '^test/citus/run\.sh \.+ skipped' /tmp/tsmine-citus.log; then
  skipped=$((skipped + 1))
  echo "SKIP tsmine on Citus: $(sed -nE 's/^test\/citus\/run\.sh \.+ skipped: //p' /tmp/tsmine-citus.log)"
else
  count_prove /tmp/tsmine-citus.log
fi
tsm_log "tsmine on Citus: $((SECONDS - citus_started)) s"

# The Debian package, after the suites of the source build: built, installed
# into the system in place of the source build, used from its installed files,
# removed; the source build is installed again after it (before the CPU-only
# flavour below rebuilds the objects).  TSMINE_SKIP_PACKAGE=1 leaves it out.
if [ -z "${TSMINE_SKIP_PACKAGE:-}" ]; then
  tsm_log "the Debian package (test/package.sh)"
  set +e
  prove --exec bash test/package.sh 2>&1 | tee /tmp/tsmine-package.log
  set -e
  count_prove /tmp/tsmine-package.log
fi

# The CPU-only flavour of the core (what a build without nvcc runs), when
# this machine built the CUDA one: its unit tests too.
if [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && [ -z "${TSMINE_SKIP_CPU_FLAVOUR:-}" ]; then
  tsm_log "C++ unit tests of the CPU-only build"
  set +e
  make -s WITH_CUDA=no unittest_bin >/dev/null 2>&1 && ./test/unit/run_unit_tests | tee /tmp/tsmine-unit-cpu.log
  set -e
  line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' /tmp/tsmine-unit-cpu.log 2>/dev/null | tail -1 || true)
  if [ -n "$line" ]; then count "$(echo "$line" | sed -E 's/unit: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')"; else count 0 1; fi
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
