package e2eload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// SpanIDs counts the span ids of every complete record line of the
// artifacts (*.jsonl) in dirs. Artifacts may be mid-write while a
// collector runs: a last line without its newline is skipped.
func SpanIDs(dirs ...string) map[string]int {
	ids := map[string]int{}
	for _, dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			b = b[:bytes.LastIndexByte(b, '\n')+1]
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				var l struct {
					Kind   string `json:"kind"`
					SpanID string `json:"span_id"`
				}
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.SpanID != "" && l.Kind != "meta" && l.Kind != "summary" {
					ids[l.SpanID]++
				}
			}
		}
	}
	return ids
}

// AllWritten reports whether every acknowledged span (span id -> trace
// id) is in an artifact in dirs: polled after the load stops, until the
// collectors' queues have handed over what they hold.
func AllWritten(acked map[string]string, dirs ...string) bool {
	got := SpanIDs(dirs...)
	for id := range acked {
		if got[id] == 0 {
			return false
		}
	}
	return true
}

// Artifact is an artifact as read back after a clean stop.
type Artifact struct {
	// Records are the records the reader read, in order.
	Records []artifact.Record
	// Summary is the last trailer.
	Summary *artifact.Summary
	// Kinds is the "kind" of every line, in order.
	Kinds []string
}

// SpanIDs returns the span ids of the records, in order.
func (a *Artifact) SpanIDs() []string {
	ids := make([]string, 0, len(a.Records))
	for i := range a.Records {
		ids = append(ids, a.Records[i].Span.SpanID().String())
	}
	return ids
}

// CheckArtifact reads the artifact at path and checks what every artifact
// must be after a clean stop: not empty, every line one JSON value (no
// glued or torn lines), a header first and a trailer last, read without a
// problem, the trailer counting the file's records and tokens. Each
// failure is reported and the checks go on where they can; it returns nil
// if the file cannot be read as lines of JSON.
func CheckArtifact(t testing.TB, path string) *Artifact {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if len(raw) == 0 {
		t.Errorf("%s: empty file", path)
		return nil
	}
	a := &Artifact{}
	for _, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		var l struct {
			Kind string `json:"kind"`
		}
		if !assert.NoError(t, json.Unmarshal(line, &l), "%s: %s", path, line) {
			return nil
		}
		a.Kinds = append(a.Kinds, l.Kind)
	}
	assert.Equal(t, "meta", a.Kinds[0], "%s: a header first", path)
	assert.Equal(t, "summary", a.Kinds[len(a.Kinds)-1], "%s: a trailer last", path)
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(path))
	var tally artifact.Tally
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		tally.Add(rec)
		a.Records = append(a.Records, *rec)
	}
	for _, p := range r.Problems() {
		t.Errorf("%s: %v", path, p)
	}
	a.Summary = r.Summary()
	if assert.NotNil(t, a.Summary, "%s: a trailer", path) {
		assert.Equal(t, int64(len(a.Records)), a.Summary.Records, "%s: the trailer counts the file", path)
		assert.Equal(t, tally.Summary(nil).Tokens, a.Summary.Tokens, "%s: the trailer's tokens are the file's", path)
	}
	return a
}
