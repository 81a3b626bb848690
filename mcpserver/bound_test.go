package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the smallest bound (4 KiB), every answer of every tool on every run
// still fits, and paging reaches every item: what is cut is said and can
// be fetched.
func TestAnswersStayWithinTheirBound(t *testing.T) {
	f := newFolder(t)
	const bound = minAnswerBytes
	cs := connect(t, f.dir, WithMaxAnswerBytes(bound))
	do := func(name string) func(map[string]any, any) {
		return func(args map[string]any, out any) {
			res := call(t, cs, bound, name, args, out)
			require.False(t, res.IsError, "%s %v: %v", name, args, res.Content)
		}
	}
	var listed int
	for page := 1; ; page++ {
		var l RunList
		do("list_runs")(map[string]any{"page": page, "per": 5}, &l)
		listed += len(l.Runs)
		if l.NextPage == 0 {
			break
		}
	}
	assert.Equal(t, len(f.runs), listed)
	var l RunList
	do("list_runs")(map[string]any{"per": 50}, &l)
	assert.Less(t, len(l.Runs), 50)
	assert.Contains(t, l.Note, "cut to")

	cut := 0
	for _, run := range f.runs {
		do("run_summary")(map[string]any{"run": run}, nil)
		turns, total := pages(t, do("conversation"), map[string]any{"run": run, "limit": 50}, decodeList[Turn]("calls"))
		assert.Len(t, turns, total, run)
		for _, tu := range turns {
			if tu.Cut {
				cut++
			}
		}
		pages(t, do("find_errors"), map[string]any{"run": run}, decodeList[map[string]any]("failures"))
		pages(t, do("audit_run"), map[string]any{"run": run}, decodeList[map[string]any]("findings"))
		pages(t, do("explain_run"), map[string]any{"run": run, "all_spans": true}, decodeList[map[string]any]("spans"))
		do("diff_runs")(map[string]any{"a": run, "b": f.done}, nil)
	}
	assert.Positive(t, cut, "some call's conversation is larger than 4 KiB and was shortened")
}

// A value cut to fit says how much was left out, and is cut on a rune
// boundary.
func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…[cut: 3 more bytes]"},
		{"héllo", 2, "h…[cut: 5 more bytes]"}, // é is 2 bytes: not split
	} {
		got, cut := clip(tc.in, tc.n)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.in != tc.want, cut)
	}
}

// A run named by a path that leads outside the served folder is refused
// by every tool, as a tool error, and nothing of the file outside shows.
func TestPathsOutsideAreRefused(t *testing.T) {
	f := newFolder(t)
	outside := t.TempDir()
	secretRun := filepath.Join(outside, "secret.jsonl")
	data, err := os.ReadFile(filepath.Join(f.dir, f.done))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(secretRun, data, 0o644))
	require.NoError(t, os.Symlink(secretRun, filepath.Join(f.dir, "link.jsonl")))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.dir, "linkdir")))
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, ".hidden.jsonl"), data, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("x"), 0o644))
	rel, err := filepath.Rel(f.dir, secretRun)
	require.NoError(t, err)
	cs := connect(t, f.dir)

	for _, name := range []string{
		rel, "../" + filepath.Base(outside) + "/secret.jsonl", secretRun, filepath.Join(f.dir, f.done), "/" + f.done,
		"real/../../x.jsonl", "link.jsonl", "linkdir/secret.jsonl", ".hidden.jsonl", "notes.txt", `real\..\x.jsonl`, "", "./" + f.done,
	} {
		for _, tool := range []struct {
			name string
			args map[string]any
		}{
			{"run_summary", map[string]any{"run": name}},
			{"conversation", map[string]any{"run": name}},
			{"find_errors", map[string]any{"run": name}},
			{"audit_run", map[string]any{"run": name}},
			{"explain_run", map[string]any{"run": name}},
			{"diff_runs", map[string]any{"a": f.done, "b": name}},
			{"diff_runs", map[string]any{"a": name, "b": f.done}},
		} {
			res := call(t, cs, MaxAnswerBytes, tool.name, tool.args, nil)
			require.True(t, res.IsError, "%s %q answered", tool.name, name)
			b, err := json.Marshal(res.Content)
			require.NoError(t, err)
			assert.NotContains(t, string(b), "hotel", "%s %q shows content", tool.name, name)
		}
	}
	var l RunList
	call(t, cs, MaxAnswerBytes, "list_runs", map[string]any{"per": 50}, &l)
	for _, r := range l.Runs {
		assert.False(t, strings.HasPrefix(r.Run, "link"), "the list shows %s", r.Run)
	}
}
