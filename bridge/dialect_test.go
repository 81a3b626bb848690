package bridge_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
)

// WithDialect lays a dialect file over the table the processor reads
// spans with: a model call under a library's own keys (semconv's test
// dialect, written for the tests) counts toward the budget. Not
// parallel: the table is the process's.
func TestWithDialect(t *testing.T) {
	t.Cleanup(func() { require.NoError(t, semconv.UseDialects()) })
	var out bytes.Buffer
	var over []bridge.BudgetEvent
	p, err := bridge.New(bridge.WithWriter(&out), bridge.WithBlocking(), bridge.WithBudget(10),
		bridge.WithDialect("../semconv/testdata/mylib.dialect.yaml"),
		bridge.WithBudgetCallbacks(nil, func(e bridge.BudgetEvent) { over = append(over, e) }))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	_, sp := tp.Tracer("mylib").Start(context.Background(), "step")
	sp.SetAttributes(attribute.String("mylib.kind", "llm"), attribute.String("mylib.model", "m-1"),
		attribute.Int64("mylib.usage.in", 12), attribute.Int64("mylib.usage.out", 5))
	sp.End()
	require.NoError(t, tp.Shutdown(context.Background()))
	assert.Len(t, over, 1, "17 tokens read through the file ran over a budget of 10")
	assert.Contains(t, out.String(), `"kind":"inference"`)
}

// A dialect file with a mistake makes New fail with its name and line.
func TestWithDialectErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("kinds:\n  - {dialect: x, key: k, values: {a: llm}}\n"), 0o600))
	_, err := bridge.New(bridge.WithWriter(&bytes.Buffer{}), bridge.WithDialect(bad))
	require.ErrorIs(t, err, semconv.ErrDialect)
	assert.Contains(t, err.Error(), bad+":2:")
	_, err = bridge.New(bridge.WithWriter(&bytes.Buffer{}), bridge.WithDialect(filepath.Join(t.TempDir(), "none.yaml")))
	require.ErrorIs(t, err, os.ErrNotExist)
}
