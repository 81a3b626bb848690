package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// The list names a run for people (issue 23): its root span's name and
// its first prompt, the path one click away, and the same in Runs; the
// prompt is redacted as the run page is. The expected names are those of
// the reference artifact (testdata/golden/agent-run.jsonl): its root span
// "invoke_agent travel-planner" and its user's first message.
func TestListNamesRuns(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(golden, "agent-run.jsonl"))
	require.NoError(t, err)
	const prompt = "Hi! My partner and I want to go from Lisbon to Tokyo"
	require.Contains(t, string(raw), prompt)
	secret := strings.ReplaceAll(string(raw), prompt, "Hi! "+plantedSecret+" My partner and I want to go from Lisbon to Tokyo")

	for _, tc := range []struct {
		name   string
		opts   []server.Option
		prompt string // the start of the prompt shown
	}{
		{name: "shown as written", prompt: "Hi! " + plantedSecret + " My partner"},
		{name: "redacted", opts: []server.Option{server.WithRedaction(defaultRedaction(true))}, prompt: "Hi! [REDACTED] My partner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "agent-run.jsonl"), []byte(secret), 0o644))
			ts := start(t, dir, tc.opts...)
			resp, page := ts.get(t, "/")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			cell := regexp.MustCompile(`(?s)<td class="run">(.*?)</td>`).FindStringSubmatch(page)
			require.NotNil(t, cell, page)
			assert.Contains(t, cell[1], `<a href="/run/agent-run.jsonl">invoke_agent travel-planner</a>`)
			assert.Contains(t, cell[1], `<div class="prompt">`+tc.prompt)
			assert.Contains(t, cell[1], `<div class="id"><a href="/run/agent-run.jsonl">agent-run.jsonl</a> · <a class="raw" href="/raw/agent-run.jsonl" download>raw</a></div>`)

			rows := ts.Runs(nil).Rows
			require.Len(t, rows, 1)
			assert.Equal(t, "invoke_agent travel-planner", rows[0].Name)
			assert.True(t, strings.HasPrefix(rows[0].Prompt, tc.prompt), rows[0].Prompt)
		})
	}
}
