package converter_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

func flightRec(span byte, inFlight bool) artifact.Record {
	sp := ptrace.NewSpan()
	sp.SetName("execute_tool search")
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{span})
	sp.SetStartTimestamp(1_700_000_000_000_000_000)
	if !inFlight {
		sp.SetEndTimestamp(1_700_000_002_000_000_000)
	}
	return artifact.Record{Span: sp, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope(), InFlight: inFlight}
}

// A start record is written "in_flight":true without an end, read back
// in flight only by a reader that asks for it, and superseded by its
// span's ended record (Settle) or a later start record.
func TestInFlightRecords(t *testing.T) {
	var enc artifact.Encoder
	line := enc.AppendRecord(nil, &[]artifact.Record{flightRec(1, true)}[0])
	assert.Contains(t, string(line), `"started_at":"2023-11-14T22:13:20.000000000Z","in_flight":true`)
	assert.NotContains(t, string(line), `"finished_at"`)
	assert.NotContains(t, string(line), `"elapsed_ms"`)

	file := `{"v":1,"kind":"meta","started_at":"2023-11-14T22:13:20Z"}` + "\n" + string(line) +
		string(enc.AppendRecord(nil, &[]artifact.Record{flightRec(1, false)}[0])) + string(line)
	read := func(opts ...artifact.ReaderOption) ([]artifact.Record, artifact.ReadStats) {
		rd := artifact.NewReader(bytes.NewReader([]byte(file)), opts...)
		var out []artifact.Record
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			out = append(out, *rec)
		}
		return out, rd.Stats()
	}
	recs, st := read()
	require.Len(t, recs, 1, "without WithInFlight: the ended record only")
	assert.False(t, recs[0].InFlight)
	assert.EqualValues(t, 2, st.InFlight)
	var tally artifact.Tally
	for _, l := range [][]artifact.Record{recs} {
		for i := range l {
			tally.Add(&l[i])
		}
	}
	recs, st = read(artifact.WithInFlight())
	require.Len(t, recs, 3)
	assert.Equal(t, []bool{true, false, true}, []bool{recs[0].InFlight, recs[1].InFlight, recs[2].InFlight})
	assert.Zero(t, st.InFlight)
	assert.Zero(t, recs[0].Span.EndTimestamp())
	var all artifact.Tally
	for i := range recs {
		all.Add(&recs[i])
	}
	assert.Equal(t, tally.Records(), all.Records(), "start records count in no tally")

	tests := []struct {
		name string
		recs []artifact.Record
		want []bool // InFlight of what Settle keeps
	}{
		{"nothing in flight", []artifact.Record{flightRec(1, false)}, []bool{false}},
		{"superseded by its end", []artifact.Record{flightRec(1, true), flightRec(2, true), flightRec(1, false)}, []bool{true, false}},
		{"ended before its start record was read", []artifact.Record{flightRec(1, false), flightRec(1, true)}, []bool{false}},
		{"two start records", []artifact.Record{flightRec(1, true), flightRec(1, true)}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []bool
			for _, r := range artifact.Settle(tt.recs) {
				got = append(got, r.InFlight)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
