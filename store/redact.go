package store

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/redact"
)

// useRedactor makes o.Redactor part of the store's write path, so that
// every writer (the SDK processor, the collector exporter, serve --otlp,
// convert --split) redacts the same way by passing a Redactor, and none
// keeps its own copy of the rule: each span in Prepare, on the goroutines
// that encode (the secret scan shares the cores with encoding, and a span
// is encoded while still in the cache), after the caller's Prepare has
// seen it unchanged; resources and scopes once per batch in Write, before
// routing reads anything; log records in WriteLogs. The header says what
// was done. A Redactor that can change nothing is dropped.
func (o *Options) useRedactor() {
	red := o.Redactor
	if !red.Enabled() {
		o.Redactor = nil
		return
	}
	o.Header.Redacted = o.Header.Redacted || red.NamesKeys()
	o.Header.SecretsScanned = o.Header.SecretsScanned || red.ScansSecrets()
	prep := o.Prepare
	o.Prepare = func(rec *converter.Record) {
		if prep != nil {
			prep(rec)
		}
		red.Span(rec.Span)
	}
}

// redactOrigins redacts the resource and scope attributes of recs in
// place, each once: records of one batch share them, in runs.
func redactOrigins(red *redact.Redactor, recs []converter.Record) {
	var o originRun
	for i := range recs {
		o.redact(red, i == 0, recs[i].Resource, recs[i].Scope)
	}
}

// redactLogs redacts log records, their resources and scopes in place,
// as redactOrigins and Prepare do for spans.
func redactLogs(red *redact.Redactor, recs []converter.LogRecord) {
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
