#!/usr/bin/env bash
# Runs a command with the fake model server + OTLP sink listening on loopback.
# Usage: with-server.sh CMD ARGS...   (FAKE_PORT overrides the port, default 47320)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export FAKE_PORT="${FAKE_PORT:-47320}"
export FAKE_BASE="http://127.0.0.1:${FAKE_PORT}"
node "$here/server.mjs" >/dev/null &
srv=$!
trap 'kill "$srv" 2>/dev/null || true; wait "$srv" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if node -e "fetch(process.env.FAKE_BASE+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then break; fi
  sleep 0.1
done
"$@"
