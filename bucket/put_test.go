package bucket

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
)

// generations splits a real run as a collector would have written it
// around an upload: the first generation all of it but a model call and
// the agent step around it, which came late, with a span of the first
// sent again beside them (Mastra's tool loop: ten spans); or, for the
// official OpenAI instrumentation's streamed call, whose prompt and answer
// are log records, the first generation its span, the second the span
// sent again and the log records, come late.
func generations(t *testing.T, lib, name string) (whole, first, late string) {
	recs, logs := realRun(t, lib, name)
	whole = writeArtifact(t, recs, logs)
	if logs.LogRecordCount() > 0 {
		require.Len(t, recs, 1)
		first = writeArtifact(t, recs, plog.NewLogs())
		late = writeArtifact(t, recs, logs)
		return whole, first, late
	}
	require.Len(t, recs, 10)
	var early []artifact.Record
	for i := range recs {
		if i != 3 && i != 4 {
			early = append(early, recs[i])
		}
	}
	first = writeArtifact(t, early, logs)
	late = writeArtifact(t, []artifact.Record{recs[3], recs[4], recs[5]}, plog.NewLogs())
	return whole, first, late
}

// rowOf is the catalog row of a stream: the numbers of tokens --json.
func rowOf(t *testing.T, raw []byte) catalog.Row {
	t.Helper()
	row, err := catalog.RowOf(bytes.NewReader(raw), catalog.Source{Name: "run"})
	require.NoError(t, err)
	return row
}

// TestPutGenerationsMerge (issue 23 point 1): the first upload of a run
// takes its key; a file of the same run uploaded after it is its next
// generation; the same file again is recognized (no third object); the
// first object is never replaced; the merged stream holds every span and
// log record once and reads as the whole run does (tokens --json's
// numbers, through the catalog's row), compressed or not, and whether
// Put reads the file once into memory or, larger than maxInMemory, twice
// from the file.
func TestPutGenerationsMerge(t *testing.T) {
	for _, tt := range []struct{ lib, name, service, date string }{
		{"mastra", "tool-loop", "capture-mastra", "2026-12-05"},
		{"otel-instrumentation-openai", "stream", "capture-otel-instrumentation-openai", "2026-11-25"},
	} {
		for _, mode := range []struct {
			name  string
			limit int64
		}{{"in-memory", maxInMemory}, {"streamed", 0}} {
			t.Run(tt.lib+"/"+mode.name, func(t *testing.T) {
				defer func(was int64) { maxInMemory = was }(maxInMemory)
				maxInMemory = mode.limit
				testGenerations(t, tt.lib, tt.name, tt.service, tt.date)
			})
		}
	}
}

func testGenerations(t *testing.T, lib, name, service, date string) {
	whole, first, late := generations(t, lib, name)
	wholeRaw, err := os.ReadFile(whole)
	require.NoError(t, err)
	firstRaw, err := os.ReadFile(first)
	require.NoError(t, err)
	wantIDs, wantLogs := spansOf(t, wholeRaw)
	name = filepath.Base(whole)
	for bname, b := range backends(t) {
		for _, zstdOn := range []bool{false, true} {
			t.Run(bname+map[bool]string{false: "/plain", true: "/zstd"}[zstdOn], func(t *testing.T) {
				ctx := context.Background()
				prefix := map[bool]string{false: "plain/", true: "zstd/"}[zstdOn]
				b := New(blobPrefixed(b, prefix), bname)
				k1, existed, err := b.Put(ctx, first, name, zstdOn)
				require.NoError(t, err)
				assert.False(t, existed)
				k, err := ParseKey(k1)
				require.NoError(t, err)
				assert.Equal(t, Key{Date: date, Service: service, ID: name[:len(name)-len(".jsonl")], Gen: 1, Zstd: zstdOn}, k)

				k2, existed, err := b.Put(ctx, late, name, zstdOn)
				require.NoError(t, err)
				assert.False(t, existed)
				assert.Equal(t, k.Dir()+Key{ID: k.ID, Gen: 2, Zstd: zstdOn}.Name(), k2)

				again, existed, err := b.Put(ctx, first, name, zstdOn)
				require.NoError(t, err)
				assert.True(t, existed, "an identical file is no new generation")
				assert.Equal(t, k1, again)
				assert.Equal(t, []string{k2, k1}, keys(t, b))

				runObj, err := b.b.ReadAll(ctx, k1)
				require.NoError(t, err)
				if !zstdOn {
					assert.Equal(t, firstRaw, runObj, "the first object is the first file, untouched")
				}

				for _, key := range []string{k1, k2, k.Run().String()} {
					rc, err := b.OpenRun(ctx, key)
					require.NoError(t, err)
					merged := readAll(t, rc)
					ids, logs := spansOf(t, merged)
					assert.ElementsMatch(t, wantIDs, ids, "every span once")
					assert.Equal(t, wantLogs, logs, "every log record once")
					assert.Equal(t, rowOf(t, wholeRaw), rowOf(t, merged), "tokens of the merged run are the whole run's")
				}
			})
		}
	}
}

// TestPutLateGenerationFindsYesterday: a run's later file whose own start
// is the next day (a late span after midnight) goes to the partition of
// the run's first object, found in the bucket by a process that did not
// upload it (nothing remembered: a restart), whether the bucket is looked
// at name by name (a local one) or listed (a cloud store).
func TestPutLateGenerationFindsYesterday(t *testing.T) {
	_, first, late := generations(t, "mastra", "tool-loop")
	raw, err := os.ReadFile(late)
	require.NoError(t, err)
	head, rest, _ := bytes.Cut(raw, []byte("\n"))
	next := regexp.MustCompile(`"started_at":"[^"]*"`).ReplaceAll(head, []byte(`"started_at":"2026-12-06T00:00:01.000000000Z"`))
	require.NotEqual(t, head, next)
	nextDay := filepath.Join(t.TempDir(), filepath.Base(late))
	require.NoError(t, os.WriteFile(nextDay, append(append(next, '\n'), rest...), 0o644))
	name := filepath.Base(first)
	for bname, b := range backends(t) {
		for _, remote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/remote=%v", bname, remote), func(t *testing.T) {
				ctx := context.Background()
				prefix := fmt.Sprintf("remote-%v/", remote)
				k1, _, err := New(blobPrefixed(b, prefix), bname).Put(ctx, first, name, false)
				require.NoError(t, err)
				require.Contains(t, k1, "dt=2026-12-05/")

				restarted := New(blobPrefixed(b, prefix), bname)
				restarted.remote = remote
				k2, existed, err := restarted.Put(ctx, nextDay, name, false)
				require.NoError(t, err)
				assert.False(t, existed)
				k, err := ParseKey(k1)
				require.NoError(t, err)
				assert.Equal(t, k.Dir()+Key{ID: k.ID, Gen: 2}.Name(), k2, "the first object's partition, its next generation")
			})
		}
	}
}
