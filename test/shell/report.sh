#!/usr/bin/env bash
# The demo report as a person would look at it: demo/report.sql (after
# demo/load.sql) writes the HTML report of the demo's real series, headless
# Chromium (Debian's chromium, installed here when missing) takes a
# screenshot of it, and check_report.py checks the image: not blank, every
# picture on it with its series drawn, and the marks where the rows say.
# Where Chromium is missing and cannot be installed (or TSMINE_SKIP_RENDER
# is set): skipped, visibly ("1..0 # SKIP"), which scripts/test.sh counts.
# Uses the cluster of PGHOST/PGPORT when set (scripts/test.sh's), else starts one.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
set +e
shared="$(tsm_shared)"
if [ -n "${TSMINE_SKIP_RENDER:-}" ]; then echo "1..0 # SKIP TSMINE_SKIP_RENDER is set"; exit 0; fi
[ -d "$shared/data" ] || { echo "1..0 # SKIP no $shared/data (the demo's series)"; exit 0; }
if [ -n "$(tsm_missing_deps render)" ]; then
    ( tsm_install_deps render ) >/dev/null 2>&1
    [ -z "$(tsm_missing_deps render)" ] || { echo "1..0 # SKIP chromium is missing and apt-get could not install it"; exit 0; }
fi
[ -n "${PGHOST:-}" ] || tsm_start_cluster
tmp="$(mktemp -d /tmp/tsmine-report.XXXXXX)"
chmod 755 "$tmp"
trap 'rm -rf "$tmp"; psql -qX -c "DROP DATABASE IF EXISTS tsmine_report" >/dev/null 2>&1' EXIT

# the report, from the demo's own SQL, in a database of its own
psql -qX -c 'DROP DATABASE IF EXISTS tsmine_report' -c 'CREATE DATABASE tsmine_report' >/dev/null 2>&1
out="$(cd "$shared/.." && PGDATABASE=tsmine_report psql -X -q -v ON_ERROR_STOP=1 -v report="$tmp/report.html" \
       -c 'CREATE EXTENSION tsmine' -f "$TSM_ROOT/demo/load.sql" -f "$TSM_ROOT/demo/report.sql" 2>&1)"
tap_result $? 'demo/report.sql writes the report' "$out"

# the screenshot: the page's height from its pictures' heights, and room for the text
height=$(grep -oE '<svg [^>]*height="[0-9]+"' "$tmp/report.html" | sed -E 's/.*height="([0-9]+)"/\1/' \
         | awk '{ h += $1 + 280 } END { print h + 200 }')
t0=$(date +%s.%N)
out="$(timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/chromium" \
       --force-device-scale-factor=1 --force-color-profile=srgb --window-size=1060,"$height" \
       --screenshot="$tmp/report.png" "file://$tmp/report.html" 2>&1)"
tap_ok "headless Chromium renders it to PNG ($(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'))" \
    test -s "$tmp/report.png"

# the checks, one TAP line each, renumbered into this test's
check() {
    "$TSM_PYTHON" "$TSM_ROOT/test/shell/check_report.py" "$1" "$tmp/report.png" 2>&1
}
out="$(check "$tmp/report.html")"
while IFS= read -r line; do
    case "$line" in
    "ok "*) tap_result 0 "${line#ok * - }" ;;
    "not ok "*) tap_result 1 "${line#not ok * - }" ;;
    "# "*) echo "$line" ;;
    *) tap_result 1 "check_report.py: $line" ;;
    esac
done <<<"$out"
# the checks can fail: rows that say another place for the first mark
sed -E '0,/"pos": [0-9]+/s//"pos": 1/' "$tmp/report.html" >"$tmp/moved.html"
tap_like "$(check "$tmp/moved.html")" '^not ok .* bar\(s\) sit where the rows say' \
    'a mark moved in the rows (not in the picture) is found out of place'
tap_done
