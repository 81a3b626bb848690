package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/dialecttest"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// result is one in-process run of the command line.
type result struct {
	code           int
	stdout, stderr string
}

// agenttrace runs the command line in-process with stdin as standard input.
func agenttrace(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// dialects returns the OTLP/JSON dialect fixtures, by name.
func dialects(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range dialecttest.Cases(t, "../../testdata") {
		out[c.Name] = c.Payload
	}
	return out
}

// readOTLP reads an OTLP/JSON or OTLP protobuf file the way a collector
// would, with pdata.
func readOTLP(t *testing.T, path string) ptrace.Traces {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var td ptrace.Traces
	if strings.HasSuffix(path, ".pb") {
		td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	} else {
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
	}
	require.NoError(t, err, path)
	return td
}

func spansOf(t *testing.T, path string) []string {
	t.Helper()
	return ptracecmp.Spans(readOTLP(t, path))
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func lines(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
