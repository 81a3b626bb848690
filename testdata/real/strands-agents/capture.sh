#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry). Two passes:
# Strands' default conventions, then latest-* with
# OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental (KEEP=1 adds them).
here="$(dirname "$0")"
set -e
"$here/../harness/capture-lib.sh" "$here" "tool-loop stream fail responses-tool-loop responses-stream"
OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental KEEP=1 \
  "$here/../harness/capture-lib.sh" "$here" "latest-tool-loop latest-stream"
