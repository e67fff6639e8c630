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
# tsmine.backend (default: the GUC's default, auto).  TSMINE_SUITES, a list
# (spaces or commas) of unit (the C++ unit tests), sql (pg_regress, pgTAP,
# the shell tests), citus and package, runs those alone, in that order
# (default: all four); the last line counts theirs.
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

suites=" ${TSMINE_SUITES:-unit sql citus package} "
suites="${suites//,/ }"
for s in $suites; do
  case "$s" in unit | sql | citus | package) ;; *) echo "TSMINE_SUITES: unknown suite $s (unit, sql, citus, package)" >&2; exit 2 ;; esac
done
wants() { [[ "$suites" == *" $1 "* ]]; }
logs="$(mktemp -d /tmp/tsmine-test.XXXXXX)"  # this run's logs (other runs on the machine keep theirs)

passed=0 failed=0 skipped=0
count() { passed=$((passed + $1)); failed=$((failed + $2)); }
# count_prove LOG: counts the tests of a prove / pg_prove run from its summary
count_prove() {
  local line tests bad
  line=$(grep -E '^Files=' "$1" | tail -1 || true)
  tests=$(echo "$line" | sed -nE 's/.*Tests=([0-9]+).*/\1/p')
  bad=$(grep -E '^Failed [0-9]+/[0-9]+ subtests' "$1" | sed -E 's#^Failed ([0-9]+)/.*#\1#' | awk '{s += $1} END {print s + 0}' || true)
  if grep -qE '^Result: PASS' "$1"; then count "${tests:-0}" 0
  else count "$(( ${tests:-0} > bad ? ${tests:-0} - bad : 0 ))" "$(( bad > 0 ? bad : 1 ))"; fi  # not below 0: a script that died fails its planned tests
}
# count_unit LOG: counts a unit test run from its last line ("unit: N passed,
# N failed, N skipped"; none: one failure); its skips into unit_skipped
count_unit() {
  local line
  line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$1" 2>/dev/null | tail -1 || true)
  unit_skipped=$(echo "$line" | sed -nE 's/.*failed, ([0-9]+) skipped.*/\1/p'); unit_skipped=${unit_skipped:-0}
  if [ -n "$line" ]; then count "$(echo "$line" | sed -E 's/unit: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')"; else count 0 1; fi
}

suite_unit() {
  tsm_log "C++ unit tests of the core"
  make -s unittest_bin >/dev/null
  set +e
  ./test/unit/run_unit_tests | tee "$logs/unit.log"
  set -e
  count_unit "$logs/unit.log"
  skipped=$((skipped + unit_skipped))
}

suite_sql() {
  local r_ok r_fail sk
  tsm_log "pg_regress suite (make installcheck)"
  set +e
  make installcheck PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config 2>&1 | tee "$logs/regress.log"
  set -e
  [ -f regression.diffs ] && cat regression.diffs
  r_ok=$(grep -cE '^(ok|test) .* \.\.\. ok|^ok [0-9]+ ' "$logs/regress.log" || true)
  r_fail=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ ' "$logs/regress.log" || true)
  if [ "$r_ok" -eq 0 ] && [ "$r_fail" -eq 0 ]; then r_fail=1; fi
  count "$r_ok" "$r_fail"

  tsm_log "pgTAP suite (pg_prove)"
  psql -qX -c "CREATE DATABASE tsmine_tap" >/dev/null
  set +e
  PGDATABASE=tsmine_tap pg_prove --ext .sql -r test/pgtap 2>&1 | tee "$logs/tap.log"
  set -e
  count_prove "$logs/tap.log"

  tsm_log "shell tests (prove test/shell)"
  set +e
  prove --exec bash --ext .sh test/shell 2>&1 | tee "$logs/shell.log"
  set -e
  count_prove "$logs/shell.log"
  # a shell test that skipped itself ("1..0 # SKIP ...") is neither passed nor failed: said and counted
  sk=$(grep -cE '\.\. skipped' "$logs/shell.log" || true)
  [ "$sk" -eq 0 ] || { grep -E '\.\. skipped' "$logs/shell.log" | sed 's/^/SKIPPED: /'; skipped=$((skipped + sk)); }
}

# tsmine on Citus: builds Citus from ../shared/deps once (cached in
# ~/.cache/tsmine-citus) into this PostgreSQL, then a coordinator and two
# workers.  Where Citus cannot be built, one skip and a SKIP line, no passes.
suite_citus() {
  local started=$SECONDS
  tsm_log "tsmine on Citus: a coordinator and two workers (test/citus/run.sh)"
  set +e
  prove --exec bash test/citus/run.sh 2>&1 | tee "$logs/citus.log"
  set -e
  if grep -qE '^test/citus/run\.sh \.+ skipped' "$logs/citus.log"; then
    skipped=$((skipped + 1))
    echo "SKIP tsmine on Citus: $(sed -nE 's/^test\/citus\/run\.sh \.+ skipped: //p' "$logs/citus.log")"
  else
    count_prove "$logs/citus.log"
  fi
  tsm_log "tsmine on Citus: $((SECONDS - started)) s"
}

# The Debian package, after the suites of the source build: built, installed
# into the system in place of the source build, used from its installed files,
# removed; the source build is installed again after it (before the CPU-only
# flavour below rebuilds the objects).  TSMINE_SKIP_PACKAGE=1 leaves it out.
suite_package() {
  [ -z "${TSMINE_SKIP_PACKAGE:-}" ] || return 0
  tsm_log "the Debian package (test/package.sh)"
  set +e
  prove --exec bash test/package.sh 2>&1 | tee "$logs/package.log"
  set -e
  count_prove "$logs/package.log"
}

# The CPU-only flavour of the core (what a build without nvcc runs), when
# this machine built the CUDA one: its unit tests too (with the unit suite;
# its skips, the GPU tests, are not counted again).
cpu_flavour_unit() {
  [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && [ -z "${TSMINE_SKIP_CPU_FLAVOUR:-}" ] || return 0
  tsm_log "C++ unit tests of the CPU-only build"
  set +e
  make -s WITH_CUDA=no unittest_bin >/dev/null 2>&1 && ./test/unit/run_unit_tests | tee "$logs/unit-cpu.log"
  set -e
  count_unit "$logs/unit-cpu.log"
}

for s in unit sql citus package; do
  if wants "$s"; then "suite_$s"; fi
done
if wants unit; then cpu_flavour_unit; fi
rm -rf "$logs"

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
