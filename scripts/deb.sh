#!/usr/bin/env bash
# Builds the Debian package postgresql-15-tsmine (debian/, pg_buildext) with
# `dpkg-buildpackage -us -uc -b`, from a copy of this checkout's files (tracked
# and untracked ones that git does not ignore: no build products), and puts
# the .deb into OUTDIR (default: the checkout's root, where git ignores it).
# The GPU build where nvcc is found ($CUDA_HOME/bin/nvcc, by default
# /usr/local/cuda), the CPU-only build otherwise; WITH_CUDA=no forces it.
#   scripts/deb.sh [OUTDIR]      prints the path of the .deb last
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tsm_install_deps build package
out="$(mkdir -p "${1:-$TSM_ROOT}" && cd "${1:-$TSM_ROOT}" && pwd)"
version="$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$TSM_ROOT/tsmine.control")"
work="$(mktemp -d /tmp/tsmine-deb.XXXXXX)"
trap 'rm -rf "$work"' EXIT
src="$work/tsmine-$version"
mkdir "$src"
( cd "$TSM_ROOT" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - ) | tar -xf - -C "$src"
tsm_log "building the Debian package ($( [ "${WITH_CUDA:-}" != no ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] \
    && echo 'GPU build: nvcc found' || echo 'CPU-only build'))"
( cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)" ) >"$work/build.log" 2>&1 \
    || { tail -50 "$work/build.log"; echo "dpkg-buildpackage failed" >&2; exit 1; }
debs=("$work"/postgresql-*-tsmine_*.deb)
[ -f "${debs[0]}" ] || { tail -50 "$work/build.log"; echo "no .deb was built" >&2; exit 1; }
cp "${debs[@]}" "$out/"
for d in "${debs[@]}"; do echo "$out/$(basename "$d")"; done
