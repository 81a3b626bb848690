package bucket

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/memblob"

	"github.com/agenttrace/agenttrace/store"
)

// TestLedgerPlacesRun (issue 23 point 1): a publisher's ledger places a
// run's first file without a look in the bucket when it knows the day
// before whole (the bucket here is closed: any look fails), moves a late
// file of a run it noted the day before into that day's partition, and
// says it does not know a day it began after, so that Put looks then.
func TestLedgerPlacesRun(t *testing.T) {
	now := time.Date(2026, 12, 6, 2, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		published bool // the folder published before ledgers were kept
		noted     bool // the run was noted on the day before
		wantDate  string
		wantLook  bool
	}{
		{name: "fresh folder, new run", wantDate: "2026-12-06"},
		{name: "fresh folder, run of the day before", noted: true, wantDate: "2026-12-05"},
		{name: "published without a ledger", published: true, wantDate: "2026-12-06", wantLook: true},
		{name: "published without a ledger, run noted since", published: true, noted: true, wantDate: "2026-12-05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.published {
				require.NoError(t, os.Mkdir(filepath.Join(dir, store.TakenDir), 0o755))
			}
			l, err := openLedger(dir, now)
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.close() })
			if tc.noted {
				require.NoError(t, l.note("2026-12-05", "svc", "run1"))
			}
			mb := memblob.OpenBucket(nil)
			require.NoError(t, mb.Close())
			b := &Bucket{b: mb, name: "closed", remote: true}
			k := Key{Date: "2026-12-06", Service: "svc", ID: "run1", Gen: 1}
			err = b.placeRun(context.Background(), &k, l)
			if tc.wantLook {
				require.Error(t, err, "looked in the bucket")
				return
			}
			require.NoError(t, err, "no look in the bucket")
			assert.Equal(t, tc.wantDate, k.Date)
		})
	}
}

// TestLedgerSurvivesRestart: what a ledger noted is known to the next
// one opened on the folder; a line cut short by a crash is skipped; days
// past keeping are removed.
func TestLedgerSurvivesRestart(t *testing.T) {
	now := time.Date(2026, 12, 6, 2, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	l, err := openLedger(dir, now)
	require.NoError(t, err)
	require.NoError(t, l.note("2026-12-05", "svc", "run1"))
	require.NoError(t, l.note("2026-12-05", "svc", "run1")) // once in the file
	require.NoError(t, l.close())
	day := filepath.Join(dir, LedgerDir, "2026-12-05")
	raw, err := os.ReadFile(day)
	require.NoError(t, err)
	assert.Len(t, raw, 17, "one line")
	f, err := os.OpenFile(day, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("0123abc") // torn
	require.NoError(t, err)
	require.NoError(t, f.Close())
	old := filepath.Join(dir, LedgerDir, "2026-11-01")
	require.NoError(t, os.WriteFile(old, nil, 0o644))

	l, err = openLedger(dir, now.Add(time.Hour))
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.close() })
	found, whole := l.has("2026-12-05", "svc", "run1")
	assert.True(t, found)
	assert.True(t, whole)
	found, whole = l.has("2026-12-05", "svc", "run2")
	assert.False(t, found)
	assert.True(t, whole, "a fresh folder's ledger knows every day")
	_, whole = l.has("2026-11-20", "svc", "run1")
	assert.False(t, whole, "a day before the ones held is not known")
	assert.NoFileExists(t, old)
}

// TestLedgerNoteFails: a note that cannot be written (here: a folder
// where the day's file would be) is said once and does not stop the
// ledger, which goes on in memory; its since file is removed, so that the
// next start does not take the folder's notes for whole.
func TestLedgerNoteFails(t *testing.T) {
	now := time.Now().UTC()
	day := now.Format(time.DateOnly)
	dir := t.TempDir()
	l, err := openLedger(dir, now)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.close() })
	require.NoError(t, os.Mkdir(filepath.Join(dir, LedgerDir, day), 0o755))
	assert.Error(t, l.note(day, "svc", "run1"))
	assert.NoError(t, l.note(day, "svc", "run2"), "said once")
	for _, id := range []string{"run1", "run2"} {
		found, _ := l.has(day, "svc", id)
		assert.True(t, found, id)
	}
	assert.NoFileExists(t, filepath.Join(dir, LedgerDir, "since"))
	require.NoError(t, os.Remove(filepath.Join(dir, LedgerDir, day)))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, store.TakenDir), 0o755))
	l2, err := openLedger(dir, now)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l2.close() })
	_, whole := l2.has(day, "svc", "run3")
	assert.False(t, whole, "a folder whose notes are not whole looks in the bucket")
}
