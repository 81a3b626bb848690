package failwriter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/failwriter"
)

// TestWriterTearsThenTakesMore: a write that does not fit is taken as far
// as it fits and fails with the Writer's error; freed room takes writes
// again, after the torn part.
func TestWriterTearsThenTakesMore(t *testing.T) {
	w := failwriter.New(5, nil)
	n, err := w.Write([]byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	n, err = w.Write([]byte("defg"))
	require.ErrorIs(t, err, failwriter.ErrFull)
	assert.Equal(t, 2, n)
	_, err = w.Write([]byte("x"))
	require.ErrorIs(t, err, failwriter.ErrFull, "no room left")
	w.Free(2)
	_, err = w.Write([]byte("hi"))
	require.NoError(t, err)
	assert.Equal(t, "abcdehi", string(w.Bytes()))
	w.SetRoom(0)
	_, err = w.Write([]byte("z"))
	require.ErrorIs(t, err, failwriter.ErrFull)
}
