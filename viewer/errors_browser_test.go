package viewer_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// realPayloads lists every OTLP traces payload captured from a real
// library under testdata/real (see its README), both encodings.
func realPayloads(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.traces.json", "*.traces.pb"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", "real", "*", "payloads", pat))
		require.NoError(t, err)
		out = append(out, m...)
	}
	slices.Sort(out)
	return out
}

// readOTLP reads a payload file as the CLI does: records in end order.
func readOTLP(t *testing.T, path string) []artifact.Record {
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
	return artifact.Records(td)
}

// TestErrorsAgreeOnEveryRealPayload: on the page of every payload of
// testdata/real, the error card, the red rows, the "errors only" filter
// and next error (n) name the same failed spans, and they are the ones
// the token report (tokens --json's errors and failures) counts: one
// predicate, artifact.Failed, behind all of them (issue 21 point 4).
func TestErrorsAgreeOnEveryRealPayload(t *testing.T) {
	paths := realPayloads(t)
	if len(paths) == 0 {
		t.Skip("no payloads under testdata/real")
	}
	ctx := browsertest.New(t, browsertest.WithTimeout(15*time.Minute))
	withErrors := 0
	for _, path := range paths {
		name := strings.TrimPrefix(filepath.ToSlash(path), "../testdata/real/")
		t.Run(name, func(t *testing.T) {
			recs := readOTLP(t, path)
			rep := report.Tokens(recs, artifact.MetaFor(recs))
			var want []string
			for _, f := range rep.Failures {
				want = append(want, f.SpanID)
			}
			require.Equal(t, int64(len(want)), rep.Errors, "the report's count and its list")
			if len(want) > 0 {
				withErrors++
			}
			page := writePage(t, []viewer.Run{{Name: filepath.Base(path), Records: recs}})
			open(t, ctx, page)

			card := eval[string](t, ctx, `(() => { for (const c of document.querySelectorAll('.card')) `+
				`if (c.querySelector('.label').textContent === 'Errors') return c.querySelector('.value').textContent; return ''; })()`)
			n, err := strconv.ParseInt(strings.ReplaceAll(card, ",", ""), 10, 64)
			require.NoError(t, err, "the Errors card reads %q", card)
			assert.Equal(t, rep.Errors, n, "the Errors card")

			// A wrapper folded into its model call (two instrumentations at
			// once) is no row: its failure is shown on the call's row, which
			// names it (data-wrapped). The failed spans a list of rows shows
			// are the rows' own and their folded wrappers' that failed.
			failed := map[string]bool{}
			for _, id := range want {
				failed[id] = true
			}
			shown := func(sel string) []string {
				var ids []string
				for _, r := range eval[[][2]string](t, ctx, `Array.from(document.querySelectorAll('`+sel+`')).map(r => [r.dataset.spanId, r.dataset.wrapped || ''])`) {
					ids = append(ids, r[0])
					if r[1] != "" && failed[r[1]] {
						ids = append(ids, r[1])
					}
				}
				return ids
			}
			assert.ElementsMatch(t, want, shown(`#rows .row.err`), "the red rows")
			rows := len(eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row.err')).map(r => r.dataset.spanId)`))

			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#errors-only`))))
			only := shown(`#rows .row:not(.ctx)`)
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#errors-only`))))
			assert.ElementsMatch(t, want, only, "errors only")

			var visited []string
			for range rows {
				eval[bool](t, ctx, `document.activeElement && document.activeElement.blur(), `+
					`document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n', bubbles: true})), true`)
				visited = append(visited, shown(`#rows .row.sel`)...)
			}
			assert.ElementsMatch(t, want, visited, "n visits each error once")
		})
	}
	assert.Positive(t, withErrors, "some payload has a failed span")
}
