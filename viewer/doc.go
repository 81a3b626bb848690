// Package viewer renders agenttrace artifacts as one self-contained HTML
// page. It is what "agenttrace html" writes and "agenttrace serve" serves.
//
// The page carries everything it needs and loads nothing:
//
//   - each run is embedded as its view model (see [WriteRunJSON]) in a
//     <script type="application/json" class="at-run"> data block, every "<"
//     written as \u003c so that no payload can end the block. Go computed
//     all of it: records as the converter writes them (kinds, promoted
//     fields, usage, messages, attributes) with their times in
//     milliseconds, the token report (report.Tokens, with the artifact's
//     trailer: the trailer's totals when records were dropped), the lines
//     that could not be read;
//   - assets/app.js only renders: summary cards and budget, the drop note,
//     token tables, a virtual waterfall of the span tree, the detail panel,
//     search, filters and modes. It holds no conversion rule: no
//     classification, decoding or totals. Data reaches the DOM only as
//     text. A file dropped on a written page opens only if it is an
//     artifact, as written; a served page sends it to the server, which
//     converts it in Go (package server);
//   - a Content-Security-Policy meta tag allows that one script and the
//     one style sheet by hash, and nothing else (no network; a served page
//     may reach its own origin: its event stream, its run's data, the
//     conversion of a dropped file);
//   - a <noscript> outline (html/template) gives readers without
//     JavaScript the summary, the tables and the record tree as <details>.
//
// The tests drive a real headless Chromium (internal/browsertest).
package viewer
