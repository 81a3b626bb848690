package converter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/benchcpu"
	"github.com/agenttrace/agenttrace/semconv"
)

// BenchmarkAppendRecord times the line encoder alone on the bench batch,
// the way the store's pipeline calls it (one reading per record, the
// header's resource and scope as defaults), per span: no file, no
// header or trailer, no tally. semconv.Read is inside; BenchmarkReadOnly
// is that part alone, to subtract.
//
// The bench batch repeats its message texts from span to span, which
// the encoder remembers (it checks a JSON value once while it stays the
// same); messages=unique gives every chat span new text, so every
// message is checked, as a conversation's are.
func BenchmarkAppendRecord(b *testing.B) {
	all := artifact.Records(benchBatch())
	// traces=100 is the bench batch, some megabytes; traces=10 fits in
	// a core's cache, so the two tell reading memory from computing.
	for _, traces := range []int{100, 10} {
		b.Run(fmt.Sprintf("traces=%d", traces), func(b *testing.B) {
			benchAppendRecord(b, all[:7*traces])
		})
	}
	unique := artifact.Records(benchBatch())
	for i := range unique {
		a := unique[i].Span.Attributes()
		for _, k := range [...]string{semconv.InputMessages, semconv.OutputMessages} {
			if v, ok := a.Get(k); ok {
				// The same length, new text near the start: an
				// encoder that remembers finds it different at once.
				old := v.Str()
				at := strings.Index(old, `"content":"`) + len(`"content":"`)
				tag := fmt.Sprintf("[%06d] ", i)
				v.SetStr(old[:at] + tag + old[at+len(tag):])
			}
		}
	}
	b.Run("traces=100/messages=unique", func(b *testing.B) {
		benchAppendRecord(b, unique)
	})
}

func benchAppendRecord(b *testing.B, recs []artifact.Record) {
	meta := artifact.Meta{Resource: recs[0].Resource, Scope: recs[0].Scope}
	var enc artifact.Encoder
	enc.SetDefaults(&meta)
	rds := make([]semconv.Reading, len(recs))
	var buf []byte
	b.ReportAllocs()
	cpu := benchcpu.Now()
	for b.Loop() {
		buf = buf[:0]
		for i := range recs {
			buf = enc.AppendRecordReading(buf, &recs[i], &rds[i])
		}
	}
	benchcpu.Report(b, cpu)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/span")
	b.ReportMetric(float64(len(buf))/float64(len(recs)), "bytes/span")
}

// BenchmarkReadOnly is the semconv.Read share of BenchmarkAppendRecord.
func BenchmarkReadOnly(b *testing.B) {
	recs := artifact.Records(benchBatch())
	rds := make([]semconv.Reading, len(recs))
	cpu := benchcpu.Now()
	for b.Loop() {
		for i := range recs {
			recs[i].Read(&rds[i])
		}
	}
	benchcpu.Report(b, cpu)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/span")
}
