#!/usr/bin/env bash
# Usage: ensure-package.sh COMMAND PACKAGE
# The tests start real programs (redis-server, chromium); install Debian's PACKAGE
# when COMMAND is missing. Exit 0 when it was there or is now.
set -euo pipefail
command="$1"
package="$2"
command -v "$command" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "error: $command is not installed: run 'sudo apt-get install -y $package' and try again" >&2
  exit 1
fi
echo "installing $package from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
# Package lists fetched in the last half hour (by the script for another program just before) will do.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -30 2>/dev/null)" ]; then
  apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends "$package" >/dev/null
