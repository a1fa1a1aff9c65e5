#!/usr/bin/env bash
# Prints the path of a current PgBouncer (1.24, the version in Debian 13) for CI, built once from
# Debian's source tarball (Debian 12, this machine, packages 1.18, which has no
# max_prepared_statements; only Debian's archive is reachable here) into CI_CACHE_DIR (default
# /var/cache/platform-ci), where later runs find it. Needs gcc, make, pkg-config, libevent-dev and
# libssl-dev (.ci/run installs them). Built without c-ares, PAM and systemd: the tests use none.
set -euo pipefail
VERSION=1.24.1
SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
TARBALL_URL="${DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/p/pgbouncer/pgbouncer_$VERSION.orig.tar.gz"
dir="${CI_CACHE_DIR:-/var/cache/platform-ci}/pgbouncer-$VERSION"
if [ ! -x "$dir/bin/pgbouncer" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  curl -fsS --retry 3 -o "$work/src.tar.gz" "$TARBALL_URL"
  echo "$SHA256  $work/src.tar.gz" | sha256sum -c --quiet
  tar -xzf "$work/src.tar.gz" -C "$work"
  (cd "$work/pgbouncer-$VERSION" &&
    ./configure --prefix="$dir" --without-cares --without-pam --without-systemd >"$work/configure.log" 2>&1 &&
    make -j"$(nproc)" pgbouncer >"$work/make.log" 2>&1) ||
    { tail -30 "$work"/*.log >&2; exit 1; }
  mkdir -p "$dir/bin"
  install -m 0755 "$work/pgbouncer-$VERSION/pgbouncer" "$dir/bin/pgbouncer.partial"
  mv "$dir/bin/pgbouncer.partial" "$dir/bin/pgbouncer"
fi
echo "$dir/bin/pgbouncer"
