package catalog

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/store"
)

// payloadRecords reads every real payload's records, one batch each.
func payloadRecords(t *testing.T) [][]artifact.Record {
	t.Helper()
	var out [][]artifact.Record
	for _, p := range realPayloads(t) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		td, err := converter.ReadOTLP(bytes.NewReader(b), converter.Detect(b), p)
		require.NoError(t, err, p)
		out = append(out, artifact.Records(td))
	}
	return out
}

// listed returns the runs the folder's catalog lists, sorted.
func listed(t *testing.T, dir string) []string {
	t.Helper()
	p, err := Query(context.Background(), Dir(dir), Filter{}, Sort{}, 0, 0)
	require.NoError(t, err)
	out := runs(p)
	slices.Sort(out)
	return out
}

// folderBytes sums the sizes of the folder's artifacts.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, name := range artifactNames(t, dir) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the folder was read
		}
		require.NoError(t, err)
		n += fi.Size()
	}
	return n
}

// The store's Finalized hook keeps the folder's catalog: after the store
// and the Keeper close, every artifact has its row, none twice.
func TestKeeperKeepsTheCatalogAsTheStoreFinalizes(t *testing.T) {
	dir := t.TempDir()
	k := NewKeeper(dir, KeeperOptions{OnError: func(err error) { t.Error(err) }})
	st, err := store.New(store.Options{Dir: dir, FinalizeAfter: time.Hour, Hooks: store.Hooks{Finalized: k.Finalized}})
	require.NoError(t, err)
	k.Start(nil)
	for _, recs := range payloadRecords(t) {
		require.NoError(t, st.Write(recs))
	}
	require.NoError(t, st.Close())
	require.NoError(t, k.Close(context.Background()))
	assert.Equal(t, artifactNames(t, dir), listed(t, dir))
	s := k.Stats()
	assert.Equal(t, int64(len(artifactNames(t, dir))), s.Rows)
	assert.Zero(t, s.Dropped+s.Failed)
}

// A folder bounded by max_bytes stays under it while runs arrive, and the
// catalog never lists a removed run: no query that starts after a run's
// file was removed lists it, and after each batch the catalog lists
// exactly the artifacts there.
func TestRetentionKeepsAFolderUnderMaxBytes(t *testing.T) {
	dir := t.TempDir()
	batches := payloadRecords(t)
	const maxBytes = 40 << 10
	var mu sync.Mutex
	removedAt := map[string]time.Time{}
	var st *store.Store
	take := func(path string) (string, bool, error) { return st.Take(path) }
	remove := func(path string) (bool, error) {
		ok, err := TakeAndRemove(take)(path)
		if ok {
			mu.Lock()
			removedAt[filepath.Base(path)] = time.Now()
			mu.Unlock()
		}
		return ok, err
	}
	k := NewKeeper(dir, KeeperOptions{Retention: Retention{MaxBytes: maxBytes}, OnError: func(err error) { t.Error(err) }})
	st, err := store.New(store.Options{Dir: dir, Hooks: store.Hooks{Finalized: k.Finalized}})
	require.NoError(t, err)
	k.Start(remove) // as serve --otlp and the exporter: through the store's Take

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // a reader listing the runs meanwhile
		for {
			select {
			case <-stop:
				return
			default:
			}
			began := time.Now()
			p, err := Query(context.Background(), Dir(dir), Filter{}, Sort{}, 0, 0)
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			for _, r := range p.Rows {
				if at, ok := removedAt[r.Run]; ok {
					assert.False(t, at.Before(began), "%s listed after its removal", r.Run)
				}
			}
			mu.Unlock()
		}
	})
	for _, recs := range batches {
		require.NoError(t, st.Write(recs))
		require.NoError(t, st.Flush())
		require.NoError(t, k.Sync(context.Background()))
		assert.LessOrEqual(t, folderBytes(t, dir), int64(maxBytes))
		assert.Equal(t, artifactNames(t, dir), listed(t, dir))
	}
	close(stop)
	wg.Wait()
	require.NoError(t, st.Close())
	require.NoError(t, k.Close(context.Background()))
	assert.LessOrEqual(t, folderBytes(t, dir), int64(maxBytes))
	assert.Equal(t, artifactNames(t, dir), listed(t, dir))
	assert.Positive(t, k.Stats().Removed, "the payloads hold more than max_bytes")
	assert.NotEmpty(t, artifactNames(t, dir))
}

