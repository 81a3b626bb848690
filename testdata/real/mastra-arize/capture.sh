#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry). The
# ArizeExporter speaks OTLP/HTTP protobuf only: one encoding.
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "tool-loop stream fail" "pb"
