package bridge

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/semconv"
)

// endsTurn reports whether s ends a turn, as store.TurnEnds counts them on
// the records the store writes: a local root, a model call or a tool call.
// With FsyncTurn the writer goroutine writes its batch as soon as one is
// queued, so the store syncs the turn now rather than after the batch
// timeout, when a crash would have lost it. It runs on the writer
// goroutine, never on the agent's.
func endsTurn(s sdktrace.ReadOnlySpan) bool {
	if p := s.Parent(); !p.IsValid() || p.IsRemote() {
		return true
	}
	switch semconv.ReadUsageKV(s.Name(), s.Attributes()).Kind {
	case semconv.Inference, semconv.Call:
		return true
	}
	return false
}
