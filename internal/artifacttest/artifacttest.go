// Package artifacttest reads committed artifacts for tests.
package artifacttest

import (
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
	return readAll(t, r), r.Meta()
}
