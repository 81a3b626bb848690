package converter_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// toJSONL writes td as one artifact, the way `agenttrace convert` does.
func toJSONL(t testing.TB, td ptrace.Traces) []byte {
	t.Helper()
	recs := artifact.Records(td)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, artifact.MetaFor(recs))
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// readAll reads an artifact, failing the test on any problem.
func readAll(t testing.TB, b []byte) ([]artifact.Record, *artifact.Reader) {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(b))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		recs = append(recs, *rec)
	}
	require.Empty(t, r.Problems())
	return recs, r
}

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
		j1 := toJSONL(t, td)
		recs, _ := readAll(t, j1)
		back := artifact.ToTraces(recs)
		if !assertEqualSpans(t, want, ptracecmp.Spans(back), seed, j1) {
			return
		}
		j2 := toJSONL(t, back)
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
