#!/usr/bin/env bash
# The main job: installs what tsmine needs (Debian 12), builds and installs
# it, starts a throwaway PostgreSQL 15 cluster, loads real series from
# ../shared/data and runs the demo queries of demo/demo.sql, which also
# writes an HTML report with pictures of the series (demo/report.sql) to
# demo-report.html in the checkout (TSM_REPORT=FILE: elsewhere).
# TSM_KEEP_CLUSTER=1 leaves the cluster running (its settings are printed).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TSM_ROOT"
tsm_install_deps
tsm_build_install
tsm_start_cluster
shared="$(tsm_shared)"
[ -d "$shared/data" ] || { echo "no $shared/data: put the shared data beside the checkout or set TSMINE_SHARED" >&2; exit 1; }
tsm_log "loading real series and running demo/demo.sql"
cd "$shared/.."   # demo.sql reads shared/data/... relative to here
report="$(realpath -m "${TSM_REPORT:-$TSM_ROOT/demo-report.html}")"
psql -X -v ON_ERROR_STOP=1 -v report="$report" -f "$TSM_ROOT/demo/demo.sql"
echo "the report: $report (open it in a browser)"
if [ -n "${TSM_KEEP_CLUSTER:-}" ]; then
    echo "cluster left running: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER psql"
fi
