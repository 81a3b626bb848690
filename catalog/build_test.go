package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func artifactNames(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// Build lists every artifact of a folder of real runs once, and a second
// build replaces the first.
func TestBuildListsEveryArtifactOnce(t *testing.T) {
	dir := realFolder(t)
	files := artifactNames(t, dir)
	require.NotEmpty(t, files)
	for range 2 {
		st, err := Build(context.Background(), dir, WriterOptions{MaxRows: 7})
		require.NoError(t, err)
		assert.Empty(t, st.Failed)
		assert.Equal(t, len(files), st.Runs)
		p, err := Query(context.Background(), Dir(dir), Filter{}, Sort{}, 0, 0)
		require.NoError(t, err)
		var got []string
		for _, r := range p.Rows {
			got = append(got, r.Run)
			require.Equal(t, []string{r.Run}, r.Keys)
			fi, err := os.Stat(filepath.Join(dir, r.Run))
			require.NoError(t, err)
			assert.Equal(t, fi.Size(), r.Bytes, r.Run)
			assert.Equal(t, int32(1), r.Version, r.Run)
			assert.True(t, r.Complete, r.Run)
			assert.False(t, r.Started.IsZero(), r.Run)
			assert.LessOrEqual(t, len([]rune(r.FirstPrompt)), PromptChars)
		}
		slices.Sort(got)
		assert.Equal(t, files, got)
	}
}

// Build reports an artifact it cannot read, by name, and lists the rest.
func TestBuildNamesABadArtifact(t *testing.T) {
	dir := realFolder(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("not json\n"), 0o644))
	torn := artifactNames(t, dir)[0]
	f, err := os.OpenFile(filepath.Join(dir, torn), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("{\"kind\":\"span\",\"trunc\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	st, err := Build(context.Background(), dir, WriterOptions{})
	require.NoError(t, err)
	require.Len(t, st.Failed, 1)
	assert.ErrorIs(t, st.Failed[0], ErrNoRun)
	assert.Contains(t, st.Failed[0].Error(), "broken.jsonl")
	assert.Equal(t, len(artifactNames(t, dir))-1, st.Runs)
	p, err := Query(context.Background(), Dir(dir), Filter{Search: torn}, Sort{}, 0, 0)
	require.NoError(t, err)
	require.Len(t, p.Rows, 1)
	assert.Equal(t, int64(1), p.Rows[0].Problems, "the bad line is counted")
}

// Compacting while queries run: every query sees every run exactly once.
func TestCompactNeverHidesOrRepeatsARun(t *testing.T) {
	dest := Dir(t.TempDir())
	const n = 300
	for i := range n / 10 { // thirty small files, each run in one or two of them
		var rows []Row
		for j := range 10 {
			rows = append(rows, Row{Run: fmt.Sprintf("run-%03d", i*10+j), Started: day(1 + j%2*30), TotalTokens: int64(j)})
			if i > 0 {
				rows = append(rows, Row{Run: fmt.Sprintf("run-%03d", (i-1)*10+j), Started: day(1 + j%2*30), TotalTokens: int64(j)})
			}
		}
		writeRows(t, dest, WriterOptions{}, rows...)
	}
	writeRows(t, dest, WriterOptions{}, Row{Run: "run-000", Started: day(1), Removed: true})

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			p, err := Query(context.Background(), dest, Filter{}, Sort{}, 0, 0)
			if !assert.NoError(t, err) || !assert.Equal(t, n-1, p.Total) {
				return
			}
		}
	})
	st, err := Compact(context.Background(), dest, WriterOptions{MaxRows: 100})
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	assert.Equal(t, 61, st.Merged, "thirty files a day, and the tombstone's")
	assert.Equal(t, n, st.Rows, "each run once, the removed one as its tombstone")
	objs, err := dest.List(context.Background(), "catalog/")
	require.NoError(t, err)
	assert.Len(t, objs, 4, "two days of 150 rows, in files of 100")
	p, err := Query(context.Background(), dest, Filter{}, Sort{}, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, n-1, p.Total)
	for _, r := range p.Rows {
		assert.False(t, strings.HasSuffix(r.Run, "-000"))
	}
}

// Rebuild replaces a catalog by the rows it is given: a run that has no
// row is counted as failed and the others written; an error of the rows
// themselves ends it and leaves the old catalog in place.
func TestRebuild(t *testing.T) {
	errRun := fmt.Errorf("run b.jsonl: %w", ErrNoRun)
	errList := errors.New("cannot list the bucket")
	rows := func(runs ...string) []Row {
		out := make([]Row, len(runs))
		for i, r := range runs {
			out[i] = Row{Run: r, Started: day(i), Keys: []string{r}}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		give    []Row
		failed  []error // yielded among the rows, one per row's place
		listErr error   // returned by the rows at their end
		want    []string
	}{
		{name: "every run", give: rows("a.jsonl", "c.jsonl"), want: []string{"a.jsonl", "c.jsonl"}},
		{name: "a run without a row", give: rows("a.jsonl", "c.jsonl"), failed: []error{errRun}, want: []string{"a.jsonl", "c.jsonl"}},
		{name: "the listing fails", give: rows("a.jsonl"), listErr: errList, want: []string{"old.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dest := Dir(t.TempDir())
			_, err := Rebuild(ctx, dest, WriterOptions{}, func(yield func(Row, error) bool) error {
				yield(Row{Run: "old.jsonl", Started: day(3), Keys: []string{"old.jsonl"}}, nil)
				return nil
			})
			require.NoError(t, err)

			st, err := Rebuild(ctx, dest, WriterOptions{}, func(yield func(Row, error) bool) error {
				for _, f := range tc.failed {
					if !yield(Row{}, f) {
						return nil
					}
				}
				for _, r := range tc.give {
					if !yield(r, nil) {
						return nil
					}
				}
				return tc.listErr
			})
			p, qerr := Query(ctx, dest, Filter{}, Sort{}, 0, 0)
			require.NoError(t, qerr)
			var got []string
			for _, r := range p.Rows {
				got = append(got, r.Run)
			}
			assert.Equal(t, tc.want, got)
			if tc.listErr != nil {
				require.ErrorIs(t, err, tc.listErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(tc.give), st.Runs)
			assert.Equal(t, tc.failed, st.Failed)
			assert.Equal(t, 1, st.Removed)
		})
	}
}
