#!/bin/sh
# Entry point of the locally built PostgreSQL image. It follows the same contract as the official image
# for what the deploy flow uses: POSTGRES_USER / POSTGRES_PASSWORD, *.sql files in
# /docker-entrypoint-initdb.d run once on a fresh data directory, and the command `postgres [args]`.
# Only shell builtins and PostgreSQL binaries are available in the image.
set -e
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
if [ "$1" = postgres ]; then shift; fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "$POSTGRES_PASSWORD" ]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD is required" >&2
    exit 1
  fi
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/.pwfile
  # Synapse needs C collation; host connections use passwords, the in-container socket is trusted.
  initdb -D "$PGDATA" -U "$user" --pwfile=/tmp/.pwfile --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C --no-sync >/dev/null
  : >/tmp/.pwfile
  # Run the init scripts through psql against a temporary server reachable only by the socket.
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/tmp" start >/dev/null
  for f in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$f" ] || continue
    echo "postgres-entrypoint: running $f"
    psql -v ON_ERROR_STOP=1 -q -h /tmp -U "$user" -d postgres -f "$f"
  done
  pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
  echo "postgres-entrypoint: initialised $PGDATA"
fi
exec postgres -D "$PGDATA" -c unix_socket_directories=/tmp -c jit=off "$@"
