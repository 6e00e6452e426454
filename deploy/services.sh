#!/usr/bin/env bash
# Native alternative to `docker compose up postgres redis`: start (or stop) the local services and
# print the environment variables that point the workbench at them.
set -euo pipefail
cmd=${1:-up}
DB=${DB_NAME:-workbench}
case "$cmd" in
  up)
    if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
    fi
    if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
      redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
    fi
    psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DB'" | grep -q 1 \
      || createdb -h 127.0.0.1 -U postgres "$DB"
    echo "export DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB"
    echo "export REDIS_URL=redis://127.0.0.1:6379/0"
    echo "# then: make migrate; make web & make worker   (or: make run)"
    ;;
  down)
    redis-cli -h 127.0.0.1 -p 6379 shutdown nosave 2>/dev/null || true
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main stop || true
    ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
