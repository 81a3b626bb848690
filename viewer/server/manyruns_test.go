package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// realRuns writes n artifacts into dir, in subfolders of 1,000: the
// reference artifacts of every dialect (testdata/golden) copied
// round-robin, each header's started_at, trace id and service changed, so
// a list of n runs reads, tallies and indexes real records (a few to a
// few dozen a run), not header-only files.
func realRuns(t testing.TB, dir string, n int) {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join(golden, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	type source struct {
		head map[string]any
		rest []byte
	}
	srcs := make([]source, len(goldens))
	for i, g := range goldens {
		b, err := os.ReadFile(g)
		require.NoError(t, err)
		first, rest, _ := strings.Cut(string(b), "\n")
		require.NoError(t, json.Unmarshal([]byte(first), &srcs[i].head), g)
		srcs[i].rest = []byte(rest)
	}
	base := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	for i := range n {
		src := srcs[i%len(srcs)]
		src.head["started_at"] = base.Add(time.Duration((i*7919)%n) * time.Minute).Format(time.RFC3339Nano)
		src.head["service"] = fmt.Sprintf("svc-%d", i%5)
		if _, ok := src.head["trace_id"]; ok {
			src.head["trace_id"] = fmt.Sprintf("%032x", i+1)
		}
		line, err := json.Marshal(src.head)
		require.NoError(t, err)
		sub := filepath.Join(dir, fmt.Sprintf("part-%03d", i/1000))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		body := append(append(line, '\n'), src.rest...)
		require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("run-%06d.jsonl", i)), body, 0o644))
	}
}

// TestWriteManyRuns writes the folder realRuns makes to
// AGENTTRACE_MANY_RUNS=DIR:N, for measuring a real serve process
// (docs/benchmarks.md); opt-in.
func TestWriteManyRuns(t *testing.T) {
	dir, count, ok := strings.Cut(os.Getenv("AGENTTRACE_MANY_RUNS"), ":")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n <= 0 {
		t.Skip("AGENTTRACE_MANY_RUNS=DIR:N writes N generated runs")
	}
	realRuns(t, dir, n)
}
