#!/usr/bin/env bash
# test/helmChart.test.ts renders deploy/helm/fastcar with helm, which no package here
# provides: build it from its Go module (helm.sh/helm/v3) once per machine, into a
# cache outside the checkout that every worktree and later run reuses. Prints the
# binary's path on stdout; what it did goes to stderr. With --background (npm's pretest),
# the build starts and the script returns at once: the lint, the typecheck and the other
# tests run meanwhile, and the chart's test waits for the build (the lock) when it starts.
set -euo pipefail
version="v3.22.0"
dir="${FASTCAR_HELM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fastcar/helm-$version}"
helm="$dir/helm"
if [ -x "$helm" ]; then
  echo "$helm"
  exit 0
fi
go_bin="$(command -v go || true)"
[ -n "$go_bin" ] || go_bin=/usr/local/go/bin/go
if [ ! -x "$go_bin" ]; then
  echo "ensure-helm: no Go toolchain (go, or /usr/local/go/bin/go); test/helmChart.test.ts will fail" >&2
  exit 0
fi
mkdir -p "$dir"
if [ "${1:-}" = "--background" ]; then
  nohup bash "$0" >"$dir/build.log" 2>&1 </dev/null &
  echo "ensure-helm: building helm $version in the background (log: $dir/build.log)" >&2
  exit 0
fi
# One build per machine: runs started together (other worktrees' pretest) wait for it.
exec 9>"$dir/.lock"
flock 9
if [ ! -x "$helm" ]; then
  started=$(date +%s)
  partial="$dir/.partial"
  rm -rf "$partial"
  mkdir -p "$partial"
  # Stamped as helm's release Makefile stamps it: its version, and the Kubernetes version
  # its client-go (v0.37) speaks, which `helm template` and `helm lint` assume without a
  # cluster (unstamped, a go-installed helm assumes 1.20). A static binary, the module's
  # own go.mod honoured whatever the caller's GOFLAGS say.
  stamp="-X helm.sh/helm/v3/internal/version.version=$version"
  for package in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
    stamp="$stamp -X $package.k8sVersionMajor=1 -X $package.k8sVersionMinor=37"
  done
  # A failed build (no Go module proxy) stops only the chart's test, which says why, not `npm test`.
  if ! CGO_ENABLED=0 GOBIN="$partial" GOFLAGS=-mod=mod "$go_bin" install -trimpath -ldflags "-s -w $stamp" "helm.sh/helm/v3/cmd/helm@$version" >&2; then
    rm -rf "$partial"
    echo "ensure-helm: building helm $version failed after $(($(date +%s) - started)) s; test/helmChart.test.ts will fail" >&2
    exit 0
  fi
  mv "$partial/helm" "$helm"
  rm -rf "$partial"
  echo "ensure-helm: built helm $version in $(($(date +%s) - started)) s into $dir (once per machine)" >&2
fi
echo "$helm"
