package store

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/failwriter"
)

// spanRange is n spans of one run, of ids from id on.
func spanRange(from, n int) []span {
	out := make([]span, n)
	for i := range out {
		j := from + i
		out[i] = span{trace: byte(j/200 + 1), id: byte(j%200 + 2), parent: 1}
	}
	return out
}

// TestWriterThatFailsAfterNBytes: Options.Writer over a writer that fails
// part-way through a write (issue 13: "a writer that fails after N
// bytes"). A Writer cannot be cut back, so the store holds what it did not
// take and writes it first once there is room: no line is ever glued onto
// a torn one, the write that tore is not reported as failed (its records
// are in the stream, whole, once it recovers), later writes fail whole
// until then and are retried by the caller, and the trailer equals the
// stream. A writer that never recovers leaves a torn last line and no
// trailer, and Close says so.
func TestWriterThatFailsAfterNBytes(t *testing.T) {
	tests := []struct {
		name    string
		first   []span // written with plenty of room
		room    int    // then the room left, counted from the end of first
		torn    []span // the write that tears (room > 0) or fails whole (room 0)
		recover bool   // room comes back before the retry and Close
	}{
		{name: "torn mid-record", first: spanRange(0, 2), room: 40, torn: spanRange(2, 2), recover: true},
		{name: "torn mid-header", room: 30, torn: spanRange(0, 3), recover: true},
		{name: "torn in a pipelined write", first: spanRange(0, 1), room: 5000, torn: spanRange(1, 400), recover: true},
		{name: "takes nothing", first: spanRange(0, 2), room: 0, torn: spanRange(2, 2), recover: true},
		{name: "never recovers", first: spanRange(0, 2), room: 40, torn: spanRange(2, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := failwriter.New(1<<30, errFull)
			var heard []error
			var mu sync.Mutex
			s := newStore(t, Options{Writer: w, OnError: func(err error) {
				mu.Lock()
				heard = append(heard, err)
				mu.Unlock()
			}})
			if len(tt.first) > 0 {
				require.NoError(t, s.Write(records(tt.first...)))
			}
			w.SetRoom(tt.room)
			err := s.Write(records(tt.torn...))
			want := len(tt.first) + len(tt.torn)
			if tt.room == 0 {
				var we *WriteError
				require.ErrorAs(t, err, &we, "a write that took nothing fails")
				assert.Len(t, we.Failed, len(tt.torn))
			} else {
				require.NoError(t, err, "what the writer took part of is the store's to finish")
				mu.Lock()
				require.Len(t, heard, 1)
				assert.ErrorIs(t, heard[0], errFull, "the writer's error is heard")
				mu.Unlock()
				// Until the rest is written, every write fails whole.
				later := records(spanRange(want, 2)...)
				var we *WriteError
				require.ErrorAs(t, s.Write(later), &we)
				assert.Len(t, we.Failed, 2)
			}
			if !tt.recover {
				require.ErrorIs(t, s.Close(), errFull, "Close says the stream is unfinished")
				raw := w.Bytes()
				require.NotEqual(t, byte('\n'), raw[len(raw)-1], "a torn last line")
				r := readBack(t, raw)
				assert.Nil(t, r.summary, "no trailer after a torn line")
				require.Len(t, r.problems, 1)
				assert.ErrorIs(t, r.problems[0].Err, artifact.ErrTornLine)
				return
			}
			w.SetRoom(1 << 30)
			// The caller retries what failed, and all of it: what is in
			// the stream already is skipped.
			require.NoError(t, s.Write(records(spanRange(0, want+2)...)))
			require.NoError(t, s.Close())

			raw := w.Bytes()
			for i, l := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
				assert.True(t, json.Valid(l), "line %d glued or torn: %.200s", i+1, l)
			}
			r := readBack(t, raw) // the trailer equals the stream
			assert.Empty(t, r.problems)
			assert.Equal(t, 1, r.headers)
			require.NotNil(t, r.summary)
			assert.Equal(t, int64(want+2), r.summary.Records, "every span once")
			ids := map[artifact.SpanKey]bool{}
			for _, rec := range r.recs {
				k := artifact.SpanKey{Trace: rec.Span.TraceID(), Span: rec.Span.SpanID()}
				assert.False(t, ids[k], "span %v twice", k)
				ids[k] = true
			}
		})
	}
}

// TestWriterErrorsAreWrapped: the error of a writer that takes nothing
// reaches the caller as itself (errors.Is), with the artifact named.
func TestWriterErrorsAreWrapped(t *testing.T) {
	w := failwriter.New(0, errFull)
	s := newStore(t, Options{Writer: w})
	err := s.Write(records(span{trace: 1, id: 2, parent: 1}))
	require.ErrorIs(t, err, errFull)
	assert.Contains(t, err.Error(), "write artifact")
}
