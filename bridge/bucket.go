package bridge

import (
	"context"
	"time"

	"github.com/agenttrace/agenttrace/store"
)

// Publisher publishes the artifacts a directory sink finalizes to
// somewhere else: package bucket's *bucket.Publisher uploads them to an
// object store. The bridge imports no cloud SDK; only a program that
// makes a Publisher (imports package bucket) compiles one.
type Publisher interface {
	// Finalized is told each artifact file finalized; it must not block.
	Finalized(path string)
	// Start begins publishing what st finalizes in its folder dir, and
	// what an earlier process left there.
	Start(st *store.Store, dir string) error
	// Shutdown publishes what is left, as ctx allows.
	Shutdown(ctx context.Context) error
}

// PublishTimeout bounds how long Shutdown spends publishing what is left
// (a bucket that cannot be reached); what it leaves stays in the folder,
// and the next process's Start publishes it.
const PublishTimeout = 30 * time.Second

// WithBucket publishes every artifact WithDirectory's folder finalizes
// through p, the folder being its staging area: with package bucket,
//
//	b, err := bucket.Open(ctx, "s3://runs/agents?region=eu-west-1")
//	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace),
//		bridge.WithBucket(b.Publisher(bucket.PublisherOptions{})))
//
// Each artifact is uploaded create-only once its trace's root span ends,
// and removed from the folder once the upload is confirmed; see
// docs/storage.md. Only with WithDirectory.
func WithBucket(p Publisher) Option {
	return optionFunc(func(c *config) { c.publisher = p })
}
