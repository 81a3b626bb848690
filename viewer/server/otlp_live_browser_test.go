package server_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// otlpInto starts an OTLP/HTTP receiver writing into dir through the
// store, and returns its address.
func otlpInto(t *testing.T, dir string) string {
	t.Helper()
	st, err := store.New(store.Options{Dir: dir})
	require.NoError(t, err)
	rcv := receiver.New(st)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- rcv.ServeHTTP(ln) }()
	t.Cleanup(func() {
		require.NoError(t, rcv.Shutdown(context.Background()))
		assert.ErrorIs(t, <-done, http.ErrServerClosed)
		require.NoError(t, st.Close())
	})
	return ln.Addr().String()
}

// An agent exporting with the Go SDK's OTLP/HTTP exporter, span by span as
// they end: its page shows the run as soon as the first span lands, the
// agent (whose children arrived, itself not yet) as running with its
// elapsed time growing, the token total and the cost in dollars growing
// with each model call (on the run's page and in the runs list), and the
// run done when the agent's span ends.
func TestViewerShowsOTLPRunLive(t *testing.T) {
	dir := t.TempDir()
	addr := otlpInto(t, dir)
	ts := start(t, dir, fast)

	exp, err := otlptracehttp.New(t.Context(), otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure())
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "live-agent"))))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	tr := tp.Tracer("live")
	ctx, root := tr.Start(t.Context(), "invoke_agent planner", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "planner")))
	prices, err := pricing.Default()
	require.NoError(t, err)
	var spent []float64 // each call's cost, priced from the data by hand
	chat := func(in, out int) {
		at := time.Now()
		c := prices.UsageCost("openai", "gpt-4o", at, semconv.Usage{Input: int64(in), Output: int64(out)})
		require.Equal(t, pricing.FromPrices, c.Source)
		spent = append(spent, c.USD)
		_, sp := tr.Start(ctx, "chat gpt-4o", trace.WithTimestamp(at), trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
			attribute.String("gen_ai.provider.name", "openai"),
			attribute.Int("gen_ai.usage.input_tokens", in), attribute.Int("gen_ai.usage.output_tokens", out)))
		sp.End()
	}
	name := root.SpanContext().TraceID().String() + ".jsonl"

	// The list, open before anything arrived, shows the run when its
	// first span lands, running.
	b := browsertest.New(t, browsertest.WithNetwork())
	require.NoError(t, chromedp.Do(b, chromedp.Navigate(ts.url+"/")))
	_, err = chromedp.Run(b, chromedp.Evaluate[bool](`window.sameDocument = true; true`))
	require.NoError(t, err)
	dollars := func() string {
		var usd float64
		for _, c := range spent {
			usd += c
		}
		return report.Dollars(&usd)
	}
	chat(1234, 321)
	require.NoError(t, pollAcrossNavigation(b, `!window.sameDocument && !!document.querySelector('tr[data-path=`+jsString(name)+`] .running')`),
		"the list reloads itself and shows the new run running")
	listCost, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('tr[data-path=`+jsString(name)+`] td[data-col=cost]').innerText`))
	require.NoError(t, err)
	assert.Equal(t, dollars(), listCost, "the running run's cost in the list")

	require.NoError(t, chromedp.Do(b, chromedp.Navigate(ts.url+"/run/"+name)))
	_, err = chromedp.Run(b, chromedp.Poll[bool](`document.body.dataset.ready === "1" && document.body.dataset.runState === "running" && document.querySelectorAll('#rows .row.running').length === 1`))
	require.NoError(t, err, "the agent shows as running before it ends")
	first, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('#rows .row.running .dur').textContent`))
	require.NoError(t, err)
	_, err = chromedp.Run(b, chromedp.Poll[bool](`document.querySelector('#rows .row.running .dur').textContent !== `+jsString(first)))
	require.NoError(t, err, "its elapsed time ticks")
	costCard := `(Array.from(document.querySelectorAll('#cards .card')).find(c => c.querySelector('.label').textContent === 'Cost') || {textContent: ''}).textContent`
	_, err = chromedp.Run(b, chromedp.Poll[bool](`document.getElementById('cards').innerText.includes('1,555') && `+costCard+`.includes(`+jsString(dollars())+`)`))
	require.NoError(t, err, "the first call's tokens and cost (%s)", dollars())

	chat(2000, 300)
	_, err = chromedp.Run(b, chromedp.Poll[bool](`document.getElementById('cards').innerText.includes('3,855') && `+costCard+`.includes(`+jsString(dollars())+`) && document.body.dataset.runState === "running"`))
	require.NoError(t, err, "the total and the cost (%s) grow as spans land", dollars())
	browsertest.Screenshot(t, b, "viewer-otlp-running.png")

	root.End()
	_, err = chromedp.Run(b, chromedp.Poll[bool](`document.body.dataset.runState === "done" && document.querySelectorAll('#rows .row.running').length === 0 && document.querySelectorAll('#rows .row').length === 3`))
	require.NoError(t, err, "done once the agent's span arrives")
	status, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('.card.done').innerText`))
	require.NoError(t, err)
	assert.Contains(t, status, "done")

	// The list's row followed: both calls' cost, no longer running.
	require.NoError(t, chromedp.Do(b, chromedp.Navigate(ts.url+"/")))
	row := `document.querySelector('tr[data-path=` + jsString(name) + `]')`
	_, err = chromedp.Run(b, chromedp.Poll[bool](row+` && !`+row+`.querySelector('.running') && `+row+`.querySelector('td[data-col=cost]').innerText === `+jsString(dollars())))
	require.NoError(t, err, "the list shows the run's whole cost (%s), done", dollars())
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
