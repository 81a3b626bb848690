package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/store"
)

// realPayloads lists the captured OTLP trace payloads of testdata/real.
func realPayloads(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.traces.json", "*.traces.pb"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", "real", "*", "payloads", pat))
		require.NoError(t, err)
		out = append(out, m...)
	}
	require.NotEmpty(t, out, "no payloads under testdata/real")
	return out
}

// realFolder writes the real payloads through a store into a new folder,
// one artifact per trace, as the exporter would, and returns it.
func realFolder(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.New(store.Options{Dir: dir})
	require.NoError(t, err)
	for _, p := range realPayloads(t) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		f := converter.Detect(b)
		td, err := converter.ReadOTLP(bytes.NewReader(b), f, p)
		require.NoError(t, err, p)
		require.NoError(t, st.Write(artifact.Records(td)), p)
	}
	require.NoError(t, st.Close())
	return dir
}

// day is a fixed instant on 2026-12-05 plus h hours.
func day(h int) time.Time { return time.Date(2026, 12, 5, h, 0, 0, 0, time.UTC) }

func usd(v float64) *float64 { return &v }
