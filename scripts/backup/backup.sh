#!/bin/sh
# scripts/backup/backup.sh <dir>: a consistent copy of the platform's data into <dir> (README.md,
# "Production"; docs/operating.md, "Backups").
#   IMAGES_DATABASE_URL, TOOLS_DATABASE_URL  the databases (either may be left unset to skip it)
#   IMAGES_STORAGE_DIR                      the images' files (the images-data volume); unset when the
#                                           bucket holds them (copy it with the store's own tools)
# The databases first, then the files: an image stored in between is a file without a row (no list
# shows it, no quota counts it), never a row without its file. Writes images.dump, tools.dump
# (pg_dump's custom format, without owners or grants: restore.sh restores them as the service's role)
# and images-files.tar (public/, bin/, thumbs/; not tmp/, uploads in flight).
set -eu
dir="${1:?usage: backup.sh <dir>}"
mkdir -p "$dir"
if [ -n "$(ls -A "$dir")" ]; then echo "$dir is not empty: back up into a new folder" >&2; exit 1; fi
for service in images tools; do
  eval "url=\${$(echo "$service" | tr a-z A-Z)_DATABASE_URL:-}"
  [ -n "$url" ] || continue
  pg_dump --format=custom --no-owner --no-privileges --file="$dir/$service.dump" --dbname="$url"
  echo "$dir/$service.dump"
done
if [ -n "${IMAGES_STORAGE_DIR:-}" ]; then
  areas=""
  for area in public bin thumbs; do [ -d "$IMAGES_STORAGE_DIR/$area" ] && areas="$areas $area"; done
  # shellcheck disable=SC2086 # the areas are words
  tar -C "$IMAGES_STORAGE_DIR" -cf "$dir/images-files.tar" $areas
  echo "$dir/images-files.tar"
fi
