# test/citus/lib.sh — Citus for tsmine's tests and benchmarks: build Citus
# 13.2.2 once from ../shared/deps (cached), install it into a PostgreSQL 15,
# and run a local cluster of a coordinator and two workers.  Source it after
# scripts/lib.sh (it uses tsm_pg_config, tsm_shared, tsm_log, tsm_server_user, PGBIN, SUDO).
#
#   citus_build                  the build, cached under $CITUS_CACHE (prints its directory)
#   citus_install [STAGE]        copies a build into the PostgreSQL of tsm_pg_config
#   citus_pack FILE              a build as a tarball (citus_install_tarball FILE installs it)
#   citus_cluster_start DIR PORT coordinator on PORT, workers on PORT+1 and PORT+2, sockets in DIR
#   citus_cluster_stop           stops the three nodes (also on EXIT)
#
# Environment: CITUS_TARBALL (default ../shared/deps/citus-13.2.2.tar.xz),
# CITUS_PATCH (default: the .patch beside it), CITUS_CACHE (default
# ~/.cache/tsmine-citus).  Citus is configured --without-libcurl (its
# anonymous statistics: a library PostgreSQL does not load, absent from the
# GPU host's bundle); lz4 and zstd (columnar compression) when their headers
# are there.

CITUS_TARBALL="${CITUS_TARBALL:-$(tsm_shared)/deps/citus-13.2.2.tar.xz}"
CITUS_PATCH="${CITUS_PATCH:-$(dirname "$CITUS_TARBALL")/citus-13.2.2-pg15-headers.patch}"
CITUS_CACHE="${CITUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tsmine-citus}"

# citus_missing_build_deps: the Debian packages whose headers the build needs, one a line
citus_missing_build_deps() {
    [ -f /usr/include/gssapi/gssapi.h ] || echo libkrb5-dev   # the server headers include it (ENABLE_GSS)
    [ -f /usr/include/lz4.h ] || echo liblz4-dev
    [ -f /usr/include/zstd.h ] || echo libzstd-dev
}

# citus_configure_flags: the configure options, from the headers that are there
citus_configure_flags() {
    local flags=(--without-libcurl)
    [ -f /usr/include/lz4.h ] || flags+=(--without-lz4)
    [ -f /usr/include/zstd.h ] || flags+=(--without-zstd)
    echo "${flags[*]}"
}

# citus_cache_key: the tarball, the patch, the PostgreSQL version and the flags
citus_cache_key() {
    { sha256sum "$CITUS_TARBALL" "$CITUS_PATCH" | cut -d' ' -f1
      tsm_pg_config --version
      citus_configure_flags; } | sha256sum | cut -c1-16
}

