package artifacttest

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// Encode writes td as one artifact, the way `agenttrace convert` does.
func Encode(t testing.TB, td ptrace.Traces) []byte {
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

// ReadBytes reads the artifact b with opts, failing the test on any
// error or bad line.
func ReadBytes(t testing.TB, b []byte, opts ...artifact.ReaderOption) ([]artifact.Record, *artifact.Reader) {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(b), opts...)
	return readAll(t, r), r
}

// readAll reads r to its end, failing the test on any error or bad line.
func readAll(t testing.TB, r *artifact.Reader) []artifact.Record {
	t.Helper()
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
	return recs
}
