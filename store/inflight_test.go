package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
)

// Start records (issue 24 point 5): a span's in-flight record is a line
// only. The ended record after it is no duplicate; neither the trailer's
// counts nor its tokens take the start record; validate accepts an
// in-flight record without an end while no trailer follows it, and
// reports one a finalized artifact still holds.
func TestWriteInFlight(t *testing.T) {
	tests := []struct {
		name string
		// started are the spans written in flight first, ended those
		// written (ended) after; closed closes the store.
		started, ended []span
		closed         bool
		// records and tokens the trailer counts (no trailer: -1);
		// inFlight lines; problems validate reports.
		records, tokens int64
		inFlight        int
		problems        []string
	}{
		{"superseded, finalized", []span{{trace: 1, id: 1}, {trace: 1, id: 2, parent: 1}},
			[]span{{trace: 1, id: 2, parent: 1}, {trace: 1, id: 1}}, true, 2, 15, 2, nil},
		{"in flight, live", []span{{trace: 1, id: 1}, {trace: 1, id: 2, parent: 1}},
			[]span{{trace: 1, id: 2, parent: 1}}, false, -1, 0, 2, nil},
		{"a span never ended, finalized", []span{{trace: 1, id: 1}, {trace: 1, id: 3, parent: 1}},
			[]span{{trace: 1, id: 2, parent: 1}, {trace: 1, id: 1}}, true, 2, 15, 2,
			[]string{"span " + sid(3).String() + " of trace " + tid(1).String() + " is in flight (a start record) and never ended, in a finalized artifact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir})
			require.NoError(t, s.WriteInFlight(records(tt.started...)))
			require.NoError(t, s.Write(records(tt.ended...)))
			if tt.closed {
				require.NoError(t, s.Close())
			} else {
				require.NoError(t, s.Flush())
			}
			raw, err := os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
			require.NoError(t, err)
			assert.Equal(t, tt.inFlight, strings.Count(string(raw), `"in_flight":true`))
			for _, l := range strings.Split(string(raw), "\n") {
				if strings.Contains(l, `"in_flight":true`) {
					assert.NotContains(t, l, `"finished_at"`, "a start record has no end")
				}
			}
			rd := artifact.NewReader(bytes.NewReader(raw))
			n := 0
			for {
				if _, err := rd.Next(); err != nil {
					break
				}
				n++
			}
			assert.Equal(t, len(tt.ended), n, "a reader returns the ended records only")
			assert.EqualValues(t, tt.inFlight, rd.Stats().InFlight)
			if tt.records < 0 {
				assert.Nil(t, rd.Summary())
			} else {
				require.NotNil(t, rd.Summary())
				assert.Equal(t, tt.records, rd.Summary().Records)
				assert.Equal(t, tt.tokens, rd.Summary().Tokens.Total)
			}
			rep, err := artifact.Validate(bytes.NewReader(raw))
			require.NoError(t, err)
			var problems []string
			for _, p := range rep.Problems {
				problems = append(problems, p.Err.Error())
			}
			assert.Equal(t, tt.problems, problems)
		})
	}
}

// A start record is redacted as its ended record is: a secret in an
// attribute the span had at its start never reaches the file.
func TestWriteInFlightRedacts(t *testing.T) {
	const key = "sk-proj-Q7vR2mXk9LpT4wYz8NcB3dFh6JsA1eGu5KoI0qWtVbPnMx"
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Redactor: redact.New(nil, true)})
	recs := records(span{trace: 1, id: 1})
	recs[0].Span.Attributes().PutStr("http.request.header.authorization", "Bearer "+key)
	require.NoError(t, s.WriteInFlight(recs))
	require.NoError(t, s.Flush())
	raw, err := os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"in_flight":true`)
	assert.NotContains(t, string(raw), key)
	assert.Contains(t, string(raw), "[REDACTED]")
}
