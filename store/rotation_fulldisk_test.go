package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// fillsAt is a file system that fills up as the file under test reaches
// full bytes: a write that starts below it is written whole, any later one
// fails (after writing what is left of room, as a real full disk does).
type fillsAt struct {
	file
	size *int64
	full *int64
	mu   *sync.Mutex
}

func (f fillsAt) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if *f.size < *f.full {
		n, err := f.file.Write(p)
		*f.size += int64(n)
		return n, err
	}
	return 0, errFull
}

func (f fillsAt) Truncate(n int64) error {
	f.mu.Lock()
	*f.size = n
	f.mu.Unlock()
	return f.file.Truncate(n)
}

// TestRotationOnAFullDisk: the disk fills just as a resource value's
// artifact reaches rotate_bytes, so the rotation's trailer cannot be
// written; the caller retries what Write returned, space comes back. No
// span is in two files, and after Close every file ends with a trailer
// that counts it: a rotation without its trailer leaves the artifact live
// under its name (rotated by a later write), and the records it followed
// are not reported as failed.
func TestRotationOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	const rotateAt = 2000
	var mu sync.Mutex
	var size int64
	full := int64(rotateAt)
	wrapFiles(t, func(path string, f file) (file, error) {
		mu.Lock()
		defer mu.Unlock()
		st, err := os.Stat(path)
		if err != nil {
			f.Close()
			return nil, err
		}
		size = st.Size()
		return fillsAt{file: f, size: &size, full: &full, mu: &mu}, nil
	})
	s := newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", RotateBytes: rotateAt, FinalizeAfter: time.Hour})
	var failed []artifact.Record
	for i := range byte(12) {
		err := s.Write(records(span{trace: i + 1, id: 2, parent: 1}))
		var we *WriteError
		if err != nil {
			require.ErrorAs(t, err, &we)
			failed = append(failed, we.Failed...)
		}
		if i == 6 {
			mu.Lock()
			full = 1 << 30 // space freed
			mu.Unlock()
			if len(failed) > 0 {
				require.NoError(t, s.Write(failed), "the retry")
				failed = nil
			}
		}
	}
	require.NoError(t, s.Close())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	seen := map[string]string{}
	for _, e := range ents {
		a := readPath(t, filepath.Join(dir, e.Name()))
		assert.Empty(t, a.problems, e.Name())
		if assert.NotNil(t, a.summary, "%s: a trailer", e.Name()) {
			assert.Equal(t, int64(len(a.recs)), a.summary.Records, e.Name())
		}
		for _, r := range a.recs {
			k := r.Span.TraceID().String() + r.Span.SpanID().String()
			if prev, dup := seen[k]; dup {
				t.Errorf("span %s in %s and %s", k, prev, e.Name())
			}
			seen[k] = e.Name()
		}
	}
	assert.Equal(t, 12, len(seen), "every span once")
}

// fullWhen is a file that refuses every write while full is set.
type fullWhen struct {
	file
	full *atomic.Bool
}

func (f fullWhen) Write(p []byte) (int, error) {
	if f.full.Load() {
		return 0, errFull
	}
	return f.file.Write(p)
}

// TestFinalizeOnAFullDiskKeepsTheArtifact: the finalizer cannot write an
// idle artifact's trailer (the disk filled after its records were
// written). The artifact is not forgotten without one: OnError hears why,
// it stays live, and once there is room the finalizer writes a trailer
// that counts its records.
func TestFinalizeOnAFullDiskKeepsTheArtifact(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	wrapFiles(t, func(_ string, f file) (file, error) { return fullWhen{file: f, full: &full}, nil })
	errs, onError := countErrors(errFull)
	s := newStore(t, Options{Dir: dir, FinalizeAfter: 20 * time.Millisecond, OrphanAfter: 20 * time.Millisecond, OnError: onError})
	full.Store(true)
	require.ErrorIs(t, s.Write(records(span{trace: 1, id: 2, parent: 1})), errFull, "nothing written, the caller told")
	full.Store(false)
	// No root: an orphan, finalized once idle for OrphanAfter.
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1})))
	full.Store(true)
	k := TraceKey(tid(1))
	require.Eventually(t, func() bool { return errs.Load() > 0 }, 10*time.Second, time.Millisecond, "the finalizer tried")
	assert.True(t, s.IsActive(k), "kept live without a trailer")
	full.Store(false)
	require.Eventually(t, func() bool { return !s.IsActive(k) }, 10*time.Second, time.Millisecond, "finalized once there is room")
	a := readPath(t, filepath.Join(dir, FileName(k, "")))
	assert.Empty(t, a.problems)
	assert.Len(t, a.recs, 2)
	if assert.NotNil(t, a.summary) {
		assert.Equal(t, int64(2), a.summary.Records)
	}
	require.NoError(t, s.Close())
}