// max_age removes the runs that ended before it, and only those.
func TestRetentionRemovesRunsPastMaxAge(t *testing.T) {
	dir := realFolder(t)
	_, err := Build(context.Background(), dir, WriterOptions{})
	require.NoError(t, err)
	p, err := Query(context.Background(), Dir(dir), Filter{}, Sort{}, 0, 0)
	require.NoError(t, err)
	ends := make([]time.Time, 0, len(p.Rows))
	for _, r := range p.Rows {
		ends = append(ends, r.Ended)
	}
	slices.SortFunc(ends, time.Time.Compare)
	// The runs that ended before a cut go: a cut a minute or more after
	// the run before it, near the median, and a max age that puts the
	// bound half a minute before it, whatever the clock does meanwhile.
	i := len(ends) / 2
	for ; i < len(ends) && ends[i].Sub(ends[i-1]) < time.Minute; i++ {
	}
	require.Less(t, i, len(ends), "no gap of a minute between the runs' ends")
	cut := ends[i]
	var want []string
	for _, r := range p.Rows {
		if !r.Ended.Before(cut) {
			want = append(want, r.Run)
		}
	}
	slices.Sort(want)

	k := NewKeeper(dir, KeeperOptions{Retention: Retention{MaxAge: time.Since(cut) + 30*time.Second}})
	k.Start(nil)
	require.NoError(t, k.Sync(context.Background()))
	require.NoError(t, k.Close(context.Background()))
	assert.Equal(t, want, artifactNames(t, dir))
	assert.Equal(t, want, listed(t, dir))
}

// A Keeper started over a folder catches up: artifacts without rows get
// them, rows of artifacts gone get tombstones.
func TestKeeperCatchesUpWithTheFolder(t *testing.T) {
	dir := realFolder(t)
	_, err := Build(context.Background(), dir, WriterOptions{})
	require.NoError(t, err)
	names := artifactNames(t, dir)
	require.NoError(t, os.Remove(filepath.Join(dir, names[0])))
	b, err := os.ReadFile(filepath.Join(dir, names[1]))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "copy.jsonl"), b, 0o644))

	k := NewKeeper(dir, KeeperOptions{})
	k.Start(nil)
	require.NoError(t, k.Close(context.Background()))
	assert.Equal(t, artifactNames(t, dir), listed(t, dir))
	assert.Equal(t, int64(2), k.Stats().Rows, "a row for the new file, a tombstone for the gone one")
}

func TestRetentionValidate(t *testing.T) {
	assert.NoError(t, Retention{}.Validate())
	assert.NoError(t, Retention{MaxAge: time.Hour, MaxBytes: 1}.Validate())
	assert.ErrorIs(t, Retention{MaxAge: -1}.Validate(), ErrBadRetention)
	assert.ErrorIs(t, Retention{MaxBytes: -1}.Validate(), ErrBadRetention)
}

// Finalized never blocks: past MaxPending it drops, and counts.
func TestKeeperFinalizedNeverBlocks(t *testing.T) {
	k := NewKeeper(t.TempDir(), KeeperOptions{MaxPending: 2})
	for _, p := range []string{"a.jsonl", "b.jsonl", "c.jsonl", "a.jsonl"} {
		k.Finalized(p)
	}
	assert.Equal(t, int64(1), k.Stats().Dropped)
	require.NoError(t, k.Close(context.Background()))
}
