#!/bin/sh
# scripts/backup/restore.sh <dir>: puts a backup.sh copy back, into fresh places only.
#   IMAGES_DATABASE_URL, TOOLS_DATABASE_URL  empty databases, reached as the service's role (on a new
#                                           compose volume the init script made both); each one set
#                                           whose dump is in <dir> is restored, in one transaction
#   IMAGES_STORAGE_DIR                      where the files go: its public/, bin/ and thumbs/ must be empty
# Nothing is changed when a database already has tables or the storage already has files.
set -eu
dir="${1:?usage: restore.sh <dir>}"
if [ -n "${IMAGES_STORAGE_DIR:-}" ] && [ -f "$dir/images-files.tar" ]; then
  for area in public bin thumbs; do
    if [ -d "$IMAGES_STORAGE_DIR/$area" ] && [ -n "$(ls -A "$IMAGES_STORAGE_DIR/$area")" ]; then
      echo "$IMAGES_STORAGE_DIR/$area is not empty: restore into new storage" >&2
      exit 1
    fi
  done
fi
for service in images tools; do
  eval "url=\${$(echo "$service" | tr a-z A-Z)_DATABASE_URL:-}"
  [ -n "$url" ] && [ -f "$dir/$service.dump" ] || continue
  tables=$(psql --no-psqlrc --tuples-only --no-align --dbname="$url" -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
  if [ "$tables" != 0 ]; then echo "the $service database is not empty ($tables tables): restore into a new one" >&2; exit 1; fi
done
for service in images tools; do
  eval "url=\${$(echo "$service" | tr a-z A-Z)_DATABASE_URL:-}"
  [ -n "$url" ] && [ -f "$dir/$service.dump" ] || continue
  pg_restore --exit-on-error --single-transaction --no-owner --no-privileges --dbname="$url" "$dir/$service.dump"
  echo "restored $service database"
done
if [ -n "${IMAGES_STORAGE_DIR:-}" ] && [ -f "$dir/images-files.tar" ]; then
  mkdir -p "$IMAGES_STORAGE_DIR"
  tar -C "$IMAGES_STORAGE_DIR" -xf "$dir/images-files.tar"
  echo "restored images files"
fi
