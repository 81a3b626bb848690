package seaweedtest

import (
	"bytes"
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain checks that servers and their watchers are gone after the
// tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestServer starts a real `weed mini` and checks what the bucket tests
// rely on: a create-only PUT (If-None-Match: *) is answered 412 on an
// existing key and leaves the first object as it was (body and ETag);
// listing by prefix; data kept across a restart on the same ports; a
// paused server answers nothing until resumed.
func TestServer(t *testing.T) {
	s := Start(t, "runs")
	ctx := context.Background()

	first := []byte(`{"kind":"meta"}` + "\n")
	etag, err := s.Put(ctx, "prod/dt=2026-12-05/service=a/0001.jsonl", first, true)
	require.NoError(t, err)
	assert.NotEmpty(t, etag)

	_, err = s.Put(ctx, "prod/dt=2026-12-05/service=a/0001.jsonl", []byte("other\n"), true)
	require.ErrorIs(t, err, ErrPreconditionFailed, "a create-only PUT of a taken key")
	body, again, err := s.Get(ctx, "prod/dt=2026-12-05/service=a/0001.jsonl")
	require.NoError(t, err)
	assert.Equal(t, first, body, "the first object is kept")
	assert.Equal(t, etag, again, "same ETag")

	_, err = s.Put(ctx, "prod/dt=2026-12-05/service=b/0002.jsonl", []byte("x\n"), false)
	require.NoError(t, err)
	_, err = s.Put(ctx, "other/0003.jsonl", []byte("y\n"), false)
	require.NoError(t, err)
	objs, err := s.List(ctx, "prod/")
	require.NoError(t, err)
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	assert.Equal(t, []string{"prod/dt=2026-12-05/service=a/0001.jsonl", "prod/dt=2026-12-05/service=b/0002.jsonl"}, keys)
	assert.Equal(t, int64(len(first)), objs[0].Size)
	assert.Equal(t, etag, objs[0].ETag)

	_, _, err = s.Get(ctx, "prod/missing.jsonl")
	require.ErrorIs(t, err, ErrNotFound)

	s.Stop(t)
	s.Restart(t)
	body, _, err = s.Get(ctx, "prod/dt=2026-12-05/service=a/0001.jsonl")
	require.NoError(t, err)
	assert.Equal(t, first, body, "kept across a restart")

	s.Pause(t)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, _, err = s.Get(short, "prod/dt=2026-12-05/service=a/0001.jsonl")
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded, "a paused server answers nothing")
	// An upload sent to the paused server waits in its connection, seen
	// by PendingBytes, and completes once the server is resumed.
	held := bytes.Repeat([]byte("x"), 8192)
	put := make(chan error, 1)
	go func() {
		_, err := s.Put(ctx, "prod/held.jsonl", held, true)
		put <- err
	}()
	require.Eventually(t, func() bool {
		n, err := s.PendingBytes()
		return err == nil && n >= int64(len(held))
	}, 10*time.Second, 20*time.Millisecond, "the upload's bytes wait in the paused server's connection")
	s.Resume(t)
	require.NoError(t, <-put)
	body, _, err = s.Get(ctx, "prod/held.jsonl")
	require.NoError(t, err)
	assert.Equal(t, held, body, "the held upload completed once resumed")
	n, err := s.PendingBytes()
	require.NoError(t, err)
	assert.Zero(t, n, "nothing waits once the server answered")
}

// TestURL: the gocloud URL names the bucket, the key prefix as its path
// and the settings an S3-compatible server needs, as in the issue's
// example (s3://runs/prod?endpoint=...&region=us-east-1&use_path_style=true).
func TestURL(t *testing.T) {
	s := &Server{Endpoint: "http://127.0.0.1:8333", Bucket: "runs"}
	for _, tc := range []struct{ prefix, path string }{
		{"", ""}, // no prefix
		{"prod", "/prod"},
		{"/a/b/", "/a/b"},
	} {
		t.Run(tc.prefix, func(t *testing.T) {
			u, err := url.Parse(s.URL(tc.prefix))
			require.NoError(t, err)
			assert.Equal(t, "s3", u.Scheme)
			assert.Equal(t, "runs", u.Host)
			assert.Equal(t, tc.path, u.Path)
			assert.Equal(t, url.Values{
				"endpoint":       {"http://127.0.0.1:8333"},
				"region":         {"us-east-1"},
				"use_path_style": {"true"},
			}, u.Query())
		})
	}
}
