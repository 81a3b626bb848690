package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedactionPrinted is issue 22's item 7: every command that prints
// span content (messages, tokens, diff, audit) prints none of the planted
// secrets of an OTLP input by default, and with --no-redact prints what
// it printed before the fix (some planted secret), which shows that the
// fixture reaches the command's output at all. Each command runs in text
// and in --json form.
func TestRedactionPrinted(t *testing.T) {
	t.Parallel()
	p := loadPlanted(t)
	in := filepath.Join(redactionDir, "otlp.json")
	// audit's findings quote span names, not content: its input is the
	// fixture with a secret in the model call's name (an API error quoted
	// there, say), which its missing_finish_reason finding prints.
	raw, err := os.ReadFile(in)
	require.NoError(t, err)
	named := strings.Replace(string(raw), `"name": "chat gpt-4.1"`, `"name": "chat gpt-4.1 `+p.Secrets["github"]+`"`, 1)
	require.NotEqual(t, string(raw), named, "the fixture's model call is not named chat gpt-4.1 any more")
	auditIn := filepath.Join(t.TempDir(), "named.json")
	require.NoError(t, os.WriteFile(auditIn, []byte(named), 0o600))
	// diff compares the input with a copy of itself in another shape (the
	// transcript fixture), so arguments and results are printed as
	// differences; audit and the rest read the one input.
	other := filepath.Join(redactionDir, "transcript.jsonl")
	cases := []struct {
		name string
		args []string
	}{
		{"messages", []string{"messages", in}},
		{"messages --json", []string{"messages", "--json", in}},
		{"tokens", []string{"tokens", in}},
		{"tokens --json", []string{"tokens", "--json", in}},
		{"diff", []string{"diff", in, other}},
		{"diff --json", []string{"diff", "--json", in, other}},
		{"audit", []string{"audit", auditIn}},
		{"audit --json", []string{"audit", "--json", auditIn}},
		// explain prints keys and rules, no values of this fixture (0 of 14
		// with --no-redact): the case holds it to that if it starts to.
		{"explain", []string{"explain", in}},
		{"explain --json", []string{"explain", "--json", in}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := agenttrace(t, "", tc.args...)
			require.Less(t, r.code, 2, r.stderr)
			out := r.stdout + r.stderr
			for family, s := range p.Secrets {
				assert.NotContains(t, out, core(s), "%s printed the %s secret", tc.name, family)
			}

			raw := agenttrace(t, "", append([]string{tc.args[0], "--no-redact"}, tc.args[1:]...)...)
			require.Less(t, raw.code, 2, raw.stderr)
			kept := 0
			for _, s := range p.Secrets {
				if strings.Contains(raw.stdout+raw.stderr, core(s)) {
					kept++
				}
			}
			t.Logf("%s --no-redact: %d of %d planted secrets printed", tc.name, kept, len(p.Secrets))
			if printsContent[tc.args[0]] {
				assert.Positive(t, kept, "%s --no-redact printed no planted secret: the fixture does not reach its output", tc.name)
			}
		})
	}
}

// printsContent are the commands whose output shows a planted secret of
// the fixtures with --no-redact; all of them do (tokens through a tool's
// command line it lists).
var printsContent = map[string]bool{"messages": true, "tokens": true, "diff": true, "audit": true}
