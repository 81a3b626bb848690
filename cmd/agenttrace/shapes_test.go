package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// TestConvertShapes: every shape in testdata/shapes converts to an
// artifact that validates, and the artifact goes to OTLP and back to the
// same bytes — what the importers make survives the round trip.
func TestConvertShapes(t *testing.T) {
	files, err := filepath.Glob("../../testdata/shapes/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, src := range files {
		name := filepath.Base(src)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			a := filepath.Join(dir, "a.jsonl")
			r := agenttrace(t, "", "convert", src, "-o", a)
			// Edge-case fixtures carry bad lines on purpose: reported, skipped, exit 1.
			if strings.Contains(name, "edge") {
				require.Equal(t, 1, r.code, r.stderr)
				assert.Contains(t, r.stderr, name+":")
			} else {
				require.Equal(t, 0, r.code, r.stderr)
			}
			v := agenttrace(t, "", "validate", a)
			require.Equal(t, 0, v.code, v.stdout)

			// A streamed artifact's header is made from its first record;
			// converted once more, it gets the header made from all of them,
			// and from then on the artifact is stable through OTLP.
			a2 := filepath.Join(dir, "a2.jsonl")
			require.Equal(t, 0, agenttrace(t, "", "convert", a, "-o", a2).code)
			assert.Equal(t, artifactSpans(t, a), artifactSpans(t, a2), "the records are the same")
			for _, ext := range []string{".pb", ".json"} {
				otlp := filepath.Join(dir, "b"+ext)
				require.Equal(t, 0, agenttrace(t, "", "convert", a2, "-o", otlp).code)
				back := filepath.Join(dir, "c"+ext+".jsonl")
				rb := agenttrace(t, "", "convert", otlp, "-o", back)
				require.Equal(t, 0, rb.code, rb.stderr)
				want, err := os.ReadFile(a2)
				require.NoError(t, err)
				got, err := os.ReadFile(back)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), "artifact -> OTLP%s -> artifact", ext)
			}
		})
	}
}

// artifactSpans reads an artifact's spans in canonical form.
func artifactSpans(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	td, err := artifact.NewReader(f).ReadTraces()
	require.NoError(t, err)
	return ptracecmp.Spans(td)
}

