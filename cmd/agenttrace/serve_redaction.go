package main

import (
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// serverOptions adds to opts the redaction serve applies to what it
// shows: the same hook as convert's and html's (record, and the same
// Redactor for raw lines), decided per artifact by its header, so a run
// is shown as "agenttrace html" of its file would render it.
func (rd *redaction) serverOptions(opts ...server.Option) []server.Option {
	if rd == nil || rd.off {
		return opts
	}
	r := rd.redactor() // built now: handlers run concurrently
	return append(opts, server.WithRedaction(server.Redaction{
		Needed: rd.needed,
		Record: rd.record,
		Line: func(line []byte) []byte {
			out, _ := r.JSON(line)
			return out
		},
	}))
}

// traces is the redaction serve --otlp applies to each batch before the
// store writes it, as the collector exporter does (secrets on by
// default): the files in DIR hold no secret, and their header says they
// were scanned. Nil with --no-redact.
func (rd *redaction) traces() func(ptrace.Traces) {
	if rd == nil || rd.off {
		return nil
	}
	r := rd.redactor()
	return func(td ptrace.Traces) { r.Traces(td) }
}

// logs is traces for log records (redact.Redactor.Logs, as the collector
// exporter redacts them): the official instrumentations put prompts and
// completions in log record bodies. Nil with --no-redact.
func (rd *redaction) logs() func(plog.Logs) {
	if rd == nil || rd.off {
		return nil
	}
	r := rd.redactor()
	return func(ld plog.Logs) { r.Logs(ld) }
}
