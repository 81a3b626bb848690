package viewer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agenttrace/agenttrace/artifact"
)

// Run is one artifact shown by the page.
type Run struct {
	// Name labels the run in the page, usually its file name.
	Name string
	// Meta is the artifact's header; nil makes one from the records.
	Meta *artifact.Meta
	// Records are the run's spans, in any order.
	Records []artifact.Record
	// Summary is the artifact's last trailer, nil when it has none. When
	// it accounts for more records than Records holds (dropped by a queue,
	// a cap or truncation), the page shows its totals and budget, and says
	// how many records are missing.
	Summary *artifact.Summary
	// Problems are the input's lines that could not be read; the page
	// lists them above the run.
	Problems []Problem
	// InFlight are the spans that started and have not ended: the
	// start records ("in_flight":true) no ended record superseded
	// (artifact.Settle), apart from Records so that no total counts
	// them. The page shows them as running while the run is, else as
	// never ended; never as finished spans.
	InFlight []artifact.Record
	// Live tells when the run's input last gained data and how long an
	// open run may stay idle before it is shown as stopped without an
	// end; zero for a run given whole.
	Live Liveness
	// Logs are the run's log records. Those that are GenAI content belong
	// in Records as their spans' events (converter.LogsAsEvents); the
	// others, the application's own logs, are shown on their span.
	Logs []artifact.LogRecord
}

// ErrUnsafeAsset is returned when the page's own script or style would end
// its element early; it means a broken build, never bad input.
var ErrUnsafeAsset = errors.New("viewer: asset contains an element end tag")

//go:embed assets
var assets embed.FS

// page is the fixed part of every document: the code, the style and the
// hashes the Content-Security-Policy allows them by.
type page struct {
	script, style         string
	scriptHash, styleHash string
}

var (
	pageOnce sync.Once
	thePage  page
	pageErr  error
)

