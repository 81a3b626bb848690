package bucket

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// BenchmarkCatalogRow (issue 23 point 1): a publisher's catalog row of a
// run uploaded as its one object, made from the bucket (RunRow: its
// objects listed, read back; every row before e21380b) and from the local
// file (cataloger.row), side by side: Mastra's real tool loop (ten spans),
// in fileblob, memblob and, with its binary, SeaweedFS's S3 on loopback.
func BenchmarkCatalogRow(b *testing.B) {
	recs, _ := realRun(b, "mastra", "tool-loop")
	file := writeArtifact(b, recs, plog.NewLogs())
	fi, err := os.Stat(file)
	require.NoError(b, err)
	ctx := context.Background()
	all := backends(b)
	if os.Getenv(seaweedtest.EnvBinary) != "" {
		weed := seaweedtest.Start(b, "runs")
		for _, kv := range seaweedtest.ClientEnv() {
			k, v, _ := strings.Cut(kv, "=")
			b.Setenv(k, v)
		}
		s3, err := Open(ctx, weed.URL("bench"))
		require.NoError(b, err)
		b.Cleanup(func() { _ = s3.Close() })
		all["s3"] = s3
	}
	for bname, bk := range all {
		f, err := os.Open(file)
		require.NoError(b, err)
		r, err := bk.put(ctx, f, fi.Name(), false, nil)
		require.NoError(b, f.Close())
		require.NoError(b, err)
		c := &cataloger{b: bk}
		for _, from := range []string{"bucket", "local"} {
			e := &pendingRun{key: r.key, local: file, size: r.size}
			if from == "bucket" {
				e.local = ""
			}
			b.Run(bname+"/from="+from, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.row(ctx, e); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
