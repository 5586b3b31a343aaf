#!/usr/bin/env bash
# The docs page is tested in a real headless browser; install Debian's Chromium when it is missing.
set -euo pipefail
exec bash "$(dirname "$0")/ensure-package.sh" chromium chromium
