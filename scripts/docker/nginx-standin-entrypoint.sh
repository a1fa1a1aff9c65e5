#!/bin/sh
# The nginx stand-in's entrypoint (scripts/docker/standin-base-images.sh): what the official image's
# 20-envsubst-on-templates.sh does, only the variables that are set are substituted.
set -eu
for template in /etc/nginx/templates/*.template; do
  [ -e "$template" ] || continue
  out="/etc/nginx/conf.d/$(basename "$template" .template)"
  envsubst "$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')" <"$template" >"$out"
done
exec "$@"
