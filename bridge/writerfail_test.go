package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bridge"
)

// roomWriter is a writer with room bytes left: a write that does not fit
// is written as far as it fits, then fails (a full disk behind an
// io.Writer); more room may come later.
type roomWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	room int
}

func (w *roomWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(p) <= w.room {
		w.room -= len(p)
		return w.buf.Write(p)
	}
	k := w.room
	w.room = 0
	w.buf.Write(p[:k])
	return k, errors.New("no space left on device")
}

func (w *roomWriter) free(n int) {
	w.mu.Lock()
	w.room += n
	w.mu.Unlock()
}

// TestWriterThatFailsAfterNBytes: WithWriter over a writer that fails
// part-way through a line, then has room again. No line is glued onto a
// partial one, and the trailer equals what the reader reads.
func TestWriterThatFailsAfterNBytes(t *testing.T) {
	w := &roomWriter{room: 1500}
	p := newProcessor(t, bridge.WithWriter(w), bridge.WithBatchSize(1))
	tr := provider(t, p)
	for range 10 {
		chat(context.Background(), tr, 10, 5)
		require.NoError(t, p.ForceFlush(context.Background()))
	}
	w.free(1 << 20)
	for range 3 {
		chat(context.Background(), tr, 10, 5)
	}
	require.NoError(t, p.Shutdown(context.Background()))
	raw := w.buf.Bytes()
	for i, l := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		assert.True(t, json.Valid(l), "line %d glued or torn: %.200s", i+1, l)
	}
	recs, r := readRecords(t, raw)
	require.NotNil(t, r.Summary())
	assert.Equal(t, int64(len(recs)), r.Summary().Records, "the trailer counts what is read")
	assert.Equal(t, int64(13-len(recs)), r.Summary().Dropped, "every span not read is counted as dropped")
}
