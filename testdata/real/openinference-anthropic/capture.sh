#!/usr/bin/env bash
# Regenerates payloads/ and expected.json (needs the npm registry). No embeddings: the Anthropic API has none.
exec "$(dirname "$0")/../harness/capture-lib.sh" "$(dirname "$0")" "tool-loop stream fail double-tool-loop double-stream double-fail"
