#!/usr/bin/env bash
# The Python client example (examples/python/tsmine_example.py) against the
# installed tsmine, in a database of its own: it stores a numpy series, calls
# ts_discords (array and query forms) and ts_matrix_profile_arrays, reads the
# results into pandas and asserts on them (exit status 1 on a failed check).
# Uses the cluster of PGHOST/PGPORT when set (scripts/test.sh's), else starts one.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
if [ -n "${TSMINE_SKIP_PYTHON:-}" ]; then echo "1..0 # SKIP TSMINE_SKIP_PYTHON is set"; exit 0; fi
set +e
[ -n "${PGHOST:-}" ] || tsm_start_cluster
psql -qX -c 'DROP DATABASE IF EXISTS tsmine_python' -c 'CREATE DATABASE tsmine_python' >/dev/null 2>&1
out="$(PGDATABASE=tsmine_python "$TSM_PYTHON" examples/python/tsmine_example.py 2>&1)"
status=$?
printf '%s\n' "$out" | sed 's/^/# /'
tap_is "$status" 0 'examples/python/tsmine_example.py runs and its assertions hold'
tap_like "$out" '^all checks passed$' '... to the end'
tap_like "$out" 'the query form, with the sensor passed as data, gives the same discords' \
    '... the query form with a bound value gives the array form'"'"'s discords'
# its checks can fail: the same series without the planted anomaly
out="$(PGDATABASE=tsmine_python "$TSM_PYTHON" - <<'PY' 2>&1
import runpy, sys
import numpy as np
sys.argv = ["tsmine_example.py"]
g = runpy.run_path("examples/python/tsmine_example.py")["main"].__globals__
planted = g["make_series"]
def without_anomaly():
    s = planted()
    s.iloc[g["ANOMALY"]:g["ANOMALY"] + 40] -= np.hanning(40) * 1.5
    return s
g["make_series"] = without_anomaly
sys.exit(g["main"]())
PY
)"
tap_like "$out" 'AssertionError' 'without the planted anomaly its first check fails (its checks can fail)'
psql -qX -c 'DROP DATABASE tsmine_python' >/dev/null 2>&1
tap_done
