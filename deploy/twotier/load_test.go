package twotier

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/e2eload"
)

// sent is what the SDK made of a run.
type sent struct {
	acked, refused map[string]string // span id -> trace id
	generated      int
}

// load sends agent runs (a root over spansPerTrace-1 chat calls, the
// trace's tokens split between them) from four goroutines through the Go
// SDK to addr until stop, which flushes and shuts the provider down.
func load(t *testing.T, addr string) (s *e2eload.Sender, stop func() sent) {
	t.Helper()
	l := e2eload.Start(t, addr, e2eload.Options{
		Service: "twotier", Scope: "agenttrace/twotier", Agent: "twotier", Calls: spansPerTrace - 1,
		InputTokens: inputPerTrace / (spansPerTrace - 1), OutputTokens: outPerTrace / (spansPerTrace - 1),
	})
	return l.Sender, func() sent {
		l.Stop()
		return sent{acked: l.AckedSpans(), refused: l.RefusedSpans(), generated: int(l.Generated())}
	}
}

// outcome is what the artifacts of both collectors hold after a run.
type outcome struct {
	generated, acked, refused int
	written, lost, dup        int
	refusedWritten            int    // of the refused spans, in artifacts all the same
	traces                    int    // trace ids with an artifact
	perCollector              [2]int // artifacts in each folder
	split                     int    // traces with an artifact in both folders
	partial                   int    // artifacts missing spans (given up by the SDK, or lost)
}

func (o outcome) String() string {
	return fmt.Sprintf("%d spans generated, %d acknowledged, %d given up by the SDK (%d of them written all the same), %d in artifacts, %d acknowledged lost, %d duplicated; %d traces: %d + %d artifacts in the two folders, %d traces split, %d partial artifacts",
		o.generated, o.acked, o.refused, o.refusedWritten, o.written, o.lost, o.dup, o.traces, o.perCollector[0], o.perCollector[1], o.split, o.partial)
}

// check reads every artifact of both folders after a clean stop: each is
// valid (every line JSON, a header first, a trailer last counting the
// file, tokens and all; a whole trace has its three calls' tokens), a
// trace has an artifact in one folder only, no span is written twice,
// and every acknowledged span is in its trace's artifact. A trace the SDK
// gave up some spans of may be partial; every other trace is whole.
func check(t *testing.T, dirs []string, s sent) outcome {
	t.Helper()
	o := outcome{generated: s.generated, acked: len(s.acked), refused: len(s.refused)}
	partial := map[string]bool{} // trace ids with spans given up
	for _, traceID := range s.refused {
		partial[traceID] = true
	}
	where := map[string]string{} // span id -> folder/file
	folders := map[string]int{}  // trace id -> folders holding it
	for i, dir := range dirs {
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			name := filepath.Join(dir, e.Name())
			if !strings.HasSuffix(e.Name(), ".jsonl") {
				t.Errorf("not an artifact: %s", name)
				continue
			}
			o.perCollector[i]++
			traceID := strings.TrimSuffix(e.Name(), ".jsonl")
			folders[traceID]++
			ids := checkArtifact(t, name, !partial[traceID])
			if len(ids) < spansPerTrace {
				o.partial++
			}
			for _, id := range ids {
				if prev, dup := where[id]; dup {
					o.dup++
					t.Errorf("span %s in %s and %s", id, prev, name)
				}
				where[id] = name
			}
		}
	}
	o.traces = len(folders)
	for id, n := range folders {
		if n > 1 {
			o.split++
			t.Errorf("trace %s has an artifact in both folders", id)
		}
	}
	o.written = len(where)
	for id := range s.refused {
		if where[id] != "" {
			o.refusedWritten++
		}
	}
	for id, traceID := range s.acked {
		f, ok := where[id]
		if !ok {
			o.lost++
			continue
		}
		assert.Equal(t, traceID+".jsonl", filepath.Base(f), "span %s in its trace's artifact", id)
	}
	return o
}

// checkArtifact checks one artifact (e2eload.CheckArtifact) and, if
// whole, that it holds a whole trace, and returns its span ids.
func checkArtifact(t *testing.T, path string, whole bool) []string {
	t.Helper()
	art := e2eload.CheckArtifact(t, path)
	if art == nil {
		return nil
	}
	ids := art.SpanIDs()
	// A whole trace is in its one artifact: four spans and the tokens of
	// its three calls.
	if whole && art.Summary != nil {
		assert.Len(t, ids, spansPerTrace, "%s: a whole trace", path)
		assert.Equal(t, [2]int64{inputPerTrace, outPerTrace}, [2]int64{art.Summary.Tokens.Input, art.Summary.Tokens.Output}, "%s: a whole trace's tokens", path)
	}
	return ids
}

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}
