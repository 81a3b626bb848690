package store

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// reopenBatch is request r of a long trace written in many requests: per
// spans of one trace, each request ending with a local root (a span whose
// parent is in another process, as a server's is), so that a store that
// finalizes at once finalizes after every request and reopens the
// artifact for the next (issue 22 item 11: 300k spans in 10 requests, 0.7 s
// -> 10.2 s per request).
func reopenBatch(r, per int) []artifact.Record {
	recs := benchRecords(per / 7)
	for i := range recs {
		sp := recs[i].Span
		sp.SetTraceID(pcommon.TraceID{0x7e, 1})
		n := r*per + i
		sp.SetSpanID(pcommon.SpanID{0x5e, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
		sp.SetParentSpanID(pcommon.SpanID{0xff, 1}) // remote: each batch's spans are local roots
		sp.SetFlags(0x300)
	}
	return recs
}

// BenchmarkReopen writes one long trace in requests of 4,200 spans to a
// store that finalizes at once: each request reopens the artifact the
// requests before it wrote. The time per request must not grow with the
// file: b.N requests, one artifact.
func BenchmarkReopen(b *testing.B) {
	const per = 4200
	batches := make([][]artifact.Record, 16)
	for i := range batches {
		batches[i] = reopenBatch(i, per)
	}
	dir := b.TempDir()
	s, err := New(Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		// Fresh span ids for every request: nothing is a duplicate.
		recs := batches[i%len(batches)]
		for j := range recs {
			n := i*per + j
			recs[j].Span.SetSpanID(pcommon.SpanID{0x5e, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
		}
		if err := s.Write(recs); err != nil {
			b.Fatal(err)
		}
	}
}
