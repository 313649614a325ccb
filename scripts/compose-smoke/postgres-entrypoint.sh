#!/usr/bin/env bash
# PostgreSQL from Debian's package, set up on first start from POSTGRES_USER, POSTGRES_PASSWORD and
# POSTGRES_DB (as the official postgres image does), then run in the foreground as `postgres`.
# PGPORT and POSTGRES_LISTEN (default *) choose where it listens. Started as root it hands the data
# to `postgres`; started as that user already (the chart's runAsUser 999), it runs as it is.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${PGPORT:=5432}" "${POSTGRES_LISTEN:=*}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
mkdir -p "$PGDATA" /run/postgresql
as_postgres=()
if [ "$(id -u)" = 0 ]; then
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  as_postgres=(runuser -u postgres --)
fi
as_postgres() { "${as_postgres[@]}" "$@"; }
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)" && printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile" && chown postgres "$pwfile"
  as_postgres initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
  echo "postgres: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
exec "${as_postgres[@]}" postgres -D "$PGDATA" -p "$PGPORT" -c listen_addresses="$POSTGRES_LISTEN" -c unix_socket_directories=/run/postgresql "$@"
