#!/bin/sh
# The nginx stand-in's entrypoint (scripts/docker/standin-base-images.sh): what the official image's
# entrypoint does with /docker-entrypoint.d/ (executable *.envsh files sourced in order, so what they
# export reaches the templates) and its 20-envsubst-on-templates.sh (only the variables that are set
# are substituted).
set -eu
for script in /docker-entrypoint.d/*.envsh; do
  [ -x "$script" ] || continue
  . "$script"
done
for template in /etc/nginx/templates/*.template; do
  [ -e "$template" ] || continue
  out="/etc/nginx/conf.d/$(basename "$template" .template)"
  envsubst "$(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')" <"$template" >"$out"
done
exec "$@"
