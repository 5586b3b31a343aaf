#!/usr/bin/env bash
# The tests start their own redis-server; install Debian's package when it is missing.
set -euo pipefail
here="$(dirname "$0")"
command -v redis-server >/dev/null 2>&1 && exit 0
bash "$here/ensure-package.sh" redis-server redis-server
# The tests run their own instance on a free port; the packaged service is not needed.
(service redis-server stop || true) >/dev/null 2>&1