func loadPage() (*page, error) {
	pageOnce.Do(func() {
		read := func(name string) string {
			b, err := assets.ReadFile("assets/" + name)
			if err != nil && pageErr == nil {
				pageErr = fmt.Errorf("viewer: %w", err)
			}
			return string(b)
		}
		p := &thePage
		// app.js renders the view models Go computed; it derives nothing.
		p.script = read("app.js")
		p.style = read("style.css")
		for _, s := range []string{p.script, p.style} {
			l := strings.ToLower(s)
			if strings.Contains(l, "</script") || strings.Contains(l, "</style") || strings.Contains(l, "<!--") {
				pageErr = ErrUnsafeAsset
			}
		}
		p.scriptHash = cspHash(p.script)
		p.styleHash = cspHash(p.style)
	})
	return &thePage, pageErr
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// csp allows the page's own script and style (by hash, so injected inline
// code and event-handler attributes never run), data: images, and nothing
// else: no network, except, on a page agenttrace serve serves, its own
// origin (the event stream, the run's data, the conversion of a dropped
// file).
func (p *page) csp(served bool) string {
	connect := "'none'"
	if served {
		connect = "'self'"
	}
	return "default-src 'none'; script-src " + p.scriptHash + "; style-src " + p.styleHash +
		"; img-src data:; connect-src " + connect + "; base-uri 'none'; form-action 'none'"
}

// The records of a run are embedded in chunks, in waterfall order (see
// waterfallOrder): the run's head (everything but its records) and its
// first records come before the page's code, the rest after it, each
// chunk a data block of its own. The code paints the summary and the
// first screen of the waterfall from what is before it, while the browser
// is still reading the rest, and then takes in the chunks as they are
// parsed, a slice at a time, the page responsive in between (issue 24).
const (
	// firstChunk is how many records come with a run's head: more than
	// a screen of rows, few enough to parse at once.
	firstChunk = 200
	// chunkRecords is how many records each later chunk holds.
	chunkRecords = 1000
)

// Write renders runs as one self-contained HTML document to w: inline style
// and code, each run embedded as its view model (see WriteRunJSON) in
// chunks, and a static outline for readers without JavaScript. Nothing in
// it loads anything from anywhere. The records are encoded as they are
// written: the page is streamed, never held whole.
func Write(w io.Writer, runs []Run, opts ...Option) error {
	cfg := newConfig(opts)
	p, err := loadPage()
	if err != nil {
		return err
	}
	// Each run's header, made once when the caller has none: the embedded
	// lines and the outline must agree on it.
	runs = slices.Clone(runs)
	views := make([]*runView, len(runs))
	for i := range runs {
		if runs[i].Meta == nil {
			runs[i].Meta = artifact.MetaFor(runs[i].Records)
		}
		views[i] = prepareView(&runs[i])
	}
	title := cfg.title
	if title == "" {
		title = "agenttrace"
		if len(runs) > 0 {
			title = runs[0].Name + " — agenttrace"
		}
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	bw.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + html.EscapeString(p.csp(cfg.live != "" || cfg.convert != "")) + "\">\n")
	bw.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	bw.WriteString("<meta name=\"generator\" content=\"" + html.EscapeString(artifact.Producer) + "\">\n")
	bw.WriteString("<title>" + html.EscapeString(title) + "</title>\n<style>" + p.style + "</style>\n</head>\n<body>\n<div id=\"app\"><noscript>")
	if err := writeStatic(bw, views); err != nil {
		return err
	}
	bw.WriteString("</noscript></div>\n")
	data := func(b []byte) { writeScriptData(bw, b) }
	for i, v := range views {
		head, err := v.headJSON()
		if err != nil {
			return fmt.Errorf("viewer: run %q: %w", runs[i].Name, err)
		}
		n := len(runs[i].Records) + len(runs[i].InFlight)
		first := min(n, firstChunk)
		bw.WriteString("<script type=\"application/json\" class=\"at-run\" data-name=\"" + html.EscapeString(runs[i].Name) + "\">")
		data(head)
		bw.WriteString(`,"chunks":` + strconv.Itoa((n-first+chunkRecords-1)/chunkRecords) + `,"records":[`)
		if err := v.writeRecords(0, first, data); err != nil {
			return fmt.Errorf("viewer: run %q: %w", runs[i].Name, err)
		}
		bw.WriteString("]}</script>\n")
	}
	if cfg.live != "" {
		bw.WriteString("<div id=\"at-live\" hidden data-url=\"" + html.EscapeString(cfg.live) + "\" data-run=\"" + html.EscapeString(cfg.liveData) + "\"></div>\n")
	}
	if cfg.convert != "" {
		bw.WriteString("<div id=\"at-convert\" hidden data-url=\"" + html.EscapeString(cfg.convert) + "\"></div>\n")
	}
	bw.WriteString("<script>" + p.script + "</script>\n")
	for i, v := range views {
		n := len(runs[i].Records) + len(runs[i].InFlight)
		for from := min(n, firstChunk); from < n; from += chunkRecords {
			bw.WriteString("<script type=\"application/json\" class=\"at-more\" data-run=\"" + strconv.Itoa(i) + "\">[")
			if err := v.writeRecords(from, min(n, from+chunkRecords), data); err != nil {
				return fmt.Errorf("viewer: run %q: %w", runs[i].Name, err)
			}
			// The newline after each block tells the code that the
			// parser has closed it (see app.js, takeChunks).
			bw.WriteString("]</script>\n")
		}
	}
	bw.WriteString("</body>\n</html>\n")
	return bw.Flush()
}

// writeScriptData writes JSON text into a data block. A JSON document has
// "<" only inside strings, where \u003c means the same, so escaping every
// "<" keeps the text's meaning while no payload can write "</script>" or
// "<!--" and end (or change the parsing of) the block.
func writeScriptData(w *bufio.Writer, b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			w.Write(b)
			return
		}
		w.Write(b[:i])
		w.WriteString(`\u003c`)
		b = b[i+1:]
	}
}