// TestRecoverFinishesARotatedFile: a rotated file left without a trailer
// (FsyncNever and a power cut between the trailer and the rename, or an
// earlier version that renamed when the trailer failed) is finalized by
// Recover on its own, apart from the live artifact of its value, which it
// never joins; a rotated file with a trailer is left as it is.
func TestRecoverFinishesARotatedFile(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", FinalizeAfter: time.Hour})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 2, id: 2, parent: 1})))
	require.NoError(t, s.Close())
	live := filepath.Join(dir, "service.name-svc.jsonl")
	raw, err := os.ReadFile(live)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(raw), "\n")
	require.Len(t, lines, 5, "header, two records, trailer")
	unfinished := strings.Join(lines[:3], "")
	rotated := filepath.Join(dir, "service.name-svc.R1700000000000000000.jsonl")
	require.NoError(t, os.WriteFile(rotated, []byte(unfinished), 0o644))
	done := filepath.Join(dir, "service.name-svc.R1700000000000000001.jsonl")
	require.NoError(t, os.WriteFile(done, raw, 0o644))
	require.NoError(t, os.WriteFile(live, []byte(unfinished), 0o644))

	s = newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", FinalizeAfter: time.Hour, Recover: true})
	require.Eventually(t, func() bool { ok, err := hasTrailer(rotated); return err == nil && ok }, 10*time.Second, time.Millisecond)
	a := readPath(t, rotated)
	assert.Empty(t, a.problems)
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 2)
	assert.Equal(t, int64(2), a.summary.Records)
	require.NoError(t, s.Write(records(span{trace: 3, id: 2, parent: 1})))
	require.NoError(t, s.Close())
	assert.Len(t, readPath(t, rotated).recs, 2, "the live artifact's records go to its own file")
	assert.Len(t, readPath(t, live).recs, 3, "the live artifact recovered and continued")
	after, err := os.ReadFile(done)
	require.NoError(t, err)
	assert.Equal(t, raw, after, "a rotated file with a trailer is untouched")
}

// tearsWhen is a file that, while tear is set, takes half of a write,
// fails, and cannot be cut back either.
type tearsWhen struct {
	file
	tear *atomic.Bool
}

func (f tearsWhen) Write(p []byte) (int, error) {
	if !f.tear.Load() {
		return f.file.Write(p)
	}
	n, _ := f.file.Write(p[:len(p)/2])
	return n, errFull
}

func (f tearsWhen) Truncate(n int64) error {
	if f.tear.Load() {
		return errors.New("truncate: input/output error")
	}
	return f.file.Truncate(n)
}

// TestTrailerThatBreaksTheFile: a trailer write that tears and cannot be
// cut back leaves a file whose end the store no longer knows. That
// artifact is forgotten rather than kept live (it would refuse every
// record): the next record adopts the file again, which cuts the torn
// trailer off, and the artifact ends valid, every span once.
func TestTrailerThatBreaksTheFile(t *testing.T) {
	dir := t.TempDir()
	var tear atomic.Bool
	wrapFiles(t, func(_ string, f file) (file, error) { return tearsWhen{file: f, tear: &tear}, nil })
	heard, onError := countErrors(errFull)
	s := newStore(t, Options{Dir: dir, FinalizeAfter: 20 * time.Millisecond, OrphanAfter: 20 * time.Millisecond, OnError: onError})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	k := TraceKey(tid(1))
	tear.Store(true)
	require.Eventually(t, func() bool { return heard.Load() > 0 && !s.IsActive(k) }, 10*time.Second, time.Millisecond, "the torn trailer heard, the artifact let go")
	tear.Store(false)
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1})))
	require.NoError(t, s.Close())
	a := readPath(t, filepath.Join(dir, FileName(k, "")))
	assert.Empty(t, a.problems)
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 2)
	if assert.NotNil(t, a.summary) {
		assert.Equal(t, int64(2), a.summary.Records)
	}
}
