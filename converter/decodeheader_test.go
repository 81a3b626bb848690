package converter_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestDecodeHeaderMatchesReader: DecodeHeader of every golden artifact's
// first line is the header a Reader of the whole artifact gives, and a
// record line is no header.
func TestDecodeHeaderMatchesReader(t *testing.T) {
	for _, p := range goldenArtifacts(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			first, rest, _ := bytes.Cut(b, []byte("\n"))
			got, err := artifact.DecodeHeader(first)
			require.NoError(t, err)
			r := artifact.NewReader(bytes.NewReader(b))
			_, _ = r.Next()
			require.Equal(t, r.Meta(), got)

			second, _, _ := bytes.Cut(rest, []byte("\n"))
			_, err = artifact.DecodeHeader(second)
			require.ErrorIs(t, err, artifact.ErrNotHeader)
		})
	}
}

// FuzzDecodeHeader: DecodeHeader never panics, and a line it decodes is
// the header a Reader of that line alone gives.
func FuzzDecodeHeader(f *testing.F) {
	seedArtifacts(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		line, _, _ = bytes.Cut(line, []byte("\n"))
		got, err := artifact.DecodeHeader(line)
		if err != nil {
			return
		}
		r := artifact.NewReader(bytes.NewReader(line))
		_, _ = r.Next()
		require.Equal(t, r.Meta(), got)
	})
}
