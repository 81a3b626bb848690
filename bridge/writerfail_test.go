package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/failwriter"
)

// TestWriterThatFailsAfterNBytes: WithWriter over a writer that fails
// part-way through a line, then has room again. No line is glued onto a
// partial one, and the trailer equals what the reader reads.
func TestWriterThatFailsAfterNBytes(t *testing.T) {
	w := failwriter.New(1500, nil)
	p := newProcessor(t, bridge.WithWriter(w), bridge.WithBatchSize(1))
	tr := provider(t, p)
	for range 10 {
		chat(context.Background(), tr, 10, 5)
		require.NoError(t, p.ForceFlush(context.Background()))
	}
	w.Free(1 << 20)
	for range 3 {
		chat(context.Background(), tr, 10, 5)
	}
	require.NoError(t, p.Shutdown(context.Background()))
	raw := w.Bytes()
	for i, l := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		assert.True(t, json.Valid(l), "line %d glued or torn: %.200s", i+1, l)
	}
	recs, r := readRecords(t, raw)
	require.NotNil(t, r.Summary())
	assert.Equal(t, int64(len(recs)), r.Summary().Records, "the trailer counts what is read")
	assert.Equal(t, int64(13-len(recs)), r.Summary().Dropped, "every span not read is counted as dropped")
}
