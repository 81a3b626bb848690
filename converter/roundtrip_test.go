package converter_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// TestRoundTripProperty is the lossless promise: random spans covering
// every OTLP field and attribute type survive OTLP -> JSONL -> OTLP
// exactly, and JSONL -> OTLP -> JSONL gives back the same bytes.
func TestRoundTripProperty(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	for seed := range uint64(n) {
		td := newGen(seed).traces()
		want := ptracecmp.Spans(td)
		j1 := artifacttest.Encode(t, td)
		recs, _ := artifacttest.ReadBytes(t, j1)
		back := artifact.ToTraces(recs)
		if !assertEqualSpans(t, want, ptracecmp.Spans(back), seed, j1) {
			return
		}
		j2 := artifacttest.Encode(t, back)
		if !bytes.Equal(j1, j2) {
			require.Equal(t, string(j1), string(j2), "seed %d: JSONL -> OTLP -> JSONL changed the artifact", seed)
		}
	}
}

// TestGenReplays: a seed names one set of traces, so a failure reported
// with its seed can be replayed.
func TestGenReplays(t *testing.T) {
	for seed := range uint64(5) {
		require.Equal(t, ptracecmp.Spans(newGen(seed).traces()), ptracecmp.Spans(newGen(seed).traces()), "seed %d", seed)
	}
}

func assertEqualSpans(t *testing.T, want, got []string, seed uint64, jsonl []byte) bool {
	t.Helper()
	if len(want) == len(got) {
		same := true
		for i := range want {
			if want[i] != got[i] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	t.Logf("artifact:\n%s", jsonl)
	require.Equal(t, want, got, "seed %d: OTLP -> JSONL -> OTLP is not exact", seed)
	return false
}

func spansOf(td ptrace.Traces) []string { return ptracecmp.Spans(td) }
