#!/usr/bin/env bash
# The tests start a real redis-server; install Debian's package when it is missing.
set -euo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "error: redis-server is not installed: run 'sudo apt-get install -y redis-server' and try again" >&2
  exit 1
fi
echo "installing redis-server from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends redis-server >/dev/null
# The tests run their own instance on a free port; the packaged service is not needed.
(service redis-server stop || true) >/dev/null 2>&1
