package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/explain"
	"github.com/agenttrace/agenttrace/semconv"
)

// renamedPrefix starts every renamed key: no key of the dialect table
// starts so.
const renamedPrefix = "untuned."

// renameKnownKeys rewrites a real payload as a library nobody tuned for
// would write it: every span attribute the dialect table reads (a
// field's source, a kind rule's key, a content key) gets renamedPrefix
// in front of its name, its value unchanged. It returns the original
// keys that hold usage (their name holds "token" or "usage").
func renameKnownKeys(td ptrace.Traces) map[string]bool {
	usage := map[string]bool{}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				a := sp.Attributes()
				var known []string
				for k := range a.All() {
					if semconv.IsKnownKey(k) || semconv.ContentKey(k) {
						known = append(known, k)
					}
				}
				for _, k := range known {
					v, _ := a.Get(k)
					v.CopyTo(a.PutEmpty(renamedPrefix + k))
					a.Remove(k)
					if l := strings.ToLower(k); strings.Contains(l, "token") || strings.Contains(l, "usage") {
						usage[k] = true
					}
				}
			}
		}
	}
	return usage
}

// explain --json on real payloads whose keys were renamed to unknown
// ones (made from the captures of testdata/real by renameKnownKeys, so
// that the model calls carry no key of the table): it names the model
// calls (as plain spans with unread keys, or as calls without usage when
// their span name still says what they are) and every renamed usage key
// as unread. The number of model calls is the server's (expected.json).
func TestExplainRenamedRealPayload(t *testing.T) {
	for _, p := range []string{
		"openllmetry-openai/payloads/tool-loop.traces.json",
		"openinference-openai/payloads/tool-loop.traces.json",
		"otel-instrumentation-openai/payloads/tool-loop.traces.json",
		"vercel-ai-v6/payloads/tool-loop.traces.json",
		"langfuse/payloads/tool-loop.traces.json",
		"strands-agents/payloads/tool-loop.traces.json",
	} {
		t.Run(p, func(t *testing.T) {
			lib := strings.Split(p, "/")[0]
			td := readOTLP(t, filepath.Join("../../testdata/real", p))
			usage := renameKnownKeys(td)
			require.NotEmpty(t, usage, "the payload reports usage")
			b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "renamed.json")
			require.NoError(t, os.WriteFile(path, b, 0o600))

			r := agenttrace(t, "", "explain", "--json", path)
			require.Equal(t, 1, r.code, "something was not understood: %s", r.stderr)
			var ex explain.Explanation
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &ex))
			assert.False(t, ex.Total.Understood)
			for k := range usage {
				assert.Contains(t, ex.Total.Unread, renamedPrefix+k, "a renamed usage key is named unread")
			}
			named := 0
			for _, s := range ex.Spans {
				plain := s.Kind == "span" && hasUsageKey(s.Unread)
				unusable := s.Kind == "inference" && s.Usage == nil
				if plain || unusable {
					named++
				}
			}
			raw, err := os.ReadFile(filepath.Join("../../testdata/real", lib, "expected.json"))
			require.NoError(t, err)
			var want realLibrary
			require.NoError(t, json.Unmarshal(raw, &want))
			assert.GreaterOrEqual(t, named, int(want.Scenarios["tool-loop"].ModelCalls),
				"every model call is named: a plain span with unread usage keys, or a call without usage")
		})
	}
}

func hasUsageKey(keys []string) bool {
	for _, k := range keys {
		if l := strings.ToLower(k); strings.Contains(l, "token") || strings.Contains(l, "usage") {
			return true
		}
	}
	return false
}
