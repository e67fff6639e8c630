#!/usr/bin/env bash
# src/glue/compat.h holds every PostgreSQL-version-specific call of the glue:
# every glue file includes it (through glue.h), no other file tests
# PG_VERSION_NUM, and the glue compiles, without a warning, with the calls as
# PostgreSQL 15.1+ has them, as 15.0 had them, and with the fallbacks for 14
# (against 15's headers: the fallbacks use only calls 14 has too); older
# versions stop with an #error that says why.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
set +e

bad="$(for f in src/glue/*.c; do [ "$(grep -m1 '^#include' "$f")" = '#include "glue.h"' ] || echo "$f"; done)"
tap_is "$bad" '' 'every glue file includes glue.h first'
tap_like "$(grep '^#include' src/glue/glue.h)" '^#include "compat.h"' '... and glue.h includes compat.h'
tap_is "$(grep -rl 'PG_VERSION_NUM' src kernels | grep -v '^src/glue/compat.h$')" '' \
    'only compat.h tests PG_VERSION_NUM'

cflags=($(tsm_pg_config --cflags) -Wno-declaration-after-statement -I"$(tsm_pg_config --includedir-server)" -Isrc/core
        -DTSM_VERSION='"test"')
compile() {  # compile VERSION|"": every glue file, syntax and warnings only
    local f out=""
    for f in src/glue/*.c; do
        out+="$(gcc "${cflags[@]}" ${1:+-DTSM_COMPAT_PG_VERSION_NUM=$1} -Werror -fsyntax-only "$f" 2>&1)"
    done
    printf '%s' "$out"
}
tap_is "$(compile '')" '' "the glue compiles against this PostgreSQL ($(tsm_pg_config --version))"
tap_is "$(compile 150000)" '' '... with the calls of PostgreSQL 15.0'
tap_is "$(compile 140000)" '' '... with the fallbacks for PostgreSQL 14'
expand() { gcc "${cflags[@]}" -DTSM_COMPAT_PG_VERSION_NUM="$1" -E "$2" 2>/dev/null; }
tap_like "$(expand 150000 src/glue/outliers.c)" 'SetSingleFuncCall\(' '15.0: InitMaterializedSRF is SetSingleFuncCall'
tap_like "$(expand 140000 src/glue/outliers.c)" 'tsm_compat_init_materialized_srf\(\(fcinfo\)' \
    '14: InitMaterializedSRF is the fallback'
tap_like "$(compile 130000)" 'needs PostgreSQL 14 or later' '13: an #error saying what is missing'
tap_done
