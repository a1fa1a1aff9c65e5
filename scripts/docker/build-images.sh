#!/usr/bin/env bash
# Builds every Dockerfile of the repository for real, as CI does: starts Debian's dockerd when none
# answers (the vfs storage driver: overlayfs cannot be mounted on this machine), makes the stand-in
# base images when missing (standin-base-images.sh), then builds
#   platform-images:ci  services/images/Dockerfile
#   platform-tools:ci   services/tools/Dockerfile
#   platform-proxy:ci   proxy/Dockerfile
# with BuildKit, through Debian's docker client (/usr/bin/docker: BuildKit without the buildx plugin,
# which is not packaged here). The Dockerfiles carry no `# syntax=` line, which would fetch a frontend
# image from a registry: BuildKit's built-in one reads them. Its cache stays in the daemon, so a run
# whose package-lock.json did not change skips the npm installs. (The legacy builder also works, but
# commits every instruction as a full copy of the file system on vfs: about 20 minutes per image.)
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! docker info >/dev/null 2>&1; then
  log=/var/log/platform-ci-dockerd.log
  echo "starting dockerd (--storage-driver=vfs, log in $log)"
  setsid dockerd --storage-driver=vfs >"$log" 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null
fi

scripts/docker/standin-base-images.sh

export DOCKER_BUILDKIT=1
docker=${DOCKER_BUILD_CLIENT:-/usr/bin/docker}
for spec in images:services/images/Dockerfile tools:services/tools/Dockerfile proxy:proxy/Dockerfile; do
  name=${spec%%:*}
  start=$(date +%s)
  "$docker" build -q -f "${spec#*:}" -t "platform-$name:ci" . >/dev/null
  echo "platform-$name:ci built from ${spec#*:} in $(($(date +%s) - start)) s ($(docker image inspect -f '{{.Size}}' "platform-$name:ci" | awk '{printf "%d MB", $1 / 1e6}'))"
done
# The previous run's images, untagged by this one's.
docker image prune -f >/dev/null
