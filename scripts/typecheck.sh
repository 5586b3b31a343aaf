#!/usr/bin/env bash
# Type-checks the service (as `npm run build` compiles it) and everything with the tests,
# side by side: two single-threaded compilers, one core each.
set -uo pipefail
cd "$(dirname "$0")/.."
tsc=node_modules/.bin/tsc
"$tsc" -p tsconfig.json --noEmit &
service=$!
"$tsc" -p tsconfig.test.json --noEmit
tests=$?
wait "$service"
service_status=$?
exit $(( service_status || tests ))
