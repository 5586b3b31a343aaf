#!/usr/bin/env bash
# The docs page is tested in a real headless browser; install Debian's Chromium when it is missing.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "error: chromium is not installed: run 'sudo apt-get install -y chromium' and try again" >&2
  exit 1
fi
echo "installing chromium from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
