// Package viewer renders agenttrace artifacts as one self-contained HTML
// page. It is what "agenttrace html" writes and "agenttrace serve" serves.
//
// The page carries everything it needs and loads nothing:
//
//   - each run is embedded as its artifact lines in a
//     <script type="application/x-ndjson"> data block, every "<" written as
//     \u003c so that no payload can end the block;
//   - assets/ingest.js parses those lines (and any artifact, OTLP/JSON or
//     Jaeger JSON file dropped onto the page, and the lines of a live
//     stream) into records, with semconv's dialect table embedded as JSON,
//     so the browser reads spans as the Go converter does;
//   - assets/app.js renders: summary cards and budget, token tables, a
//     virtual waterfall of the span tree, the detail panel, search, filters
//     and modes. Data reaches the DOM only as text;
//   - a Content-Security-Policy meta tag allows that one script and the
//     one style sheet by hash, and nothing else (no network; a live page
//     may open its own event stream);
//   - a <noscript> outline (html/template) gives readers without
//     JavaScript the summary, the tables and the record tree as <details>.
//
// The tests drive a real headless Chromium (internal/browsertest).
package viewer
