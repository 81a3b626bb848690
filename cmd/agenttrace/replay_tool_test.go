package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayToolNameSanitized is issue 22's item 8: a recorded tool name
// that is a path (../../../../usr/bin/id) reaches the command sanitized in
// AGENTTRACE_TOOL, so a dispatcher that builds a path from it
// (./tools/"$AGENTTRACE_TOOL") stays in its folder, and as recorded in
// AGENTTRACE_TOOL_RAW and the input's "tool".
func TestReplayToolNameSanitized(t *testing.T) {
	const hostile = "../../../../usr/bin/id"
	run := demoArtifact(t, "")
	raw, err := os.ReadFile(run)
	require.NoError(t, err)
	// The demo's search_flights becomes the hostile name everywhere the
	// run names it (the call's name attribute, its span name, the model's
	// request for it).
	renamed := strings.ReplaceAll(string(raw), "search_flights", hostile)
	require.NotEqual(t, string(raw), renamed)
	hostileRun := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(hostileRun, []byte(renamed), 0o600))

	// The dispatcher runs in root/a/b/c, where ./tools/ + the raw name
	// resolves to root/usr/bin/id: an executable there stands for the
	// system's and says when it ran.
	root := t.TempDir()
	tools := filepath.Join(root, "a", "b", "c", "tools")
	require.NoError(t, os.MkdirAll(tools, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "usr", "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "usr", "bin", "id"), []byte("#!/bin/sh\necho '\"uid=0(escaped)\"'\n"), 0o755))
	seen := filepath.Join(root, "seen.txt")
	dispatcher := `cd ` + filepath.Dir(tools) + ` && cat >/dev/null;
printf '%s|%s\n' "$AGENTTRACE_TOOL" "$AGENTTRACE_TOOL_RAW" >> ` + seen + `;
if [ -x ./tools/"$AGENTTRACE_TOOL" ]; then ./tools/"$AGENTTRACE_TOOL"; else echo '{}'; fi`
	r := agenttrace(t, "", "replay", hostileRun, "--exec", dispatcher, "--json")
	require.Less(t, r.code, 2, r.stderr)
	assert.NotContains(t, r.stdout, "escaped", "the dispatcher ran what the raw name points at")

	var got replayJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	tools2 := map[string]bool{}
	for _, c := range got.Calls {
		tools2[c.Recorded.Tool] = true
	}
	require.True(t, tools2[hostile], "the run's call is named %q: %v", hostile, tools2)

	log, err := os.ReadFile(seen)
	require.NoError(t, err)
	// Twelve bytes of "../" turn into '_' (separators, and dots that
	// would lead), the remaining separators too.
	assert.Contains(t, string(log), "____________usr_bin_id|"+hostile+"\n")
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		safe, _, _ := strings.Cut(line, "|")
		assert.NotContains(t, safe, "/", line)
		assert.False(t, strings.HasPrefix(safe, "."), line)
	}
}

func TestSafeToolName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"search_flights", "search_flights"},
		{"mcp__github__create_issue", "mcp__github__create_issue"},
		{"web-search.v2", "web-search.v2"},
		{"../../../../usr/bin/id", "____________usr_bin_id"},
		{"/etc/passwd", "_etc_passwd"},
		{".hidden", "_hidden"},
		{"..", "__"},
		{".", "_"},
		{"", "_"},
		{"a/../b", "a_.._b"},
		{`C:\tools\x.exe`, "C__tools_x.exe"},
		{"rm -rf $HOME; id", "rm_-rf__HOME__id"},
		{"nul\x00byte", "nul_byte"},
		{"café", "caf__"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, safeToolName(tt.in))
		})
	}
	assert.Equal(t, []string{"AGENTTRACE_TOOL=nul_byte", "AGENTTRACE_TOOL_RAW=nulbyte"}, toolEnv("nul\x00byte"),
		"an environment cannot hold a NUL byte")
}

// FuzzSafeToolName: whatever the recorded name, the sanitized one is
// non-empty, holds only [A-Za-z0-9._-], has no leading dot, and has as
// many bytes as the name (one per byte), so no separator can survive.
func FuzzSafeToolName(f *testing.F) {
	for _, s := range []string{"", "search", "../../x", ".a", "é/ü", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := safeToolName(in)
		require.NotEmpty(t, got)
		require.False(t, strings.HasPrefix(got, "."))
		for i := range len(got) {
			c := got[i]
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
			require.True(t, ok, "%q -> %q", in, got)
		}
		if in != "" {
			require.Len(t, got, len(in))
		}
	})
}
