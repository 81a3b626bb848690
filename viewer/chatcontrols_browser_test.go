package viewer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// toolLoopChat is a chat span whose input is a prompt and then calls
// rounds of the model calling a tool and the tool answering, in the
// conventions' message shape, as an agent that searches in a loop sends.
func toolLoopChat(t *testing.T, calls int) artifact.Record {
	msgs := []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "content": "Find every flight from Lisbon to Tokyo in May."}}}}
	for i := range calls {
		id := fmt.Sprintf("call_%d", i+1)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "parts": []map[string]any{{"type": "tool_call", "id": id, "name": fmt.Sprintf("search_%d", i+1), "arguments": map[string]any{"day": i + 1}}}},
			map[string]any{"role": "tool", "parts": []map[string]any{{"type": "tool_call_response", "id": id, "response": fmt.Sprintf("%d flights", i)}}})
	}
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	sp := ptrace.NewSpan()
	sp.SetTraceID(pcommon.TraceID{7})
	sp.SetSpanID(pcommon.SpanID{7})
	sp.SetName("chat gpt-4o")
	sp.SetStartTimestamp(pcommon.Timestamp(1e18))
	sp.SetEndTimestamp(pcommon.Timestamp(1e18 + 2e9))
	a := sp.Attributes()
	a.PutStr(semconv.OperationName, "chat")
	a.PutStr(semconv.RequestModel, "gpt-4o")
	a.PutStr(semconv.InputMessages, string(b))
	return artifact.Record{Span: sp, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()}
}

// TestBrowserToolStreakFolds: a conversation with eight tool calls in a
// row shows the first five (each with its result) and folds the rest
// into "3 more tool calls", as the streaming-events seed's viewer does
// (auto_collapse_tool_count 5); opening it shows them; verbose mode
// shows all eight unfolded.
func TestBrowserToolStreakFolds(t *testing.T) {
	rec := toolLoopChat(t, 8)
	run := viewer.Run{Name: "tool-streak", Meta: artifact.MetaFor([]artifact.Record{rec}), Records: []artifact.Record{rec}}
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900))
	open(t, ctx, writePage(t, []viewer.Run{run}))
	showSpan(t, ctx, rec.Span.SpanID().String(), `!!document.querySelector('#detail .msg')`)

	type view struct {
		Calls, Results, Folded int
		Summary                string
		Open                   []string
	}
	const read = `(() => {
	  const d = document.getElementById('detail');
	  const out = (sel) => Array.from(d.querySelectorAll(sel)).filter((e) => !e.closest('details.more-tools'));
	  const f = d.querySelector('details.more-tools');
	  return { Calls: out('.part.tool-call').length, Results: out('.part.tool-resp').length,
	    Folded: f ? f.querySelectorAll('.part.tool-call').length : 0, Summary: f ? f.querySelector('summary').textContent : '',
	    Open: Array.from(d.querySelectorAll('.part.tool-call .call-head b')).filter((e) => e.checkVisibility()).map((e) => e.textContent) };
	})()`
	got := eval[view](t, ctx, read)
	assert.Equal(t, 5, got.Calls, "the first five calls")
	assert.Equal(t, 5, got.Results, "each shown call keeps its result")
	assert.Equal(t, 3, got.Folded)
	assert.Equal(t, "3 more tool calls", got.Summary)
	assert.Equal(t, []string{"search_1", "search_2", "search_3", "search_4", "search_5"}, got.Open, "the folded calls are not visible")

	_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.querySelector("#detail details.more-tools > summary").click()`))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#detail details.more-tools').open`))
	require.NoError(t, err)
	assert.Len(t, eval[view](t, ctx, read).Open, 8, "opened, the fold shows the rest")

	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), "verbose")))
	eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
	got = eval[view](t, ctx, read)
	assert.Equal(t, 8, got.Calls, "verbose mode folds nothing")
	assert.Zero(t, got.Folded)
}

// TestBrowserSourceCut: a tool output the source cut short (the streaming
// events' truncated, with full_length) says so, with the full length
// from the events file, next to the output; an output the source did not
// cut says nothing.
func TestBrowserSourceCut(t *testing.T) {
	path := filepath.Join("..", "testdata", "shapes", "events.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var events []struct {
		Type       string `json:"type"`
		ToolCallID string `json:"tool_call_id"`
		Truncated  bool   `json:"truncated"`
		FullLength int64  `json:"full_length"`
	}
	require.NoError(t, json.Unmarshal(raw, &events))
	cut := map[string]int64{}
	for _, e := range events {
		if e.Type == "tool_output" {
			if e.Truncated {
				cut[e.ToolCallID] = e.FullLength
			} else {
				cut[e.ToolCallID] = 0
			}
		}
	}
	require.Contains(t, cut, "call_2")
	require.Positive(t, cut["call_2"], "the fixture has a cut output")

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var recs []artifact.Record
	_, err = importer.ReadEvents(f, path, func(r *artifact.Record) error { recs = append(recs, *r); return nil })
	require.NoError(t, err)
	run := viewer.Run{Name: "events", Meta: artifact.MetaFor(recs), Records: recs}

	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900), browsertest.WithTimeout(2*time.Minute))
	open(t, ctx, writePage(t, []viewer.Run{run}))
	checked := 0
	for _, r := range recs {
		id, ok := r.Span.Attributes().Get(semconv.ToolCallID)
		if !ok {
			continue
		}
		full, out := cut[id.Str()]
		if !out {
			continue
		}
		sid := r.Span.SpanID().String()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`location.hash = '#span=`+sid+`'`))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#rows .row.sel[data-span-id="`+sid+`"]') && !!document.querySelector('#detail .dhead')`))
		require.NoError(t, err)
		note := eval[string](t, ctx, `(() => { const e = document.querySelector('#detail .source-cut'); return e ? e.textContent : ''; })()`)
		if full > 0 {
			digits := strings.Map(func(r rune) rune {
				if unicode.IsDigit(r) {
					return r
				}
				return -1
			}, note)
			assert.Equal(t, strconv.FormatInt(full, 10), digits, "%s: the full length, in %q", id.Str(), note)
			assert.Contains(t, note, "Cut short by the source", id.Str())
		} else {
			assert.Empty(t, note, "%s was not cut", id.Str())
		}
		checked++
	}
	assert.Equal(t, len(cut), checked, "every tool output of the file was looked at")
}
