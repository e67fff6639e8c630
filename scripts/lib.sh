# scripts/lib.sh — shared by demo.sh and test.sh: install what tsmine needs on
# Debian 12, build and install it, and run a throwaway PostgreSQL 15 cluster.
# Source it; it sets PGHOST, PGPORT, PGUSER, PGDATABASE for the cluster.

set -euo pipefail
TSM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PGBIN=/usr/lib/postgresql/15/bin
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# pg_config of PostgreSQL 15 (TSM_PG_CONFIG overrides it, for tests of the checks)
tsm_pg_config() { "${TSM_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" "$@"; }

tsm_log() { printf '\n== %s\n' "$*" >&2; }

tsm_install_deps() {
    local need=()
    [ -x "$PGBIN/postgres" ] || need+=(postgresql-15)
    # postgresql-client-15 ships pgxs.mk too: the server headers are what tell
    [ -f "$(tsm_pg_config --includedir-server 2>/dev/null)/postgres.h" ] \
        && [ -f /usr/lib/postgresql/15/lib/pgxs/src/makefiles/pgxs.mk ] || need+=(postgresql-server-dev-15)
    [ -f /usr/share/postgresql/15/extension/pgtap.control ] || need+=(postgresql-15-pgtap)
    command -v pg_prove >/dev/null || need+=(libtap-parser-sourcehandler-pgtap-perl)
    command -v g++ >/dev/null || need+=(g++)
    command -v make >/dev/null || need+=(make)
    if [ ${#need[@]} -gt 0 ]; then
        tsm_log "installing ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
}

tsm_build_install() {
    tsm_log "building tsmine ($( [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && echo 'GPU build: nvcc found' || echo 'CPU-only build: no nvcc'))"
    make -C "$TSM_ROOT" -j"$(nproc)" PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config >/dev/null
    $SUDO make -C "$TSM_ROOT" install PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config >/dev/null
}

# A cluster of our own in a temporary directory, on a Unix socket only.
tsm_start_cluster() {
    TSM_PGDATA="${TSM_PGDATA:-$(mktemp -d /tmp/tsmine-pg.XXXXXX)}"
    export PGHOST="$TSM_PGDATA" PGPORT="${PGPORT:-54329}" PGDATABASE=postgres
    local run=()
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd -m postgres
        chown postgres "$TSM_PGDATA"
        chmod 755 "$TSM_PGDATA"
        run=(runuser -u postgres --)
        export PGUSER=postgres
    else
        export PGUSER="$(id -un)"
    fi
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
