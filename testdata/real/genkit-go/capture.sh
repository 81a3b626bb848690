#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the Go module proxy). Protobuf only: the Go OTLP/HTTP exporter has no JSON encoding.
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "tool-loop stream stream-anthropic fail embeddings" "pb"
