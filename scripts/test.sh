#!/usr/bin/env bash
# npm test after lint: the type-check and the suites side by side, either failing fails the run.
# Many suites wait on nodes, timeouts and processes more than they compute: three workers on two
# cores, the type-check's two compilers beside them at the start (docs/devnet.md).
set -uo pipefail
cd "$(dirname "$0")/.."
types_log=$(mktemp -t fastcar-typecheck.XXXXXX)
bash scripts/typecheck.sh >"$types_log" 2>&1 &
types=$!
node_modules/.bin/jest --maxWorkers=3 "$@"
tests_status=$?
wait "$types"
types_status=$?
if [ "$types_status" -ne 0 ]; then
  echo "type-check failed:" >&2
  cat "$types_log" >&2
fi
rm -f "$types_log"
exit $((tests_status || types_status))
