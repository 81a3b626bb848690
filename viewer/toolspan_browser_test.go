package viewer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// toolTruth is what expected.json says the tool loop's tool was called
// with and returned: the arguments of the model's tool call (as the fake
// model server sent them) and the tool's result.
func toolTruth(t *testing.T, lib string) (args map[string]any, result string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, lib, "expected.json"))
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Calls      json.RawMessage `json:"calls"`
			ToolResult string          `json:"tool_result"`
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(b, &exp))
	sc := exp.Scenarios["tool-loop"]
	var calls []struct {
		ToolCalls []struct {
			Arguments string `json:"arguments"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(sc.Calls, &calls); err == nil {
		for _, c := range calls {
			for _, tc := range c.ToolCalls {
				if json.Unmarshal([]byte(tc.Arguments), &args) == nil {
					return args, sc.ToolResult
				}
			}
		}
	}
	return nil, sc.ToolResult
}

// noToolArgs: libraries whose tool span does not record the model's
// arguments (its expected.json's notes say so).
var noToolArgs = map[string]string{
	"openllmetry-traceloop-sdk": `traceloop.entity.input is {"args":[],"kwargs":{}}: the capture's wrapped tool function takes no arguments`,
}

// TestBrowserToolSpanShowsArgsAndResult: the tool span of every captured
// tool loop shows the arguments the model called it with and the result
// it returned, as sections of text or pretty JSON, and no chat bubble,
// wherever the library put them (attributes, input and output values,
// message events).
func TestBrowserToolSpanShowsArgsAndResult(t *testing.T) {
	traces, err := filepath.Glob(filepath.Join(realDir, "*", "payloads", "tool-loop.traces.pb"))
	require.NoError(t, err)
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900), browsertest.WithTimeout(5*time.Minute))
	seen := 0
	for _, tp := range traces {
		lib := filepath.Base(filepath.Dir(filepath.Dir(tp)))
		t.Run(lib, func(t *testing.T) {
			run := realRun(t, lib, "tool-loop", false)
			var sid string
			var rd semconv.Reading
			for i := range run.Records {
				if run.Records[i].Read(&rd); rd.Kind == semconv.Call {
					sid = run.Records[i].Span.SpanID().String()
				}
			}
			if sid == "" {
				t.Skipf("%s traces no tool span", lib)
			}
			seen++
			args, result := toolTruth(t, lib)
			open(t, ctx, writePage(t, []viewer.Run{run}))
			_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`location.hash = '#span=`+sid+`'`))
			require.NoError(t, err)
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#rows .row.sel[data-span-id="`+sid+`"]') && !!document.querySelector('#detail .dhead')`))
			require.NoError(t, err)
			type view struct {
				Bubbles           int
				Arguments, Result string
			}
			got := eval[view](t, ctx, `(() => {
			  const d = document.getElementById('detail');
			  const sec = (title) => { const h = Array.from(d.querySelectorAll('.section > h3')).find((e) => e.textContent === title); return h ? h.parentNode.querySelector('pre').textContent : ''; };
			  return { Bubbles: d.querySelectorAll('.msg').length, Arguments: sec('Arguments'), Result: sec('Result') };
			})()`)
			t.Logf("%s: args %q result %q", lib, got.Arguments, got.Result)
			assert.Zero(t, got.Bubbles, "a tool span is not a chat")
			if reason, ok := noToolArgs[lib]; ok {
				args = nil
				t.Logf("%s: arguments not checked: %s", lib, reason)
			}
			for k, v := range args {
				if s, ok := v.(string); ok {
					assert.Contains(t, got.Arguments, s, "argument %s", k)
				}
			}
			if result != "" {
				assert.Contains(t, got.Result, result)
			}
		})
	}
	assert.GreaterOrEqual(t, seen, 10, "tool spans looked at")
}
