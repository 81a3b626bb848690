package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// simRun records the simulated agent into dir; with stopAfter > 0 its
// guard stops it after that many model and tool calls. It returns the
// artifact's name and what the agent did: the ground truth.
func simRun(t *testing.T, dir string, seed uint64, stopAfter int) (string, agentsim.Result) {
	t.Helper()
	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)
	calls := 0
	res := agentsim.Run(context.Background(), tp, agentsim.Config{Guard: func(context.Context) error {
		calls++
		if stopAfter > 0 && calls > stopAfter {
			return errors.New("stopped by the test")
		}
		return nil
	}})
	require.NoError(t, tp.Shutdown(context.Background()))
	return agentsim.TraceID(seed).String() + ".jsonl", res
}

// realRuns converts every captured OTLP/JSON trace payload of
// testdata/real (with the log records captured beside it) into an
// artifact in dir/real, and returns the artifacts' names.
func realRuns(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/real/*/payloads/*.traces.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "real"), 0o755))
	var names []string
	for _, f := range files {
		lib := filepath.Base(filepath.Dir(filepath.Dir(f)))
		name := "real/" + lib + "-" + strings.TrimSuffix(filepath.Base(f), ".traces.json") + ".jsonl"
		writeArtifact(t, f, filepath.Join(dir, filepath.FromSlash(name)))
		names = append(names, name)
	}
	return names
}

// writeArtifact converts one OTLP/JSON trace file, and its .logs.json
// sibling if there is one, into an artifact at out.
func writeArtifact(t *testing.T, traces, out string) {
	t.Helper()
	in, err := os.Open(traces)
	require.NoError(t, err)
	defer in.Close()
	td, err := converter.ReadOTLP(in, converter.FormatOTLPJSON, traces)
	require.NoError(t, err)
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	w := artifact.NewWriter(f, nil)
	require.NoError(t, w.WriteTraces(td))
	if lf, err := os.Open(strings.TrimSuffix(traces, ".traces.json") + ".logs.json"); err == nil {
		defer lf.Close()
		ld, err := converter.ReadOTLPLogs(lf, converter.FormatOTLPLogsJSON, lf.Name())
		require.NoError(t, err)
		for _, l := range artifact.LogRecords(ld) {
			require.NoError(t, w.WriteLog(&l))
		}
	}
	require.NoError(t, w.Close())
}

// connect serves dir with a Server and returns a session of the Go SDK's
// client connected to it in memory; both end with the test.
func connect(t *testing.T, dir string, opts ...Option) *mcp.ClientSession {
	t.Helper()
	s, err := New(dir, opts...)
	require.NoError(t, err)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agenttrace-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, cs.Close())
		_ = ss.Wait()
		require.NoError(t, s.Close(ctx))
	})
	return cs
}

// call calls a tool and checks its answer's size: the JSON of its
// structured content and its text are both within bound. It returns the
// result, and the structured content decoded into out (when the call
// did not fail).
func call(t *testing.T, cs *mcp.ClientSession, bound int, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s %v: a protocol error, not a tool error", name, args)
	require.NotEmpty(t, res.Content, "%s %v", name, args)
	text := res.Content[0].(*mcp.TextContent).Text
	require.LessOrEqual(t, len(text), bound, "%s %v: text of %d bytes", name, args, len(text))
	if res.IsError {
		return res
	}
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.LessOrEqual(t, len(b), bound, "%s %v: structured content of %d bytes", name, args, len(b))
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), "%s %v", name, args)
	}
	return res
}
