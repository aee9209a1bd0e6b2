#!/usr/bin/env bash
# Installs what the integration tests need when it can: redis-server from Debian's packages.
# Without it (and without REQUIRE_REDIS=1) the Redis suites are skipped with a printed reason.
set -uo pipefail
if ! command -v redis-server >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing redis-server from Debian's packages" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null 2>&1 \
      || echo "could not install redis-server; Redis suites will be skipped" >&2
  elif command -v sudo >/dev/null 2>&1; then
    (sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null 2>&1 \
      || echo "could not install redis-server; Redis suites will be skipped" >&2
  else
    echo "redis-server is not installed; Redis suites will be skipped (apt-get install redis-server)" >&2
  fi
fi
exit 0
