#!/usr/bin/env bash
# Harbor (PyPI `harbor`, pinned below) for the Harbor export's compose test: Harbor needs
# Python >= 3.12 and this machine/CI has 3.11, with PyPI and Debian as the only sources. So:
# CPython built from Debian trixie's source tarball (pinned by sha256; no PGO: minutes, not
# tens of minutes), then a venv of its own with harbor. Idempotent: each step is skipped when
# its result is there. Prints the venv's `harbor` path last.
# Needs: a C toolchain and the -dev packages of ssl, ffi, zlib, sqlite3, bz2, lzma, readline
# (.ci/run installs them).
set -euo pipefail
PY_VERSION=3.13.5
PY_TARBALL=python3.13_${PY_VERSION}.orig.tar.xz
PY_SHA256=93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640
PY_URL=http://deb.debian.org/debian/pool/main/p/python3.13/${PY_TARBALL}
HARBOR_VERSION=0.25.0
CACHE=${WORKGYM_HARBOR_CACHE:-$HOME/.cache/workgym}
PREFIX=$CACHE/python3.13
VENV=$CACHE/harbor-venv
log() { echo "harbor.sh: $*" >&2; }

if [ ! -x "$PREFIX/bin/python3.13" ]; then
  build=$(mktemp -d)
  trap 'rm -rf "$build"' EXIT
  log "downloading CPython $PY_VERSION (Debian trixie's source)"
  curl -fsS --retry 3 -o "$build/$PY_TARBALL" "$PY_URL"
  echo "$PY_SHA256  $build/$PY_TARBALL" | sha256sum -c --quiet -
  tar -C "$build" -xJf "$build/$PY_TARBALL"
  log "building CPython $PY_VERSION into $PREFIX (a few minutes)"
  (cd "$build/Python-$PY_VERSION" \
    && ./configure --prefix="$PREFIX" >"$build/configure.log" 2>&1 \
    && make -j"$(nproc)" >"$build/make.log" 2>&1 \
    && make install >"$build/install.log" 2>&1) \
    || { tail -n 40 "$build"/*.log >&2; log "CPython build failed"; exit 1; }
  "$PREFIX/bin/python3.13" -c 'import ssl, sqlite3, zlib, bz2, lzma, ctypes' \
    || { log "CPython built without a module harbor needs (missing -dev package?)"; exit 1; }
fi
# (sed reads pip's whole output: `grep -q` would stop early and, under pipefail, the check
# would fail on pip's broken pipe and reinstall every time)
installed=$("$VENV/bin/python" -m pip show harbor 2>/dev/null | sed -n 's/^Version: //p' || true)
if [ ! -x "$VENV/bin/harbor" ] || [ "$installed" != "$HARBOR_VERSION" ]; then
  log "installing harbor==$HARBOR_VERSION into $VENV"
  rm -rf "$VENV"
  "$PREFIX/bin/python3.13" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "harbor==$HARBOR_VERSION"
fi
echo "$VENV/bin/harbor"
