package artifact

// Settle returns recs without the in-flight records another record of the
// same span supersedes: its ended record, or a later start record (a
// writer that restarted). What is left in flight is a span that has not
// ended (yet, or ever: its writer crashed), for a viewer to show as such,
// never as a finished span. The records keep their order; recs is
// reused.
func Settle(recs []Record) []Record {
	var last map[SpanKey]int // per span, the index of its last record
	for i := range recs {
		if recs[i].InFlight {
			last = make(map[SpanKey]int, len(recs))
			break
		}
	}
	if last == nil {
		return recs // nothing in flight: the common case, no map
	}
	ended := make(map[SpanKey]bool)
	for i := range recs {
		k := SpanKey{recs[i].Span.TraceID(), recs[i].Span.SpanID()}
		last[k] = i
		if !recs[i].InFlight {
			ended[k] = true
		}
	}
	out := recs[:0]
	for i := range recs {
		k := SpanKey{recs[i].Span.TraceID(), recs[i].Span.SpanID()}
		if recs[i].InFlight && (ended[k] || last[k] != i) {
			continue
		}
		out = append(out, recs[i])
	}
	clear(recs[len(out):])
	return out
}
