package server

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/agenttrace/agenttrace/viewer"
)

// FuzzConvertRuns feeds /convert's reader anything: it never panics, and
// every run it makes renders as a JSON view model the page can parse.
func FuzzConvertRuns(f *testing.F) {
	for _, p := range []string{
		"../../testdata/golden/agent-run.jsonl",
		"../../testdata/otlp/conversation.json",
		"../../testdata/otlp/conversation.lines.json",
		"../../testdata/otlp/agent-run.pb",
		"../../testdata/shapes/jaeger.json",
		"../../testdata/shapes/transcript.jsonl",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{not json\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := convertRuns(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		for _, run := range runs {
			var out bytes.Buffer
			if err := viewer.WriteRunJSON(&out, run); err != nil {
				t.Fatalf("run %q: %v", run.Name, err)
			}
			if !json.Valid(out.Bytes()) {
				t.Fatalf("run %q: the view model is not JSON: %.200s", run.Name, out.Bytes())
			}
		}
	})
}
