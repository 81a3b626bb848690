#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry). openlit's
# exporter speaks OTLP/HTTP JSON only: one encoding. The Agents SDK calls the
# Responses API by default, hence the responses-* names.
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "responses-tool-loop responses-stream responses-fail" "json"
