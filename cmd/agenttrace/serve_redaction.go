package main

import (
	"github.com/agenttrace/agenttrace/redact"
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

// storeRedactor is the redaction serve --otlp's store applies to what it
// writes, as the collector exporter's does (secrets on by default): the
// files in DIR hold no secret, and their header says they were scanned.
// Nil with --no-redact.
func (rd *redaction) storeRedactor() *redact.Redactor {
	if rd == nil || rd.off {
		return nil
	}
	return rd.redactor()
}
