package bridge

import (
	"fmt"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/semconv"
)

// Start records. While an agent runs, a call that has not ended would be
// invisible: SDKs hand a span over when it ends. So the processor also
// writes a start record for each span when it starts, "in_flight":true
// with no finished_at (docs/format.md), which the span's ended record
// supersedes. The agent's goroutine only hands the span over (started);
// the writer goroutine reads it, and skips it when it ended meanwhile
// (its ended record follows at once). Start records count in no total,
// budget, cap or trailer (store.WriteInFlight).

// started hands s to the writer for its start record, or skips it when
// the writer is behind: a start record is a live view's convenience, and
// the span's ended record carries everything.
func (p *Processor) started(s sdktrace.ReadOnlySpan) {
	if !p.cfg.starts || p.closing.Load() || p.cfg.filter != nil && !p.cfg.filter(s) {
		return
	}
	select {
	case p.starts <- s:
	default:
		p.startsSkipped.Add(1)
	}
}

// writeStarts writes the start records of the spans of batch, more that
// are waiting included, that have not ended, and returns batch emptied
// for reuse. It runs on the writer goroutine.
func (p *Processor) writeStarts(batch []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for len(batch) < p.cfg.batchSize {
		select {
		case s := <-p.starts:
			batch = append(batch, s)
			continue
		default:
		}
		break
	}
	open := batch[:0]
	for _, s := range batch {
		if s.EndTime().IsZero() {
			open = append(open, s)
		}
	}
	if len(open) > 0 {
		p.sink.writeStarts(artifact.Records(sdkspan.ToTraces(open)))
	}
	clear(batch)
	return batch[:0]
}

// writeStarts hands start records to the store, of GenAI spans only
// (model calls, tool calls, agents: what a person watches run; an HTTP
// or database span under them is short, and its start record would cost
// a line for nothing), classified here on the writer goroutine, not on
// the agent's. Too deep a value makes the span's ended record dropped and
// counted (withoutTooDeep); its start record is just left out.
func (s *sink) writeStarts(recs []artifact.Record) {
	kept := recs[:0]
	for i := range recs {
		recs[i].Read(&s.rd)
		if s.rd.Kind != semconv.Span && !spanTooDeep(recs[i].Span) {
			kept = append(kept, recs[i])
		}
	}
	if err := s.st.WriteInFlight(kept); err != nil {
		otel.Handle(fmt.Errorf("agenttrace: start records: %w", err))
	}
}

// StartsSkipped counts the spans whose start record was not written
// because the writer was behind (their ended records are written as
// usual).
func (p *Processor) StartsSkipped() int64 { return p.startsSkipped.Load() }
