package artifact_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

const golden = "../testdata/golden/agent-run.jsonl"

// TestValidate: the golden artifact is valid; each way of breaking it is
// one problem at the line that breaks it, and errors.Is reaches the
// reader's sentinels through a Problem.
func TestValidate(t *testing.T) {
	raw, err := os.ReadFile(golden)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	n := len(lines)

	rep, err := artifact.Validate(bytes.NewReader(raw), artifact.WithSource("run.jsonl"))
	require.NoError(t, err)
	assert.True(t, rep.Valid(), "%v", rep.Problems)
	assert.Equal(t, int64(n-2), rep.Records, "every line but the header and the trailer")

	tests := []struct {
		name     string
		content  string
		line     int
		contains string
		is       error
	}{
		{"empty", "", 0, "empty file: no meta header", nil},
		{"binary", "\x89PNG\r\n\x1a\n\x00", 0, "not text (binary data at byte 0)", nil},
		{"torn last line", strings.Join(lines[:n-1], "") + `{"kind":"summ`, n, "", artifact.ErrTornLine},
		{"duplicate span", strings.Join(lines[:n-1], "") + lines[1] + lines[n-1], n, "duplicate span_id", nil},
		{"trailer disagrees", strings.Join(lines[:n-1], "") + strings.Replace(lines[n-1], `"records":`, `"records":1`, 1), n, "summary says records", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := artifact.Validate(strings.NewReader(tc.content), artifact.WithSource("run.jsonl"))
			require.NoError(t, err)
			require.False(t, rep.Valid())
			p := rep.Problems[0]
			assert.Equal(t, tc.line, p.Line, p.Error())
			assert.Contains(t, p.Error(), tc.contains)
			if tc.line > 0 {
				assert.True(t, strings.HasPrefix(p.Error(), fmt.Sprintf("run.jsonl:%d: ", tc.line)), p.Error())
			}
			if tc.is != nil {
				assert.True(t, errors.Is(p, tc.is), "%v is %v", p, tc.is)
			}
		})
	}
}

// FuzzValidate: any input gives a report, never a panic; every problem is
// at a line the input has.
func FuzzValidate(f *testing.F) {
	raw, err := os.ReadFile(golden)
	require.NoError(f, err)
	f.Add(raw)
	f.Add([]byte(`{"v":1,"kind":"meta"}` + "\n" + `{"kind":"summary","records":3}`))
	f.Add([]byte("\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rep, err := artifact.Validate(bytes.NewReader(in))
		require.NoError(t, err)
		lines := bytes.Count(in, []byte("\n")) + 1
		for _, p := range rep.Problems {
			require.LessOrEqual(t, p.Line, lines, p.Error())
		}
	})
}

// Validate a file a CI job downloaded, and fail the job on a problem.
func ExampleValidate() {
	f, err := os.Open("../testdata/golden/agent-run.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rep, err := artifact.Validate(f, artifact.WithSource("agent-run.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range rep.Problems {
		fmt.Println(p)
	}
	fmt.Println(rep.Valid(), rep.Records)
	// Output: true 12
}
