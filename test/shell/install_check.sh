#!/usr/bin/env bash
# The install check of scripts/lib.sh (tsm_missing_deps, tsm_install_deps):
# it asks for the package of every file it needs that is missing, found
# where pg_config says, not where a package happens to put it.  Fake
# pg_config programs point at trees with and without the server headers.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
set +e
tmp="$(mktemp -d /tmp/tsmine-installcheck.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
real_bindir="$(/usr/lib/postgresql/15/bin/pg_config --bindir)"
real_pgxs="$(/usr/lib/postgresql/15/bin/pg_config --pgxs)"
real_share="$(/usr/lib/postgresql/15/bin/pg_config --sharedir)"

# fake_pg_config NAME BINDIR INCLUDEDIR_SERVER PGXS SHAREDIR: writes $tmp/NAME/pg_config
fake_pg_config() {
    mkdir -p "$tmp/$1"
    cat >"$tmp/$1/pg_config" <<SH
#!/bin/sh
case "\$1" in
  --bindir) echo "$2" ;;
  --includedir-server) echo "$3" ;;
  --pgxs) echo "$4" ;;
  --sharedir) echo "$5" ;;
  *) exit 1 ;;
esac
SH
    chmod +x "$tmp/$1/pg_config"
    echo "$tmp/$1/pg_config"
}

# a complete tree: every file the check looks for
full="$tmp/full"
mkdir -p "$full/bin" "$full/include/server" "$full/lib/pgxs/src/makefiles" "$full/lib/pgxs/src/test/regress" \
         "$full/share/extension"
for f in postgres initdb pg_ctl psql; do printf '#!/bin/sh\n' >"$full/bin/$f"; chmod +x "$full/bin/$f"; done
touch "$full/include/server/postgres.h" "$full/include/server/fmgr.h" "$full/lib/pgxs/src/makefiles/pgxs.mk" \
      "$full/share/extension/pgtap.control"
printf '#!/bin/sh\n' >"$full/lib/pgxs/src/test/regress/pg_regress"; chmod +x "$full/lib/pgxs/src/test/regress/pg_regress"
complete="$(fake_pg_config complete "$full/bin" "$full/include/server" "$full/lib/pgxs/src/makefiles/pgxs.mk" "$full/share")"
out="$(TSM_PG_CONFIG="$complete" tsm_missing_deps build test)"
tap_unlike "$out" '^postgresql-' 'a complete tree: no PostgreSQL package asked for'

# the issue's machine: the server and postgresql-client-15 (pg_config, pgxs.mk) without the headers
mkdir -p "$tmp/noheaders/include/server"
noheaders="$(fake_pg_config noheaders "$real_bindir" "$tmp/noheaders/include/server" "$real_pgxs" "$real_share")"
out="$(TSM_PG_CONFIG="$noheaders" tsm_missing_deps build test)"
tap_like "$out" '^postgresql-server-dev-15$' 'pgxs.mk without postgres.h: asks for postgresql-server-dev-15'
tap_unlike "$out" '^postgresql-15$' '... and not for the server, which is there'

# headers without PGXS
nopgxs="$(fake_pg_config nopgxs "$full/bin" "$full/include/server" "$tmp/none/pgxs.mk" "$full/share")"
out="$(TSM_PG_CONFIG="$nopgxs" tsm_missing_deps build)"
tap_like "$out" '^postgresql-server-dev-15$' 'postgres.h without pgxs.mk: asks for postgresql-server-dev-15'

# no pg_config at all
out="$(TSM_PG_CONFIG="$tmp/none/pg_config" tsm_missing_deps build test)"
tap_like "$out" '^postgresql-server-dev-15$' 'no pg_config: asks for postgresql-server-dev-15'
tap_like "$out" '^postgresql-15$' 'no pg_config: asks for postgresql-15'
tap_like "$out" '^postgresql-15-pgtap$' 'no pg_config: asks for postgresql-15-pgtap'

# no server, no pgTAP
mkdir -p "$tmp/bare/bin" "$tmp/bare/share"
bare="$(fake_pg_config bare "$tmp/bare/bin" "$full/include/server" "$full/lib/pgxs/src/makefiles/pgxs.mk" "$tmp/bare/share")"
out="$(TSM_PG_CONFIG="$bare" tsm_missing_deps build test)"
tap_like "$out" '^postgresql-15$' 'no postgres binary: asks for postgresql-15'
tap_like "$out" '^postgresql-client-15$' 'no psql: asks for postgresql-client-15'
tap_like "$out" '^postgresql-15-pgtap$' 'no pgtap.control: asks for postgresql-15-pgtap'

# tsm_install_deps hands the list to apt-get (a stand-in here)
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$tmp" >"$tmp/fakebin/apt-get"
chmod +x "$tmp/fakebin/apt-get"
( SUDO=""; PATH="$tmp/fakebin:$PATH"; TSM_PG_CONFIG="$noheaders" tsm_install_deps build ) 2>/dev/null
tap_like "$(cat "$tmp/apt.log" 2>/dev/null)" '^apt-get install .*postgresql-server-dev-15' \
    'tsm_install_deps runs apt-get install postgresql-server-dev-15 for a tree without headers'
rm -f "$tmp/apt.log"
( SUDO=""; PATH="$tmp/fakebin:$PATH"; TSM_PG_CONFIG="$complete" tsm_install_deps build ) 2>/dev/null
tap_ok 'tsm_install_deps runs no apt-get when nothing is missing' test ! -e "$tmp/apt.log"

# this machine, after scripts/test.sh's tsm_install_deps: nothing missing
groups=(build test)
[ -n "${TSMINE_SKIP_PYTHON:-}" ] || groups+=(python)
[ -n "${TSMINE_SKIP_PACKAGE:-}" ] || groups+=(package)
out="$(tsm_missing_deps "${groups[@]}")"
tap_is "$out" "" 'this machine has everything the build and tests need'
tap_done
