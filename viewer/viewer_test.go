package viewer_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/viewer"
)

var (
	cspRe    = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	scriptRe = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	styleRe  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
)

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// The page loads nothing and runs only its own code: the policy allows the
// one inline script and the one style sheet by their hashes, and nothing
// else; no element points anywhere.
func TestPageIsSelfContained(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []viewer.Option
		connect string
	}{
		{"file", nil, "connect-src 'none'"},
		{"live", []viewer.Option{viewer.WithLive("/events/run.jsonl?offset=10", "/data/run.jsonl")}, "connect-src 'self'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, viewer.Write(&buf, []viewer.Run{readRun(t, "../testdata/golden/agent-run.jsonl")}, tc.opts...))
			page := buf.String()
			m := cspRe.FindStringSubmatch(page)
			require.NotNil(t, m, "a CSP meta tag")
			scripts := scriptRe.FindAllStringSubmatch(page, -1)
			require.Len(t, scripts, 1, "one executable script")
			styles := styleRe.FindAllStringSubmatch(page, -1)
			require.Len(t, styles, 1)
			directives := strings.Split(html.UnescapeString(m[1]), "; ")
			require.Equal(t, []string{
				"default-src 'none'",
				"script-src " + hashOf(scripts[0][1]),
				"style-src " + hashOf(styles[0][1]),
				"img-src data:",
				tc.connect,
				"base-uri 'none'",
				"form-action 'none'",
			}, directives)
			require.NotRegexp(t, `(?i)\s(src|href|action|formaction|srcset|poster|data)\s*=\s*"?(https?:|//)`, page)
			require.NotContains(t, page, "<link")
			require.NotContains(t, page, "<iframe")
		})
	}
}

func TestRunNameCannotEndItsDataBlock(t *testing.T) {
	var buf bytes.Buffer
	run := readRun(t, "../testdata/golden/agent-run.jsonl")
	run.Name = `"></script><script>alert(1)</script>`
	require.NoError(t, viewer.Write(&buf, []viewer.Run{run}))
	require.Len(t, scriptRe.FindAllString(buf.String(), -1), 1)
	require.Contains(t, buf.String(), `data-name="&#34;&gt;&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`)
}

func ExampleWrite() {
	// An OTLP/JSON recording of an agent run; an artifact read with
	// artifact.NewReader works the same way.
	f, err := os.Open("../testdata/otlp/agent-run.json")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	td, err := converter.ReadOTLP(f, converter.FormatOTLPJSON, f.Name())
	if err != nil {
		panic(err)
	}
	run := viewer.Run{Name: "agent-run.json", Records: artifact.Records(td)}
	var page bytes.Buffer
	if err := viewer.Write(&page, []viewer.Run{run}, viewer.WithTitle("travel planner")); err != nil {
		panic(err)
	}
	fmt.Println(len(run.Records), "records;", strings.Contains(page.String(), "<title>travel planner</title>"))
	// Output: 12 records; true
}

// A parent chain 20,000 deep (hostile, or a runaway agent) still makes a
// page: the outline shows its first records, nested, and says how many
// more the page with JavaScript on shows; the embedded run holds them all.
func TestDeepChain(t *testing.T) {
	const n = 20000
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	var tid pcommon.TraceID
	tid[0] = 1
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid)
		var id, parent pcommon.SpanID
		binary.BigEndian.PutUint64(id[:], uint64(i+1))
		sp.SetSpanID(id)
		if i > 0 {
			binary.BigEndian.PutUint64(parent[:], uint64(i))
			sp.SetParentSpanID(parent)
		}
		sp.SetName("step")
		sp.SetStartTimestamp(pcommon.Timestamp(1e18 + i))
		sp.SetEndTimestamp(pcommon.Timestamp(1e18 + 2*n - i))
	}
	var buf bytes.Buffer
	require.NoError(t, viewer.Write(&buf, []viewer.Run{{Name: "deep.jsonl", Records: artifact.Records(td)}}))
	page := buf.String()
	const shown = 100 // the outline's first records (issue 24: a summary, not a second copy)
	require.Equal(t, shown, strings.Count(page, `<details class="rec"`))
	require.Equal(t, shown, strings.Count(page, `</details>`)-strings.Count(page, `<details open>`)-strings.Count(page, `<details>`))
	require.Contains(t, page, "The first 100 records of 20,000, in the order of the timeline; 19,900 more are in the page with JavaScript on.")
	embedded := page[strings.Index(page, "</noscript>"):] // the outline's records are HTML, not lines
	require.Equal(t, n, strings.Count(embedded, `"span_id":`), "every record embedded once")
}
