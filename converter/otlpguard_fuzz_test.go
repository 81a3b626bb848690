package converter_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/otlpdeep"
)

// mixedValue builds one AnyValue, in protobuf and in OTLP/JSON, whose
// levels follow path (an even byte an array, an odd one a key-value list)
// with width scalar siblings beside the nested member at each level, and
// returns the cost the guard's rule gives it, computed here from the shape
// alone: one per array, two per list.
func mixedValue(path []byte, width int) (pb, js []byte, cost int) {
	pb = protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 7) // int_value
	js = []byte(`{"intValue":"7"}`)
	scalarPB := pb
	for i := len(path) - 1; i >= 0; i-- {
		var body []byte
		var members []string
		list := path[i]%2 == 1
		for w := 0; w <= width; w++ {
			childPB, childJS := scalarPB, []byte(`{"intValue":"7"}`)
			if w == width {
				childPB, childJS = pb, js
			}
			if list {
				key := fmt.Sprintf("k%d", w)
				var e []byte
				e = protowire.AppendTag(e, 1, protowire.BytesType)
				e = protowire.AppendString(e, key)
				e = protowire.AppendTag(e, 2, protowire.BytesType)
				e = protowire.AppendBytes(e, childPB)
				body = protowire.AppendBytes(protowire.AppendTag(body, 1, protowire.BytesType), e)
				members = append(members, `{"key":"`+key+`","value":`+string(childJS)+`}`)
			} else {
				body = protowire.AppendBytes(protowire.AppendTag(body, 1, protowire.BytesType), childPB)
				members = append(members, string(childJS))
			}
		}
		field, name := protowire.Number(5), "arrayValue"
		cost++
		if list {
			field, name = 6, "kvlistValue"
			cost++
		}
		pb = protowire.AppendBytes(protowire.AppendTag(nil, field, protowire.BytesType), body)
		js = []byte(`{"` + name + `":{"values":[` + strings.Join(members, ",") + `]}}`)
	}
	return pb, js, cost
}

// FuzzGuardShapes generates deep and wide values (arrays and key-value
// lists mixed, siblings at every level) in both encodings, traces and
// logs: the guard refuses exactly the values whose cost is over 251 (the
// rule, computed from the shape), in protobuf and JSON alike; what it
// passes decodes with pdata and, written into an artifact, reads back
// without a problem (issue 22 item 6).
func FuzzGuardShapes(f *testing.F) {
	f.Add([]byte{0, 0, 0}, uint8(2), false)
	f.Add(bytes.Repeat([]byte{1}, 125), uint8(0), true)
	f.Add(bytes.Repeat([]byte{1}, 126), uint8(1), false)
	f.Add(bytes.Repeat([]byte{0}, 251), uint8(0), false)
	f.Add(bytes.Repeat([]byte{0}, 252), uint8(0), true)
	f.Add(bytes.Repeat([]byte{0, 1}, 90), uint8(3), false)
	f.Fuzz(func(t *testing.T, path []byte, width uint8, logs bool) {
		if len(path) > 600 {
			path = path[:600]
		}
		pbv, jsv, cost := mixedValue(path, int(width%4))
		pb, js := otlpdeep.TracesProto(pbv), otlpdeep.TracesJSON(jsv)
		fp, fj := converter.FormatOTLPProto, converter.FormatOTLPJSON
		if logs {
			pb, js = otlpdeep.LogsProto(pbv), otlpdeep.LogsJSON(jsv)
			fp, fj = converter.FormatOTLPLogsProto, converter.FormatOTLPLogsJSON
		}
		errP := converter.GuardOTLP(pb, fp, converter.GuardOptions{})
		errJ := converter.GuardOTLP(js, fj, converter.GuardOptions{Strict: !logs})
		if cost > 251 {
			require.ErrorIs(t, errP, converter.ErrTooDeep)
			require.ErrorIs(t, errJ, converter.ErrTooDeep)
			return
		}
		require.NoError(t, errP)
		require.NoError(t, errJ)
		requireWritesReadable(t, pb, logs)
	})
}

// requireWritesReadable decodes a guarded protobuf request with pdata,
// writes it as an artifact and reads it back without a problem.
func requireWritesReadable(t *testing.T, pb []byte, logs bool) {
	t.Helper()
	var buf bytes.Buffer
	if logs {
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(pb)
		if err != nil {
			return // pdata refuses it: nothing is written
		}
		w := artifact.NewWriter(&buf, nil)
		for _, r := range artifact.LogRecords(ld) {
			require.NoError(t, w.WriteLog(&r))
		}
		require.NoError(t, w.Close())
	} else {
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(pb)
		if err != nil {
			return
		}
		recs := artifact.Records(td)
		w := artifact.NewWriter(&buf, artifact.MetaFor(recs))
		for i := range recs {
			require.NoError(t, w.Write(&recs[i]))
		}
		require.NoError(t, w.Close())
	}
	requireReads(t, buf.Bytes())
}

// FuzzGuardProto feeds arbitrary bytes (seeded with captured exporter
// payloads and deep requests) to the protobuf guard: it never panics, and
// whatever it passes pdata decodes without overflowing its stack (a
// failure here would end the fuzzing process) and, when pdata accepts it,
// writes an artifact that reads back.
func FuzzGuardProto(f *testing.F) {
	files, _ := filepath.Glob("../testdata/real/*/payloads/*.pb")
	for i, name := range files {
		if i%8 == 0 { // a sample: the corpus is seeds, not a test of each file
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b, strings.Contains(name, "log"))
			}
		}
	}
	f.Add(otlpdeep.TracesProto(otlpdeep.AnyValueProto(300, false)), false)
	f.Add(otlpdeep.LogsProto(otlpdeep.AnyValueProto(130, true)), true)
	f.Fuzz(func(t *testing.T, b []byte, logs bool) {
		fm := converter.FormatOTLPProto
		if logs {
			fm = converter.FormatOTLPLogsProto
		}
		if err := converter.GuardOTLP(b, fm, converter.GuardOptions{}); err != nil {
			return
		}
		requireWritesReadable(t, b, logs)
	})
}

// FuzzGuardJSON feeds arbitrary text to the OTLP/JSON guard, strict and
// not: it never panics, its errors are one line, and what it passes pdata
// decodes without overflowing its stack.
func FuzzGuardJSON(f *testing.F) {
	files, _ := filepath.Glob("../testdata/real/*/payloads/*.json")
	for i, name := range files {
		if i%8 == 0 {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b, false)
			}
		}
	}
	f.Add(otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(300, false)), false)
	f.Add(otlpdeep.LogsJSON(otlpdeep.AnyValueJSON(130, true)), true)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanID":"00"}]}]}]} x`), false)
	f.Fuzz(func(t *testing.T, b []byte, logs bool) {
		fm := converter.FormatOTLPJSON
		if logs {
			fm = converter.FormatOTLPLogsJSON
		}
		for _, strict := range []bool{false, true} {
			err := converter.GuardOTLP(b, fm, converter.GuardOptions{Strict: strict})
			if err != nil {
				var ie *converter.InputError
				if errors.As(err, &ie) {
					require.NotContains(t, err.Error(), "\n")
					require.Positive(t, ie.Line)
				}
				continue
			}
			if logs {
				_, _ = (&plog.JSONUnmarshaler{}).UnmarshalLogs(b)
			} else {
				_, _ = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
			}
		}
	})
}
