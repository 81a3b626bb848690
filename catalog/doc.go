// Package catalog keeps a run catalog: one row per run ([Row]), written as
// Parquet files beside the artifacts, so that "which runs went over budget
// yesterday, by service" is answered without reading every artifact.
//
// # Layout
//
// A catalog lives under a location's "catalog/" prefix, partitioned by the
// UTC day its runs started, in files of bounded size:
//
//	<location>/catalog/dt=YYYY-MM-DD/<unix ns>-<random>.parquet
//
// Each file's rows are sorted by [Row.Run], so that [Query] merges a
// partition's files as sorted streams and keeps, of every run, only its
// latest row (the largest [Row.WrittenAt]): a run finalized again (late
// spans, a next generation in a bucket) gets a newer row, a run removed
// gets a tombstone ([Row.Removed]), and [Compact], which writes the merged
// file before it deletes the files it merged, never makes a run appear
// twice or vanish. Memory is bounded by the page asked for and the files
// of one partition, never by the number of runs.
//
// # Destinations
//
// Files are written and read through a [Dest], rooted at the location the
// artifacts are in: [Dir] is a local folder; package bucket implements
// Dest over a gocloud bucket prefix (this package imports no cloud SDK).
// The contract, for an implementer of Dest:
//
//	type Dest interface {
//		// Create starts a new object at key (slash-separated, relative
//		// to the location). It becomes visible to List and Open only
//		// when Close returns nil; an error from Write or Close, or ctx
//		// cancelled before Close, leaves no object. It never overwrites:
//		// an existing key is an error wrapping fs.ErrExist.
//		Create(ctx context.Context, key string) (io.WriteCloser, error)
//		// Open opens key. The Object stays readable, as it was, after a
//		// Delete of key (a local file does; a bucket may read the whole
//		// object, which the writer keeps bounded, into memory). A
//		// missing key is an error wrapping fs.ErrNotExist.
//		Open(ctx context.Context, key string) (Object, error)
//		// List returns every object whose key starts with prefix, in any
//		// order, objects being written excluded.
//		List(ctx context.Context, prefix string) ([]ObjectInfo, error)
//		// Delete removes key; a missing key is not an error.
//		Delete(ctx context.Context, key string) error
//	}
//
//	type Object interface { io.ReaderAt; io.Closer; Size() int64 }
//	type ObjectInfo struct { Key string; Size int64 }
//
// # Writing
//
// [RowOf] makes a row from an artifact stream with the numbers of
// `agenttrace tokens --json` of the same stream. A [Writer] buffers rows
// and writes them, sorted, in files of at most [WriterOptions.MaxRows]
// rows and about [WriterOptions.MaxBytes] bytes. A [Keeper] keeps a
// folder's catalog as a store finalizes its artifacts (store.Hooks.Finalized),
// off the store's hot path, and applies the folder's [Retention]. [Build]
// rebuilds a folder's catalog from its artifacts.
package catalog
