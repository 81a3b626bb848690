package artifact

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// SpanKey identifies a span: within an artifact (which may hold several
// traces), the pair is unique.
type SpanKey struct {
	Trace pcommon.TraceID
	Span  pcommon.SpanID
}

// IsLocalRoot reports whether sp is the root of its trace in its process:
// no parent, or a parent in another process (the OTLP span flags "has
// is_remote" 0x100 and "is remote" 0x200, as the OTel SDKs set them). When
// it ends, the trace's work in this process is done.
func IsLocalRoot(sp ptrace.Span) bool {
	return sp.ParentSpanID().IsEmpty() || sp.Flags()&0x300 == 0x300
}
