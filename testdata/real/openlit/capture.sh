#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry). openlit's
# own exporter speaks OTLP/HTTP JSON only: one encoding.
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "tool-loop stream fail embeddings responses-tool-loop responses-stream" "json"
