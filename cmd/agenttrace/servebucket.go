package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"gocloud.dev/blob"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// newViewer returns the viewer server of loc: a folder, or a bucket
// prefix (a gocloud URL: s3://, gs://, azblob://, file://, mem://),
// listed from its run catalog, its runs fetched on demand.
func newViewer(ctx context.Context, loc string, otlpOn bool, opts ...server.Option) (*server.Server, error) {
	if !strings.Contains(loc, "://") {
		s, err := server.New(loc, opts...)
		if err != nil {
			return nil, ioError(err)
		}
		return s, nil
	}
	if otlpOn {
		return nil, usageErrorf("--otlp writes into a folder: serve a bucket without it (the collector uploads to the bucket)")
	}
	b, dest, err := openBucketCatalog(ctx, loc)
	if err != nil {
		return nil, err
	}
	s, err := server.NewBucket(viewerBucket{b}, dest, opts...)
	if err != nil {
		return nil, errors.Join(ioError(err), b.Close())
	}
	return s, nil
}

// viewerBucket is a bucket as the viewer reads it: package bucket's, with
// the version of a run the viewer's cache is keyed by.
type viewerBucket struct{ *bucket.Bucket }

// Version implements server.Bucket: the key, size, time and MD5 of each
// of the run's generations' objects (listed by the run's id), so that a
// new generation, or an object written again, is a new version.
func (v viewerBucket) Version(ctx context.Context, key string) (string, error) {
	dir, name := path.Split(key)
	it := v.Blob().List(&blob.ListOptions{Prefix: dir + runID(name) + "."})
	var b strings.Builder
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", bucket.FSError("list "+dir, err)
		}
		fmt.Fprintf(&b, "%s %d %d %s\n", o.Key, o.Size, o.ModTime.UnixNano(), hex.EncodeToString(o.MD5))
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("run %s: %w", key, fs.ErrNotExist)
	}
	return b.String(), nil
}

// runID is the run id of an object's name: without its extension and
// generation (".g2").
func runID(name string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), bucket.ExtJSONL)
	if i := strings.LastIndex(base, ".g"); i >= 0 {
		if _, err := strconv.Atoi(base[i+2:]); err == nil {
			return base[:i]
		}
	}
	return base
}
