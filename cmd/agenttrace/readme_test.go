package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeBlock returns the body of the first fenced block of the README
// (../../README.md) whose first line starts with first.
func readmeBlock(t *testing.T, first string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	for _, part := range strings.Split(string(b), "```")[1:] {
		_, body, ok := strings.Cut(part, "\n") // drop the info string ("text")
		if ok && strings.HasPrefix(body, first) {
			return body
		}
	}
	require.Failf(t, "no block in README.md", "none starts with %q", first)
	return ""
}

var (
	traceIDRE = regexp.MustCompile(`[0-9a-f]{32}`)
	// commandRE is the way demo says to run agenttrace again, which
	// depends on how it was started: the README shows go run.
	commandRE = regexp.MustCompile(`(?m)^(Where they went: |Look at it:      )(.*) (tokens|html) `)
)

// normalizeDemo makes demo's output comparable across runs and machines:
// trace ids, the output directory and the command name are what vary.
func normalizeDemo(s, dir string) string {
	s = strings.ReplaceAll(s, dir+string(filepath.Separator), "runs/")
	s = traceIDRE.ReplaceAllString(s, "<trace id>")
	return commandRE.ReplaceAllString(s, "${1}go run ./cmd/agenttrace ${3} ")
}

// TestReadmeDemoOutput: the output the README shows for its first
// command is what `agenttrace demo --out runs` prints, line for line, so
// the README cannot drift from the demo (it once lacked the Cost line).
func TestReadmeDemoOutput(t *testing.T) {
	want := readmeBlock(t, "planner answered:")
	r, paths := demoRun(t)
	dir := filepath.Dir(paths[0])
	assert.Equal(t, normalizeDemo(want, dir), normalizeDemo(r.stdout, dir),
		"README.md's demo output differs from what demo prints; paste the new output into README.md")
}

// TestReadmeRoundTripClaim holds the README to its word on round trips:
// an artifact convert wrote comes back byte for byte through OTLP; one the
// live processor wrote (the demo's) comes back with the same records and
// trailer, and a header that differs only by what the processor could not
// know when it wrote it: the conversation_id, an earlier started_at.
func TestReadmeRoundTripClaim(t *testing.T) {
	_, paths := demoRun(t)
	live := paths[0]
	dir := t.TempDir()
	roundTrip := func(t *testing.T, in, name string) string {
		t.Helper()
		otlp, out := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".jsonl")
		for _, args := range [][]string{{"convert", in, "-o", otlp}, {"convert", otlp, "-o", out}} {
			r := agenttrace(t, "", args...)
			require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		}
		return out
	}
	read := func(p string) (head map[string]any, rest string) {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		first, rest, _ := strings.Cut(string(b), "\n")
		require.NoError(t, json.Unmarshal([]byte(first), &head))
		return head, rest
	}

	once := roundTrip(t, live, "once")
	liveHead, liveRest := read(live)
	onceHead, onceRest := read(once)
	assert.Equal(t, liveRest, onceRest, "records and trailer come back byte for byte")
	assert.NotContains(t, liveHead, "conversation_id", "the processor wrote the header before the root span ended")
	assert.Contains(t, onceHead, "conversation_id")
	assert.LessOrEqual(t, onceHead["started_at"], liveHead["started_at"], "the whole run starts no later")
	for _, k := range []string{"conversation_id", "started_at"} {
		delete(onceHead, k)
		delete(liveHead, k)
	}
	assert.Equal(t, liveHead, onceHead, "the header differs by conversation_id and started_at only")

	twice := roundTrip(t, once, "twice")
	a, err := os.ReadFile(once)
	require.NoError(t, err)
	b, err := os.ReadFile(twice)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "an artifact convert wrote comes back byte for byte")
}

// TestDemoBudgetStopsApart: the demo's budget run had one tool fail and
// three spans stopped by the budget; it says so, instead of "Errors 4",
// and the two add up to the trailer's errors.
func TestDemoBudgetStopsApart(t *testing.T) {
	r, paths := demoRun(t, "--budget", "3000")
	sum := trailer(t, paths[0])
	assert.Contains(t, r.stdout, "Errors   1, and 3 stopped by the budget (4 in all)\n")
	assert.Equal(t, int64(4), sum.Errors, "the trailer counts both")
	tok := agenttrace(t, "", "tokens", paths[0])
	require.Equal(t, 0, tok.code, tok.stderr)
	assert.Contains(t, tok.stdout, "Errors   1, and 3 stopped by the budget (4 in all)\n")
}