# citus_build: builds Citus unless the cache holds this build; prints the
# directory of the build (pkglib/ and extension/, the files make install writes)
citus_build() {
    local key dir work flags
    [ -f "$CITUS_TARBALL" ] || { echo "citus_build: no $CITUS_TARBALL" >&2; return 1; }
    key="$(citus_cache_key)"
    dir="$CITUS_CACHE/$key"
    if [ -f "$dir/complete" ]; then echo "$dir"; return 0; fi
    flags="$(citus_configure_flags)"
    tsm_log "building Citus from $(basename "$CITUS_TARBALL") ($flags) into $dir"
    mkdir -p "$CITUS_CACHE"
    work="$(mktemp -d "$CITUS_CACHE/build.XXXXXX")"
    # shellcheck disable=SC2086
    if ! ( set -e
           tar -C "$work" -xJf "$CITUS_TARBALL"
           cd "$work"/citus-*
           patch -p1 -s <"$CITUS_PATCH"
           ./configure -q PG_CONFIG="$(tsm_pg_config_path)" $flags >"$work/configure.log" 2>&1
           # no LLVM bitcode (Debian's PGXS asks for it; PostgreSQL's JIT does not need it)
           make -s -j"$(nproc)" with_llvm=no >"$work/make.log" 2>&1
           make -s install with_llvm=no DESTDIR="$work/destdir" >>"$work/make.log" 2>&1
           mkdir -p "$work/out/pkglib" "$work/out/extension"
           cp -a "$work/destdir$(tsm_pg_config --pkglibdir)/." "$work/out/pkglib/"
           cp -a "$work/destdir$(tsm_pg_config --sharedir)/extension/." "$work/out/extension/" ); then
        echo "citus_build: the build failed; the end of its logs:" >&2
        tail -n 30 "$work"/*.log >&2 2>/dev/null
        rm -rf "$work"
        return 1
    fi
    # another run may have finished the same build meanwhile: keep the first
    touch "$work/out/complete"
    [ -f "$dir/complete" ] || rm -rf "$dir"
    mv -T "$work/out" "$dir" 2>/dev/null
    rm -rf "$work"
    [ -f "$dir/complete" ] && echo "$dir"
}

# citus_install [STAGE]: copies a build (default: citus_build's) into the
# PostgreSQL that tsm_pg_config names
citus_install() {
    local stage="${1:-}"
    [ -n "$stage" ] || stage="$(citus_build)" || return 1
    $SUDO cp -a "$stage/pkglib/." "$(tsm_pg_config --pkglibdir)/"
    $SUDO cp -a "$stage/extension/." "$(tsm_pg_config --sharedir)/extension/"
}

# citus_installed: whether the PostgreSQL of tsm_pg_config has Citus
citus_installed() {
    [ -f "$(tsm_pg_config --pkglibdir)/citus.so" ] && [ -f "$(tsm_pg_config --sharedir)/extension/citus.control" ]
}

# citus_pack FILE: the build as a tarball (pkglib/, extension/), for a host
# that cannot build it (the GPU host: no ../shared/deps, maybe no headers)
citus_pack() {
    local stage
    stage="$(citus_build)" || return 1
    tar -C "$stage" -cJf "$1" pkglib extension
}

# citus_install_tarball FILE: installs what citus_pack wrote
citus_install_tarball() {
    local tmp
    tmp="$(mktemp -d)"
    tar -C "$tmp" -xJf "$1" && citus_install "$tmp"
    local status=$?
    rm -rf "$tmp"
    return $status
}

# citus_profile_tiles_sql TILES: the SQL that makes README's table of the
# tiles of one long series, profile_tiles: one shard per worker, the tiles 1
# .. TILES spread over them.
citus_profile_tiles_sql() {
    cat <<SQL
CREATE TABLE profile_tiles (slot int NOT NULL, tile int NOT NULL);
SELECT create_distributed_table('profile_tiles', 'slot',
                                shard_count => (SELECT count(*)::int FROM citus_get_active_worker_nodes()));
INSERT INTO profile_tiles (slot, tile)
SELECT s.slot, t
FROM (SELECT row_number() OVER (ORDER BY shardid) - 1 AS i, count(*) OVER () AS shards, slot
      FROM (SELECT DISTINCT ON (shardid) shardid, v AS slot
            FROM generate_series(1, 10000) v, get_shard_id_for_distribution_column('profile_tiles', v) shardid
            ORDER BY shardid, v) one_value_per_shard) s,
     generate_series(1, $1) t
WHERE (t - 1) % s.shards = s.i;
SQL
}

# citus_cluster_start DIR PORT: a coordinator on PORT and workers on PORT+1 and
# PORT+2 (CITUS_WORKERS workers, default 2: PORT+1 .. PORT+CITUS_WORKERS),
# each a fresh data directory under DIR, on Unix sockets in DIR only;
# Citus created in the database postgres of every node, the workers added to
# the coordinator, then tsmine created on the coordinator alone, as README
# says (Citus creates it on the workers).  Exports PGHOST=DIR, PGPORT=PORT
# (the coordinator), PGDATABASE, PGUSER and CITUS_PORTS (the three ports).
# Runs as 'postgres' when root (tsm_server_user).  CITUS_EXTRA_CONF:
# lines added to every node's postgresql.conf.
citus_cluster_start() {
    CITUS_DIR="$1"
    local port="$2" p
    tsm_server_user "$CITUS_DIR"
    CITUS_RUN=("${TSM_RUN[@]}")
    export PGHOST="$CITUS_DIR" PGPORT="$port" PGDATABASE=postgres
    CITUS_PORTS=("$port")
    for ((p = 1; p <= ${CITUS_WORKERS:-2}; p++)); do CITUS_PORTS+=("$((port + p))"); done
    trap citus_cluster_stop EXIT
    for p in "${CITUS_PORTS[@]}"; do
        "${CITUS_RUN[@]}" "$PGBIN/initdb" -D "$CITUS_DIR/n$p" -A trust -U "$PGUSER" >"$CITUS_DIR/initdb-$p.log" 2>&1 \
            || { cat "$CITUS_DIR/initdb-$p.log" >&2; return 1; }
        # Unix sockets carry no SSL: the nodes' connections to each other ask for none
        cat >>"$CITUS_DIR/n$p/postgresql.conf" <<CONF
shared_preload_libraries = 'citus'
listen_addresses = ''
port = $p
unix_socket_directories = '$CITUS_DIR'
citus.node_conninfo = 'sslmode=disable'
max_connections = 100
${CITUS_EXTRA_CONF:-}
CONF
        "${CITUS_RUN[@]}" "$PGBIN/pg_ctl" -D "$CITUS_DIR/n$p" -l "$CITUS_DIR/server-$p.log" -w start >/dev/null \
            || { cat "$CITUS_DIR/server-$p.log" >&2; return 1; }
        psql -qX -p "$p" -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION citus' >/dev/null || return 1
    done
    psql -qX -v ON_ERROR_STOP=1 -c "SELECT citus_set_coordinator_host('$CITUS_DIR', $port)" >/dev/null || return 1
    for p in "${CITUS_PORTS[@]:1}"; do
        psql -qX -v ON_ERROR_STOP=1 -c "SELECT citus_add_node('$CITUS_DIR', $p)" >/dev/null || return 1
    done
    # on the coordinator only: Citus creates it on the workers too
    psql -qX -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION tsmine' >/dev/null
}

# citus_node_stop PORT / citus_node_start PORT: one node down and up again
citus_node_stop() { "${CITUS_RUN[@]}" "$PGBIN/pg_ctl" -D "$CITUS_DIR/n$1" -m immediate stop >/dev/null 2>&1; }
citus_node_start() {
    "${CITUS_RUN[@]}" "$PGBIN/pg_ctl" -D "$CITUS_DIR/n$1" -l "$CITUS_DIR/server-$1.log" -w start >/dev/null
}

citus_cluster_stop() {
    local p
    [ -n "${CITUS_DIR:-}" ] || return 0
    for p in "${CITUS_PORTS[@]}"; do
        [ -d "$CITUS_DIR/n$p" ] && "${CITUS_RUN[@]}" "$PGBIN/pg_ctl" -D "$CITUS_DIR/n$p" -m fast stop >/dev/null 2>&1
    done
    [ -n "${TSM_KEEP_CLUSTER:-}" ] || rm -rf "$CITUS_DIR"
    CITUS_DIR=""
}
