// Package artifacttest reads committed artifacts for tests.
package artifacttest

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// Read returns the records and header of the artifact at path, read with
// artifact.Reader, and fails the test on any error or bad line: fixtures
// are meant to be clean.
func Read(t testing.TB, path string) ([]artifact.Record, *artifact.Meta) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := artifact.NewReader(f, artifact.WithSource(path))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, path)
		recs = append(recs, *rec)
	}
	require.Empty(t, r.Problems(), "%s has bad lines", path)
	return recs, r.Meta()
}
