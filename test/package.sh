#!/usr/bin/env bash
# The Debian package, end to end (TAP; scripts/test.sh runs it after the
# suites): builds postgresql-15-tsmine with scripts/deb.sh, takes the source
# build's files away (make uninstall) so that only the package's can serve,
# installs it with apt-get install ./….deb, runs CREATE EXTENSION tsmine and
# smoke queries from the installed files, removes it with apt-get remove and
# checks its files are gone; then installs the source build again (make
# install), whatever failed.  Where nvcc is found, the GPU build (the default)
# and the CPU-only build (WITH_CUDA=no) in turn, ts_device_info() reporting
# each; elsewhere the CPU-only build.  It changes the system's PostgreSQL 15
# extension files while it runs.
# Uses the cluster of PGHOST/PGPORT when set (scripts/test.sh's), else starts one.
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
set +e
[ -n "${PGHOST:-}" ] || tsm_start_cluster
pg_config_path="$(tsm_pg_config_path)"
pkglibdir="$(tsm_pg_config --pkglibdir)"
sharedir="$(tsm_pg_config --sharedir)"
version="$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" tsmine.control)"
work="$(mktemp -d /tmp/tsmine-pkgtest.XXXXXX)"
chmod 755 "$work"   # apt's _apt user reads the .deb from here
restore() {
    $SUDO apt-get remove -y -qq postgresql-15-tsmine >/dev/null 2>&1
    $SUDO make -s install PG_CONFIG="$pg_config_path" >/dev/null
    rm -rf "$work"
}
trap 'restore; [ -z "${TSM_STOP_CMD:-}" ] || tsm_stop_cluster' EXIT
sql() { PGDATABASE=tsmine_pkg psql -qXAt -v ON_ERROR_STOP=1 -c "$1" 2>&1; }

# package_cycle FLAVOUR (cuda | cpu-only): build, install, use, remove
package_cycle() {
    local flavour=$1 deb files t0 status left choice=(env -u WITH_CUDA)
    [ "$flavour" = cuda ] || choice=(env WITH_CUDA=no)
    mkdir -p "$work/$flavour" && chmod 755 "$work/$flavour"
    t0=$(date +%s)
    deb="$("${choice[@]}" scripts/deb.sh "$work/$flavour" 2>"$work/$flavour.err" | tail -1)"
    tap_ok "$flavour: dpkg-buildpackage builds the package ($(( $(date +%s) - t0 )) s)" test -f "$deb"
    [ -f "$deb" ] || { sed 's/^/# /' "$work/$flavour.err"; return; }
    tap_is "$(basename "$deb")" "postgresql-15-tsmine_${version}-1_$(dpkg --print-architecture).deb" \
        "$flavour: the .deb is postgresql-15-tsmine $version"
    tap_like "$(dpkg-deb -f "$deb" Depends)" '(^|, )postgresql-15( |,|$)' "$flavour: it depends on postgresql-15"
    files="$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' | grep -v '/$')"
    for f in "$pkglibdir/tsmine.so" "$sharedir/extension/tsmine.control" "$sharedir/extension/tsmine--$version.sql" \
             "$sharedir/extension/tsmine--0.1.0.sql" "$sharedir/extension/tsmine--0.1.0--$version.sql" \
             /usr/share/doc/postgresql-15-tsmine/copyright; do
        tap_like "$files" "^$f\$" "$flavour: it ships $f"
    done

    tap_ok "$flavour: apt-get install ./postgresql-15-tsmine_….deb" \
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
    tap_is "$(dpkg-query -W -f='${Status}' postgresql-15-tsmine 2>/dev/null)" 'install ok installed' \
        "$flavour: dpkg has it installed"
    tap_like "$(dpkg -S "$pkglibdir/tsmine.so" 2>&1)" '^postgresql-15-tsmine: ' "$flavour: the package owns tsmine.so"

    psql -qX -c 'DROP DATABASE IF EXISTS tsmine_pkg' -c 'CREATE DATABASE tsmine_pkg' >/dev/null 2>&1
    tap_ok "$flavour: CREATE EXTENSION tsmine from the installed files" sql 'CREATE EXTENSION tsmine'
    tap_is "$(sql "SELECT extversion FROM pg_extension WHERE extname = 'tsmine'")" "$version" \
        "$flavour: the extension is $version"
    tap_is "$(sql "SELECT DISTINCT build || ' ' || version FROM ts_device_info()")" "$flavour $version" \
        "$flavour: ts_device_info() reports the $flavour build, version $version"
    tap_is "$(sql "SELECT string_agg(pos::text, ',' ORDER BY rank) FROM ts_discords(
                  (SELECT array_agg(sin(i / 10.0) + CASE WHEN i BETWEEN 300 AND 310 THEN 1 ELSE 0 END ORDER BY i)
                   FROM generate_series(1, 600) i), 20, 2)")" '300,226' \
        "$flavour: a smoke query: ts_discords finds the planted discord"
    tap_is "$(sql "SELECT count(*) FROM ts_matrix_profile_arrays(ARRAY(SELECT sin(i / 5.0) FROM generate_series(1, 200) i), 16) p
                  WHERE cardinality(p.distance) = 185")" '1' "$flavour: ts_matrix_profile_arrays gives a profile"
    tap_is "$(sql "DROP EXTENSION tsmine; CREATE EXTENSION tsmine VERSION '0.1.0'; ALTER EXTENSION tsmine UPDATE;
                  SELECT extversion FROM pg_extension WHERE extname = 'tsmine'")" "$version" \
        "$flavour: the package's files update 0.1.0 to $version"
    psql -qX -c 'DROP DATABASE tsmine_pkg' >/dev/null 2>&1

    tap_ok "$flavour: apt-get remove postgresql-15-tsmine" \
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq postgresql-15-tsmine
    status="$(dpkg-query -W -f='${db:Status-Abbrev}' postgresql-15-tsmine 2>/dev/null | tr -d ' ')"
    tap_is "${status:-un}" 'un' "$flavour: dpkg no longer has it, not even its configuration (status '${status:-none}')"
    left="$(for f in $files; do [ -e "$f" ] && echo "$f"; done)"
    tap_is "$left" '' "$flavour: every file it installed is gone"
}

# only the package's files may serve the test
$SUDO make -s uninstall PG_CONFIG="$pg_config_path" >/dev/null 2>&1
tap_ok 'make uninstall took the source build away' test ! -e "$pkglibdir/tsmine.so"
if [ "${WITH_CUDA:-}" != no ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    package_cycle cuda
fi
package_cycle cpu-only

restore
trap - EXIT
[ -z "${TSM_STOP_CMD:-}" ] || tsm_stop_cluster
tap_ok 'the source build is installed again' test -f "$pkglibdir/tsmine.so" -a -f "$sharedir/extension/tsmine.control"
tap_unlike "$(dpkg -S "$pkglibdir/tsmine.so" 2>&1)" '^postgresql-15-tsmine: ' '... and no package owns it'
tap_done
