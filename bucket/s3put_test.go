package bucket

import (
	"context"
	"crypto/sha256"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// openWeed opens a bucket of a real S3 server on loopback (SeaweedFS,
// skipped without its binary) under prefix, with the query's extra
// parameters.
func openWeed(t *testing.T, prefix, extra string) (*Bucket, *seaweedtest.Server) {
	t.Helper()
	seaweedtest.Binary(t)
	weed := seaweedtest.Start(t, "runs")
	for _, kv := range seaweedtest.ClientEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	b, err := Open(context.Background(), weed.URL(prefix)+extra)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b, weed
}

// TestS3PutDirect (issue 23 point 1): on S3 an artifact held in memory is
// written by one PutObject that hands the SDK the SHA-256 Put computed
// (no hashing in the SDK), and it is still create-only: the first upload
// of a run takes its key, a late file of the run is its next generation,
// the same file again is recognized (no new object), the first object is
// never replaced; with and without the checksum header (when_required),
// plain and compressed. What the server stores is the file's bytes, read
// back by a client that is not the code under test.
func TestS3PutDirect(t *testing.T) {
	_, first, late := generations(t, "mastra", "tool-loop")
	for _, tc := range []struct {
		name, extra string
		zstd        bool
		checksum    bool
	}{
		{name: "checksum", checksum: true},
		{name: "when_required", extra: "&request_checksum_calculation=when_required"},
		{name: "zstd", zstd: true, checksum: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, weed := openWeed(t, "prod", tc.extra)
			require.NotNil(t, b.s3, "the direct path is taken for this URL")
			assert.Equal(t, tc.checksum, b.s3.checksum)
			ctx := context.Background()
			name := "0af7651916cd43dd8448eb211c80319c.jsonl"
			k1, existed, err := b.Put(ctx, first, name, tc.zstd)
			require.NoError(t, err)
			assert.False(t, existed)
			k2, existed, err := b.Put(ctx, late, name, tc.zstd)
			require.NoError(t, err)
			assert.False(t, existed)
			assert.Equal(t, strings.Replace(k1, ".jsonl", ".g2.jsonl", 1), k2)
			k3, existed, err := b.Put(ctx, first, name, tc.zstd)
			require.NoError(t, err)
			assert.True(t, existed, "the same file again is no new object")
			assert.Equal(t, k1, k3)
			objs, err := weed.List(ctx, "prod/")
			require.NoError(t, err)
			require.Len(t, objs, 2)
			if !tc.zstd {
				want, err := os.ReadFile(first)
				require.NoError(t, err)
				got, _, err := weed.Get(ctx, "prod/"+k1)
				require.NoError(t, err)
				assert.Equal(t, want, got, "the first object is the first file, never replaced")
			}
		})
	}
}

// TestS3PutChecksOnTheServer: the hash handed to the SDK is what the
// server checks the body against, so a body that does not match it (bytes
// changed on the way) is refused and no object is made, with the checksum
// header and with the SigV4 payload hash alone.
func TestS3PutChecksOnTheServer(t *testing.T) {
	for _, extra := range []string{"", "&request_checksum_calculation=when_required"} {
		t.Run("query="+extra, func(t *testing.T) {
			b, weed := openWeed(t, "", extra)
			require.NotNil(t, b.s3)
			ctx := context.Background()
			body := []byte(`{"a":1}` + "\n")
			wrong := sha256.Sum256([]byte("something else"))
			err := b.s3.put(ctx, "x.jsonl", "application/jsonl", body, wrong, nil)
			require.Error(t, err, "a body that is not the one hashed is refused")
			objs, err := weed.List(ctx, "")
			require.NoError(t, err)
			assert.Empty(t, objs)
			require.NoError(t, b.s3.put(ctx, "x.jsonl", "application/jsonl", body, sha256.Sum256(body), nil))
			got, _, err := weed.Get(ctx, "x.jsonl")
			require.NoError(t, err)
			assert.Equal(t, body, got)
		})
	}
}

// TestPlainKey: keys gocloud's S3 driver would escape take gocloud's
// path, so that what is written is what gocloud reads under the key.
func TestPlainKey(t *testing.T) {
	for key, want := range map[string]bool{
		"prod/dt=2026-12-06/service=svc/0af7.jsonl":          true,
		"dt=2026-12-06/service=a_b-c.d/conv-x.g2_.jsonl.zst": true,
		"a/../b.jsonl":     false,
		"a\x01b.jsonl":     false,
		"a__0x41__b.jsonl": false,
	} {
		assert.Equal(t, want, plainKey(key), key)
	}
}
