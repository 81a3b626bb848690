package store

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
)

// useRedactor makes o.Redactor part of the store's write path, so that
// every writer (the SDK processor, the collector exporter, serve --otlp,
// convert --split) redacts the same way by passing a Redactor, and none
// keeps its own copy of the rule: each span as it is encoded, in the
// encoder's one walk of its attributes (see prepare), after the caller's
// Prepare has seen it unchanged; resources and scopes once per batch in
// Write, before routing reads anything; log records in WriteLogs. The
// header says what was done. A Redactor that can change nothing is
// dropped.
func (o *Options) useRedactor() {
	red := o.Redactor
	if !red.Enabled() {
		o.Redactor = nil
		return
	}
	o.Header.Redacted = o.Header.Redacted || red.NamesKeys()
	o.Header.SecretsScanned = o.Header.SecretsScanned || red.ScansSecrets()
}

// prepare is what a Write still does to records before their lines are
// made: the caller's Options.Prepare, then the redaction. The redaction
// is done by the encoder, in the walk of each span's attributes that
// reads and encodes them (artifact.Encoder.SetRedactor): one walk, on
// the core that encodes the span, while it is in the cache. What reads
// the records before they are encoded has both done first (now): routing
// by conversation, and a new artifact's header (the caller's Prepare
// always; the redaction when the header reads what it could change).
type prepare struct {
	fn  func(*artifact.Record) // Options.Prepare, still to call
	red *redact.Redactor       // Options.Redactor, still to apply
}

// pending is what s does to the records of a Write.
func (s *Store) pending() prepare {
	return prepare{fn: s.opts.Prepare, red: s.opts.Redactor}
}

// now does p to every record of recs at once, on every core when they
// are many, and returns what is left to do: nothing.
func (p prepare) now(recs []artifact.Record) prepare {
	switch {
	case p.fn != nil && p.red != nil:
		prepareAll(recs, func(rec *artifact.Record) {
			p.fn(rec)
			p.red.Span(rec.Span)
		})
	case p.fn != nil:
		prepareAll(recs, p.fn)
	case p.red != nil:
		prepareAll(recs, func(rec *artifact.Record) { p.red.Span(rec.Span) })
	}
	return prepare{}
}

// beforeHeader does what must be done to recs, the first records of a new
// artifact of key k, before its header reads them, and returns what is
// left for the encoder: the caller's Prepare now, and the redaction too
// when the header reads what it could change (a whole run's header reads
// the conversation id; a root's budget attributes, when the Redactor
// names their keys).
func (s *Store) beforeHeader(k Key, recs []artifact.Record, p prepare) prepare {
	if p.fn != nil {
		prepareAll(recs, p.fn)
		p.fn = nil
	}
	if p.red != nil && (s.budgetNamed || k.Kind == KindRun && s.opts.Header.Whole) {
		p = p.now(recs)
	}
	return p
}

// redactOrigins redacts the resource and scope attributes of recs in
// place, each once: records of one batch share them, in runs.
func redactOrigins(red *redact.Redactor, recs []artifact.Record) {
	var o originRun
	for i := range recs {
		o.redact(red, i == 0, recs[i].Resource, recs[i].Scope)
	}
}

// redactLogs redacts log records, their resources and scopes in place,
// as redactOrigins and Prepare do for spans.
func redactLogs(red *redact.Redactor, recs []artifact.LogRecord) {
	var o originRun
	for i := range recs {
		o.redact(red, i == 0, recs[i].Resource, recs[i].Scope)
		red.LogRecord(recs[i].Log)
	}
}

// originRun remembers the last resource and scope redacted, so that the
// records sharing them (in runs) redact them once.
type originRun struct {
	res   pcommon.Resource
	scope pcommon.InstrumentationScope
}

// redact redacts res and scope unless they are the last ones (first: no
// last ones yet).
func (o *originRun) redact(red *redact.Redactor, first bool, res pcommon.Resource, scope pcommon.InstrumentationScope) {
	if first || res != o.res {
		o.res = res
		red.Map(res.Attributes())
	}
	if first || scope != o.scope {
		o.scope = scope
		red.Map(scope.Attributes())
	}
}
