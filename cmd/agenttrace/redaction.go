package main

import (
	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/store"
)

// redaction is what the commands that write, show, print or send runs
// (convert, html, serve, send, messages, tokens, diff, audit) do to records as they are loaded: by default the secret scan
// of package redact, the one the bridge and the exporter run before they
// write, since an imported log or an OTLP file was written by no such
// writer; with --redact-key, named fields too; with --no-redact, nothing.
// An input whose header says its writer scanned it already
// (secrets_scanned) is not scanned again unless keys are named.
//
// It is one hook: loadOpened applies it to each input it loads, and
// convert's streaming path to each record it writes, so every command that
// registers the flags redacts the same way.
type redaction struct {
	keys []string
	off  bool
	r    *redact.Redactor // built on first use
}

// redactFlags registers --redact-key and --no-redact on cmd, and makes the
// command's loads redact: the redaction is set on e before cmd runs.
func (e *env) redactFlags(cmd *cobra.Command) {
	rd := &redaction{}
	f := cmd.Flags()
	f.StringArrayVar(&rd.keys, "redact-key", nil,
		"also replace the value of this attribute key or JSON field (any case) with [REDACTED]; repeatable")
	f.BoolVar(&rd.off, "no-redact", false,
		"keep secrets: do not scan records for API keys, tokens, private keys and passwords")
	cmd.MarkFlagsMutuallyExclusive("redact-key", "no-redact")
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		for _, k := range rd.keys {
			if k == "" {
				return usageErrorf("--redact-key: empty key")
			}
		}
		e.redact = rd
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}

// needed reports whether records under header meta (nil for inputs that
// are not artifacts) must be redacted.
func (rd *redaction) needed(meta *artifact.Meta) bool {
	if rd == nil || rd.off {
		return false
	}
	return len(rd.keys) > 0 || meta == nil || !meta.SecretsScanned
}

func (rd *redaction) redactor() *redact.Redactor {
	if rd.r == nil {
		rd.r = redact.New(rd.keys, true)
	}
	return rd.r
}

// source redacts what src holds, in place, and marks its header.
func (rd *redaction) source(src *source) {
	if !rd.needed(src.meta) {
		return
	}
	for i := range src.records {
		rd.record(&src.records[i])
	}
	for i := range src.logs {
		rd.logRecord(&src.logs[i])
	}
	rd.mark(src.meta)
}

// record redacts one record in place: its span (attributes, events,
// links, name, status message) and the attributes of its resource and
// scope, which an importer may share between records (redacting twice
// changes nothing).
func (rd *redaction) record(rec *artifact.Record) {
	r := rd.redactor()
	r.Span(rec.Span)
	r.Map(rec.Resource.Attributes())
	r.Map(rec.Scope.Attributes())
}

// logRecord redacts one log record in place: attributes, body (where
// the GenAI instrumentations put message content), resource and scope.
func (rd *redaction) logRecord(rec *artifact.LogRecord) {
	r := rd.redactor()
	r.Map(rec.Log.Attributes())
	body := pcommon.NewMap()
	rec.Log.Body().CopyTo(body.PutEmpty("body"))
	if r.Map(body) {
		v, _ := body.Get("body")
		v.CopyTo(rec.Log.Body())
	}
	r.Map(rec.Resource.Attributes())
	r.Map(rec.Scope.Attributes())
}

// mark says on a header what was done, as the bridge's header does: every
// string scanned (secrets_scanned), and named fields replaced when keys
// were given (redacted: the header says so whether or not a key occurred,
// since a reader cannot tell).
func (rd *redaction) mark(m *artifact.Meta) {
	if rd == nil || rd.off || m == nil {
		return
	}
	m.SecretsScanned = true
	m.Redacted = m.Redacted || len(rd.keys) > 0
}

// options is mark for the headers the store makes (convert --split).
func (rd *redaction) options(o store.HeaderOptions) store.HeaderOptions {
	if rd == nil || rd.off {
		return o
	}
	o.SecretsScanned = true
	o.Redacted = o.Redacted || len(rd.keys) > 0
	return o
}

// imported redacts a record an importer made (convert's streaming path):
// such an input has no header that could say it was scanned.
func (rd *redaction) imported(rec *artifact.Record) {
	if rd.needed(nil) {
		rd.record(rec)
	}
}

// loadRedacted is loadOne for the commands that read their inputs one at a
// time (diff, audit) rather than through loadInputs: it redacts what it
// loaded as loadOpened does, so what they print was scanned too. A command
// that prints span content registers the flags (e.redactFlags(cmd)) and
// loads through loadInputs or loadRedacted; nothing else is needed.
func (e *env) loadRedacted(path string) (*source, error) {
	src, err := e.loadOne(path)
	if err != nil {
		return nil, err
	}
	e.redact.source(src)
	return src, nil
}
