package agenttraceexporter

import (
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/converter"
)

// File names. A trace id is hex; every other part comes from data any
// sender chose and goes through converter.SafeName, which keeps only
// [A-Za-z0-9._-], never starts a name with "." and appends a hash when it
// changed anything: no value can name a path outside directory, and distinct
// values keep distinct names.

func traceName(tid pcommon.TraceID) string { return tid.String() + ".jsonl" }

func conversationName(conv string) string { return "conv-" + converter.SafeName(conv) + ".jsonl" }

func attributeName(attr, value string) string {
	return converter.SafeName(attr) + "-" + converter.SafeName(value) + ".jsonl"
}