// TestConvertFrom: --from overrides detection, and rejects unknown shapes.
func TestConvertFrom(t *testing.T) {
	dir := t.TempDir()
	r := agenttrace(t, "", "convert", "--from", "trajectory", "../../testdata/shapes/trajectory.jsonl", "-o", filepath.Join(dir, "t.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "convert", "--from", "nonsense", "../../testdata/shapes/trajectory.jsonl", "-o", filepath.Join(dir, "t.jsonl"))
	require.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--from")
	// Read as the wrong shape, the input says so instead of converting to nothing.
	r = agenttrace(t, "", "convert", "--from", "jaeger", "../../testdata/shapes/trajectory.jsonl", "-o", filepath.Join(dir, "j.jsonl"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "trajectory.jsonl:1: not a Jaeger trace")
	// --from names the artifact and OTLP shapes too, and is obeyed for them.
	artifact := filepath.Join(dir, "t.jsonl")
	r = agenttrace(t, "", "convert", "--from", "otlp-proto", artifact, "-o", filepath.Join(dir, "p.jsonl"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, artifact+": otlp-proto: ")
	r = agenttrace(t, "", "convert", "--from", "jsonl", "../../testdata/shapes/trajectory.jsonl", "-o", filepath.Join(dir, "a.jsonl"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "trajectory.jsonl:1: invalid record")
}

// TestValidateOtherShapes: validate names the shape of an input that is
// not an artifact, whatever shape it is, rather than failing its lines.
func TestValidateOtherShapes(t *testing.T) {
	for _, name := range []string{"transcript.jsonl", "trajectory.jsonl", "events.json", "jaeger.json"} {
		src := "../../testdata/shapes/" + name
		r := agenttrace(t, "", "validate", src)
		assert.Equal(t, 1, r.code)
		shape := strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
		assert.Equal(t, src+": not an agenttrace artifact but "+shape+"; convert it first\n", r.stdout)
	}
}

// TestSkippedNotesAgree: what an input skipped is noted the same way
// whether convert streams it (one artifact out) or reads it whole, and by
// the other commands: each unknown record type once, in order of name.
func TestSkippedNotesAgree(t *testing.T) {
	src := "../../testdata/shapes/transcript-edge.jsonl"
	dir := t.TempDir()
	want := src + `: note: 1 record(s) of unknown type "telemetry.flushed" skipped` + "\n" +
		src + `: note: 1 record(s) of unknown type "ui.rendered" skipped` + "\n" +
		src + ": 2 bad line(s) skipped\n"
	for _, args := range [][]string{
		{"convert", src, "-o", filepath.Join(dir, "a.jsonl")},
		{"convert", src, "-o", filepath.Join(dir, "a.json")},
		{"tokens", src},
		{"audit", src},
	} {
		r := agenttrace(t, "", args...)
		assert.Equal(t, 1, r.code, args)
		_, notes, ok := strings.Cut(r.stderr, "unexpected end of JSON input\n")
		require.True(t, ok, r.stderr)
		_, notes, _ = strings.Cut(notes, "unexpected end of JSON input\n")
		assert.Equal(t, want, notes, args)
	}
}

// TestSeedShapes: the files of each seed system, as a user of it has them,
// convert to artifacts whose conversation, model calls and token totals
// are what the files say, and a doubly recorded run is flagged by audit
// and counted once.
func TestSeedShapes(t *testing.T) {
	tests := []struct {
		file        string
		inferences  int64
		total       int64
		firstText   string // a message the conversation must show
		doubleCalls int
	}{
		{"events-stored.json", 1, 0, "Here's a summary...", 0},
		{"events-rows.jsonl", 1, 0, "Your quota is 50 GB.", 0},
		{"events-sse.txt", 2, 0, "One TODO: add validation in config.py.", 0},
		{"transcript-prerename.jsonl", 2, 0, "Why does `gen trace` refuse 0.0.0.0?", 0},
		{"transcript-messages.jsonl", 2, 0, "List the record groups.", 0},
		// 4 iterations and the usage 2 agent_complete records report beyond them.
		{"trajectory-seed.jsonl", 6, 5558, "Fix the flaky session export test", 0},
		{"agenteval.json", 3, 432, "What's the weather in Oslo?", 0},
		{"agenteval-double.json", 2, 432, "What's the weather in Oslo?", 1},
		{"agenteval-v10.json", 2, 1416, "Book a table for two at 19:30.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.jsonl")
			r := agenttrace(t, "", "convert", "../../testdata/shapes/"+tt.file, "-o", out)
			require.Equal(t, 0, r.code, r.stderr)

			r = agenttrace(t, "", "tokens", "--json", out)
			require.Equal(t, 0, r.code, r.stderr)
			var rep struct {
				Records struct{ Inference int64 } `json:"records"`
				Tokens  struct{ Total int64 }     `json:"tokens"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
			assert.Equal(t, tt.inferences, rep.Records.Inference, "model calls")
			assert.Equal(t, tt.total, rep.Tokens.Total, "tokens, each counted once")

			r = agenttrace(t, "", "messages", "--json", out)
			require.Equal(t, 0, r.code, r.stderr)
			var convs []struct {
				Input, Output []struct {
					Role  string `json:"role"`
					Parts []struct {
						Content string `json:"content"`
					} `json:"parts"`
				}
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &convs))
			require.NotEmpty(t, convs, "the conversation comes through")
			var texts []string
			for _, c := range convs {
				for _, m := range append(c.Input, c.Output...) {
					for _, p := range m.Parts {
						texts = append(texts, p.Content)
					}
				}
			}
			assert.Contains(t, texts, tt.firstText)

			r = agenttrace(t, "", "audit", out)
			assert.Equal(t, tt.doubleCalls, strings.Count(r.stdout, "double_instrumentation"), r.stdout)
		})
	}
}
