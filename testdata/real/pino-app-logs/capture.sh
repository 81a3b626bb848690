#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry).
export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
export OTEL_METRICS_EXPORTER=none
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "tool-loop"
