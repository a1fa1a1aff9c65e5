#!/bin/sh
# Run once by the postgres image on an empty data volume (docker-entrypoint-initdb.d): per service a
# login role and a database it owns, and nothing else. The role's password is the secret file
# <service>_db_password (the same password is in <service>_database_url). The services and their
# migrate one-shots connect as their role: images cannot open tools' database, nor tools images', and
# neither opens the postgres database; as owner each may create its tables and the pg_trgm extension.
#
# SERVICE_DATABASES (default "images tools"), SECRETS_DIR (default /run/secrets) and
# REVOKE_POSTGRES_DATABASE (default yes) are for the test that runs this script against a shared
# server (scripts/e2e/postgres-roles.test.ts).
set -eu
secrets_dir="${SECRETS_DIR:-/run/secrets}"
for service in ${SERVICE_DATABASES:-images tools}; do
  password_file="$secrets_dir/${service}_db_password"
  password="$(cat "$password_file")"
  if [ -z "$password" ]; then
    echo "$password_file must not be empty (docs/operating.md, Secrets)" >&2
    exit 1
  fi
  psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    -v role="$service" -v password="$password" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE DATABASE :"role" OWNER :"role";
REVOKE ALL ON DATABASE :"role" FROM PUBLIC;
SQL
done
[ "${REVOKE_POSTGRES_DATABASE:-yes}" = no ] ||
  psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -c 'REVOKE CONNECT, TEMPORARY ON DATABASE postgres FROM PUBLIC'
