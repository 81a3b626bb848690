package converter_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// readBoth reads data record by record with Next, and in one go with
// ReadTraces, and returns both results.
func readBoth(t testing.TB, data []byte) (next, par []string, nextProbs, parProbs []string, nextErr, parErr error) {
	t.Helper()
	probs := func(r *artifact.Reader) []string {
		var out []string
		for _, p := range r.Problems() {
			out = append(out, p.Error())
		}
		return out
	}
	r1 := artifact.NewReader(bytes.NewReader(data), artifact.WithMaxLineSize(1<<16))
	var recs []artifact.Record
	for {
		rec, err := r1.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			nextErr = err
			break
		}
		recs = append(recs, *rec)
	}
	r2 := artifact.NewReader(bytes.NewReader(data), artifact.WithMaxLineSize(1<<16))
	td, err := r2.ReadTraces()
	parErr = err
	require.Equal(t, r1.Stats(), r2.Stats())
	return ptracecmp.Spans(artifact.ToTraces(recs)), ptracecmp.Spans(td), probs(r1), probs(r2), nextErr, parErr
}

// TestReadTracesMatchesNext: the in-place fast path gives the same spans,
// the same problems in the same order and the same counts as reading
// record by record, over bad lines, a second header, tool-dispatch records
// and a torn last line.
func TestReadTracesMatchesNext(t *testing.T) {
	var big bytes.Buffer
	encodeArtifact(t, benchBatch(), &big)
	lines := strings.SplitAfter(big.String(), "\n")
	var mixed strings.Builder
	for i, l := range lines {
		mixed.WriteString(l)
		switch i {
		case 3:
			mixed.WriteString("{not json\n")
		case 300:
			mixed.WriteString(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","resource":{"service.name":"second"}}` + "\n")
		case 400:
			mixed.WriteString(`{"kind":"call","tool":"legacy","ok":false,"code":"E","started_at":1767225600000,"elapsed_ms":5}` + "\n")
		case 500:
			mixed.WriteString(`{"kind":"mystery"}` + "\n\n")
		}
	}
	mixed.WriteString(`{"kind":"call","name":"torn","trace_id":"0102`)

	inputs := map[string][]byte{"bench": big.Bytes(), "mixed": []byte(mixed.String())}
	for _, pattern := range []string{"../testdata/golden/*.jsonl", "../testdata/legacy/*.jsonl"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			inputs[filepath.Base(f)] = b
		}
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			next, par, np, pp, ne, pe := readBoth(t, data)
			require.NoError(t, ne)
			require.NoError(t, pe)
			require.Equal(t, next, par)
			require.Equal(t, np, pp)
			if name == "mixed" {
				require.Len(t, pp, 3, fmt.Sprint(pp))
				require.Contains(t, pp[0], "line 5: invalid record")
				require.Contains(t, pp[1], "second header")
				require.Contains(t, pp[2], "torn last line")
			}
		})
	}
}
