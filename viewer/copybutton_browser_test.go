package viewer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestBrowserCopyButtonCoversNoText: a long value's Copy button sits in
// its corner without covering a character of it, whatever the panel's
// width.
func TestBrowserCopyButtonCoversNoText(t *testing.T) {
	span := ptrace.NewSpan()
	span.SetTraceID(pcommon.TraceID{3})
	span.SetSpanID(pcommon.SpanID{3})
	span.SetName("step")
	span.SetStartTimestamp(pcommon.Timestamp(1e18))
	span.SetEndTimestamp(pcommon.Timestamp(1e18 + 1e9))
	span.Attributes().PutStr("app.note", strings.Repeat("a long line of words that fills the first line of the value ", 8))
	recs := []artifact.Record{{Span: span, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()}}
	run := viewer.Run{Name: "copy", Meta: artifact.MetaFor(recs), Records: recs}
	for _, width := range []int{1280, 900} {
		ctx := browsertest.New(t, browsertest.WithWindow(width, 800))
		open(t, ctx, writePage(t, []viewer.Run{run}))
		showSpan(t, ctx, span.SpanID().String(), `!!document.querySelector('#detail .valwrap > .copy')`)
		type overlap struct {
			Rects, Covered int
		}
		got := eval[overlap](t, ctx, `(() => {
		  const wrap = document.querySelector('#detail .valwrap:has(> .copy)');
		  const b = wrap.querySelector('.copy').getBoundingClientRect();
		  const r = document.createRange();
		  r.selectNodeContents(wrap.querySelector('pre'));
		  const rects = Array.from(r.getClientRects());
		  const covered = rects.filter((x) => x.left < b.right && x.right > b.left && x.top < b.bottom && x.bottom > b.top).length;
		  return { Rects: rects.length, Covered: covered };
		})()`)
		assert.Positive(t, got.Rects, "width %d: the value's text has lines", width)
		assert.Zero(t, got.Covered, "width %d: the Copy button covers text", width)
	}
}
