package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// checkMergedReads reads every run back from the bucket as a reader
// would (bucket.OpenURL of its first object's URL: its generations merged)
// into a file, and checks it against local copies of its objects: for a
// run of one object, `agenttrace tokens` prints the same of both; for a
// run of more, the read holds the spans of its generations, each once. It returns the runs checked.
func checkMergedReads(ctx context.Context, t *testing.T, cli string, s *seaweedtest.Server, objs map[string]*object) int {
	t.Helper()
	for _, kv := range seaweedtest.ClientEnv() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	local := t.TempDir()
	n, merged := 0, 0
	for trace, gens := range runsOf(objs) {
		url := s.URL(gens[0].key)
		read := filepath.Join(local, trace+".read.jsonl")
		r, err := bucket.OpenURL(ctx, url)
		require.NoError(t, err, url)
		f, err := os.Create(read)
		require.NoError(t, err)
		_, err = io.Copy(f, r)
		require.NoError(t, errors.Join(err, r.Close(), f.Close()), url)
		var copies []string
		for _, o := range gens {
			p := filepath.Join(local, filepath.Base(o.key))
			require.NoError(t, os.WriteFile(p, o.body, 0o600))
			copies = append(copies, p)
		}
		n++
		// The CLI reading the bucket URL itself says what it says of the
		// merged read.
		assert.Equal(t, runCLI(t, cli, "tokens", read), runCLI(t, cli, "tokens", url), "run %s: tokens of %s and of its merged read", trace, url)
		if len(gens) == 1 {
			assert.Equal(t, runCLI(t, cli, "tokens", copies[0]), runCLI(t, cli, "tokens", read), "run %s: tokens of %s as read and of a local copy", trace, url)
			continue
		}
		// A run of more: the merged read holds every span of its
		// generations, each once. (Its kinds and tokens are not the sum
		// of the generations': the late span is a chat under a chat, one
		// call reported twice, which the merged run counts once, the
		// parent a wrapper, as one file of all its spans does; bucket's
		// TestOpenRunLateGenerationReadsAsWhole holds that.)
		merged++
		var want []string
		for _, o := range gens {
			want = append(want, o.spans...)
		}
		got := &object{key: url, trace: trace}
		got.body, err = os.ReadFile(read)
		require.NoError(t, err)
		readObject(t, got)
		assert.ElementsMatch(t, want, got.spans, "run %s: the spans of its %d generations, each once", trace, len(gens))
	}
	assert.Positive(t, merged, "a run of more than one generation was read")
	return n
}
