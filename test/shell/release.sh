#!/usr/bin/env bash
# The release files: LICENSE, META.json (PGXN Meta Spec 1.0.0), the versions
# in the control file, META.json and debian/changelog, the frozen scripts of
# released versions and the update paths from them, and `make dist`.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$TSM_ROOT/test/shell/tap.bash"
cd "$TSM_ROOT"
set +e
version="$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" tsmine.control)"

tap_like "$(head -1 LICENSE)" '^PostgreSQL License$' 'LICENSE is the PostgreSQL License'
tap_like "$(cat LICENSE)" '^Copyright \(c\) [0-9-]+, the tsmine developers$' '... of the tsmine developers'
tap_like "$(grep '^comment' tsmine.control)" 'PostgreSQL License' "the control file's comment names it"
tap_like "$(cat README.md)" 'PostgreSQL License' 'README names it'

tap_ok 'META.json follows the PGXN Meta Spec 1.0.0' "$TSM_PYTHON" test/shell/pgxn_meta.py META.json .
meta() { "$TSM_PYTHON" -c "import json, sys; m = json.load(open('META.json')); print($1)"; }
tap_is "$(meta "m['version']")" "$version" "META.json's version is the control file's ($version)"
tap_is "$(meta "m['provides']['tsmine']['version']")" "$version" "... and so is the extension's in provides"
tap_is "$(meta "m['license']")" 'postgresql' "META.json's license is postgresql"
tap_is "$(make -s print-version PG_CONFIG="$(tsm_pg_config_path)")" "$version" "the Makefile builds $version"
tap_is "$(dpkg-parsechangelog -S Version | sed 's/-[^-]*$//')" "$version" "debian/changelog's upstream version is $version"
tap_is "$(sed 's/PGVERSION/15/' debian/control.in)" "$(cat debian/control)" 'debian/control is debian/control.in for PostgreSQL 15'

# released scripts never change: their files are what users installed
tap_is "$(sha256sum versions/tsmine--0.1.0.sql | cut -d' ' -f1)" \
       a9821b3602b02e7b9634891d331252d483fa37eaae1026693249bdfb02a7a0c5 'the released 0.1.0 script is unchanged'
tap_ok "no script of $version in versions/ while it is built from extension/" test ! -e "versions/tsmine--$version.sql"
# every released version reaches the current one through update scripts
for full in versions/tsmine--*.sql; do
    case "$full" in *--*--*) continue ;; esac
    from="${full#versions/tsmine--}"; from="${from%.sql}"
    reach=" $from "
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        for up in versions/tsmine--*--*.sql; do
            a="${up#versions/tsmine--}"; b="${a#*--}"; a="${a%%--*}"; b="${b%.sql}"
            [[ "$reach" == *" $a "* && "$reach" != *" $b "* ]] && reach="$reach$b "
        done
    done
    tap_like "$reach" " $version " "update scripts lead from $from to $version"
done

# make dist: the committed tree, under tsmine-$version/ (where the work tree
# is not HEAD's, e.g. a copy of the tree with a stale .git, the archive could
# not equal it: skipped there)
if ! git diff --quiet HEAD -- 2>/dev/null; then
    tap_skip 12 'the work tree differs from HEAD'
else
    had_zip=no; [ -e "tsmine-$version.zip" ] && had_zip=yes
    tap_ok 'make dist' make -s dist PG_CONFIG="$(tsm_pg_config_path)"
    tap_ok "it writes tsmine-$version.zip" test -f "tsmine-$version.zip"
    listing="$("$TSM_PYTHON" -c "import sys, zipfile; print('\n'.join(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if not n.endswith('/')))" "tsmine-$version.zip" | sort)"
    tap_is "$(printf '%s\n' "$listing" | grep -vc "^tsmine-$version/")" 0 "every file is under tsmine-$version/"
    tap_is "$listing" "$(git ls-tree -r --name-only HEAD | sed "s#^#tsmine-$version/#" | sort)" 'the archive holds exactly the files of HEAD'
    for f in LICENSE META.json tsmine.control Makefile README.md versions/tsmine--0.1.0.sql debian/rules; do
        tap_like "$listing" "^tsmine-$version/$f\$" "... $f among them"
    done
    tap_unlike "$listing" '\.(o|so|deb|zip)$' '... and no build product'
    [ "$had_zip" = yes ] || rm -f "tsmine-$version.zip"
fi
tap_done
