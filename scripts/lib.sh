# scripts/lib.sh — shared by demo.sh and test.sh: install what tsmine needs on
# Debian 12, build and install it, and run a throwaway PostgreSQL 15 cluster.
# Source it; it sets PGHOST, PGPORT, PGUSER, PGDATABASE for the cluster.

set -euo pipefail
TSM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# the server binaries (TSM_PGBIN: a relocated copy of PostgreSQL 15, with TSM_PG_CONFIG beside it)
PGBIN="${TSM_PGBIN:-/usr/lib/postgresql/15/bin}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# pg_config of PostgreSQL 15 (TSM_PG_CONFIG overrides it, for tests of the checks)
tsm_pg_config_path() { echo "${TSM_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"; }
tsm_pg_config() { "$(tsm_pg_config_path)" "$@"; }

tsm_log() { printf '\n== %s\n' "$*" >&2; }

# Debian's own python3 (python3-psycopg and the rest are installed for it, not
# for another python3 that may come first on PATH)
TSM_PYTHON=/usr/bin/python3

# tsm_missing_deps GROUP...: the Debian packages that provide a file or command
# GROUP needs and that is missing, one a line.  Each check looks for the file
# itself, where pg_config (tsm_pg_config) says it is:
#   build    the server, its headers, PGXS and pg_regress, the compilers, git
#   test     pgTAP and pg_prove
#   python   the Python client example (examples/python)
#   package  the Debian package (debian/, scripts/deb.sh)
#   render   headless Chromium, which test/shell/report.sh renders the demo report with
tsm_missing_deps() {
    local group bindir pgxs inc share
    bindir="$(tsm_pg_config --bindir 2>/dev/null || true)"
    pgxs="$(tsm_pg_config --pgxs 2>/dev/null || true)"
    inc="$(tsm_pg_config --includedir-server 2>/dev/null || true)"
    share="$(tsm_pg_config --sharedir 2>/dev/null || true)"
    for group in "$@"; do
        case "$group" in
        build)
            [ -n "$bindir" ] && [ -x "$bindir/postgres" ] && [ -x "$bindir/initdb" ] \
                && [ -x "$bindir/pg_ctl" ] || echo postgresql-15
            [ -n "$bindir" ] && [ -x "$bindir/psql" ] || echo postgresql-client-15
            # postgresql-client-15 ships pg_config, pgxs.mk and pg_regress too:
            # the server headers are what tell that the -dev package is there
            [ -n "$inc" ] && [ -f "$inc/postgres.h" ] && [ -f "$inc/fmgr.h" ] \
                && [ -n "$pgxs" ] && [ -f "$pgxs" ] \
                && [ -x "$(dirname "$pgxs")/../test/regress/pg_regress" ] || echo postgresql-server-dev-15
            command -v gcc >/dev/null || echo gcc
            command -v g++ >/dev/null || echo g++
            command -v make >/dev/null || echo make
            command -v git >/dev/null || echo git
            ;;
        test)
            [ -n "$share" ] && [ -f "$share/extension/pgtap.control" ] || echo postgresql-15-pgtap
            command -v pg_prove >/dev/null || echo libtap-parser-sourcehandler-pgtap-perl
            command -v prove >/dev/null || echo perl
            ;;
        python)
            [ -x "$TSM_PYTHON" ] || echo python3
            "$TSM_PYTHON" -c 'import psycopg' 2>/dev/null || echo python3-psycopg
            "$TSM_PYTHON" -c 'import numpy' 2>/dev/null || echo python3-numpy
            "$TSM_PYTHON" -c 'import pandas' 2>/dev/null || echo python3-pandas
            ;;
        package)
            command -v dpkg-buildpackage >/dev/null || echo dpkg-dev
            command -v dh >/dev/null || echo debhelper
            # pg_buildext comes with postgresql-common; the dh sequence with -all
            [ -f /usr/share/perl5/Debian/Debhelper/Sequence/pgxs_loop.pm ] \
                && command -v pg_buildext >/dev/null || echo postgresql-server-dev-all
            ;;
        render)
            command -v chromium >/dev/null || echo chromium
            ;;
        *) echo "tsm_missing_deps: unknown group $group" >&2; return 2 ;;
        esac
    done
}

# tsm_install_deps [GROUP...]: installs what tsm_missing_deps names (default: build test)
tsm_install_deps() {
    local need groups=("$@")
    [ $# -gt 0 ] || groups=(build test)
    need="$(tsm_missing_deps "${groups[@]}" | sort -u | tr '\n' ' ')"
    if [ -n "${need// /}" ]; then
        tsm_log "installing $need"
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq
        # shellcheck disable=SC2086
        $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
    fi
}

tsm_build_install() {
    tsm_log "building tsmine ($( [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && echo 'GPU build: nvcc found' || echo 'CPU-only build: no nvcc'))"
    make -C "$TSM_ROOT" -j"$(nproc)" PG_CONFIG="$(tsm_pg_config_path)" >/dev/null
    $SUDO make -C "$TSM_ROOT" install PG_CONFIG="$(tsm_pg_config_path)" >/dev/null
}

# tsm_server_user DIR: who runs the servers of a cluster whose files are in
# DIR: 'postgres' when root (created where missing, DIR handed to it), else
# this user.  Exports PGUSER; TSM_RUN: the command prefix that runs as it.
tsm_server_user() {
    TSM_RUN=()
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd -m postgres
        chown postgres "$1"
        chmod 755 "$1"
        TSM_RUN=(runuser -u postgres --)
        export PGUSER=postgres
    else
        export PGUSER="$(id -un)"
    fi
}

# A cluster of our own in a temporary directory, on a Unix socket only.
tsm_start_cluster() {
    TSM_PGDATA="${TSM_PGDATA:-$(mktemp -d /tmp/tsmine-pg.XXXXXX)}"
    export PGHOST="$TSM_PGDATA" PGPORT="${PGPORT:-54329}" PGDATABASE=postgres
    tsm_server_user "$TSM_PGDATA"
    local run=("${TSM_RUN[@]}")
    tsm_log "starting a throwaway PostgreSQL 15 cluster in $TSM_PGDATA"
    "${run[@]}" "$PGBIN/initdb" -D "$TSM_PGDATA/data" -A trust -U "$PGUSER" >"$TSM_PGDATA/initdb.log" 2>&1 \
        || { cat "$TSM_PGDATA/initdb.log"; return 1; }
    "${run[@]}" "$PGBIN/pg_ctl" -D "$TSM_PGDATA/data" -l "$TSM_PGDATA/server.log" -w start \
        -o "-k $TSM_PGDATA -c listen_addresses='' -p $PGPORT" >/dev/null \
        || { cat "$TSM_PGDATA/server.log"; return 1; }
    TSM_STOP_CMD=("${run[@]}" "$PGBIN/pg_ctl" -D "$TSM_PGDATA/data" -m fast stop)
    trap tsm_stop_cluster EXIT
}

tsm_stop_cluster() {
    if [ -n "${TSM_PGDATA:-}" ] && [ -d "$TSM_PGDATA/data" ]; then
        "${TSM_STOP_CMD[@]}" >/dev/null 2>&1 || true
        [ -n "${TSM_KEEP_CLUSTER:-}" ] || rm -rf "$TSM_PGDATA"
    fi
}

# ../shared/data beside the checkout (or $TSMINE_SHARED/data)
tsm_shared() { echo "${TSMINE_SHARED:-$TSM_ROOT/../shared}"; }
