#!/usr/bin/env bash
# PostgreSQL server (Debian's package) for the PostgreSQL event store tests. The tests start their
# own throw-away server on a free loopback port (services/platform/src/testing/engines/postgres.ts).
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "postgresql: $(ls -d /usr/lib/postgresql/*/bin | head -1) (present)"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "postgresql: installing with apt"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql
# The package may start a cluster of its own; the tests never use it.
$SUDO service postgresql stop >/dev/null 2>&1 || true
