// Package bucket keeps artifacts in object storage through gocloud.dev/blob:
// Amazon S3 and S3-compatible servers (s3://), Google Cloud Storage (gs://),
// Azure Blob Storage (azblob://), a local folder (file://) and memory
// (mem://, for tests).
//
// # Layout
//
// A run's artifact is kept under the bucket URL's prefix, partitioned by
// the UTC day it started and its service (see [Key]):
//
//	<prefix>/dt=YYYY-MM-DD/service=<service.name>/<id>.jsonl
//
// where <id> is the artifact's name in the store's folder (the trace id,
// conv-<conversation>, or <attribute>-<value>), and .jsonl.zst when the
// objects are compressed with zstd.
//
// # Create-only writes and generations
//
// Every object is written once, with a create-only write (S3's
// If-None-Match: *, GCS's and Azure's equivalents): an object is never
// replaced. Spans that arrive for a run already uploaded are written by
// the store to a fresh file, which becomes the run's next generation,
// <id>.g2.jsonl, <id>.g3.jsonl, and so on. Readers ([Bucket.OpenRun],
// [OpenURL]) merge a run's generations into one artifact stream, a span
// in two generations (a collector retry) once.
//
// # Publishing
//
// A [Publisher] uploads what a store (package store) finalizes in its
// folder, the folder being the staging area: its Finalized hook queues the
// file, a worker takes it out of the store's way (store.Take), uploads it
// and removes the local copy once the upload is confirmed. Start uploads
// what a crash left. See docs/storage.md.
//
// # Dependencies
//
// This package imports the cloud SDKs; package bridge does not import it
// (an SDK user who does not ask for a bucket compiles none of them). Such
// a user passes bridge.WithBucket a Publisher of this package.
package bucket
