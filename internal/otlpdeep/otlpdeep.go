// Package otlpdeep builds hostile OTLP requests for tests: export requests
// whose one attribute value (or log body) nests arrays or key-value lists
// to a given depth, in protobuf or JSON, without recursion and in linear
// time, so a 1.3-million-level request (the one that overflowed pdata's
// stack: open-telemetry/opentelemetry-collector issues 15301, 15603) is
// built in well under a second. The bytes are written by hand with
// protowire because pdata itself cannot build such a value without the
// recursion the tests guard against.
package otlpdeep

import (
	"bytes"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of opentelemetry-proto used below.
const (
	fAnyInt     = 3 // AnyValue.int_value
	fAnyArray   = 5 // AnyValue.array_value
	fAnyKVList  = 6 // AnyValue.kvlist_value
	fListValues = 1 // ArrayValue.values, KeyValueList.values
	fKVKey      = 1
	fKVValue    = 2
)

// AnyValueProto returns an AnyValue nested depth levels (arrays, or
// key-value lists of one member "k" when kvlist) around the int 1.
func AnyValueProto(depth int, kvlist bool) []byte {
	// Sizes from the inside out, then bytes from the outside in: each level
	// needs the size of what it holds before it can be written.
	inner := protowire.AppendVarint(protowire.AppendTag(nil, fAnyInt, protowire.VarintType), 1)
	anySize := make([]int, depth+1) // AnyValue at level k
	midSize := make([]int, depth+1) // its ArrayValue or KeyValueList (and KeyValue) at level k
	kvSize := make([]int, depth+1)
	anySize[0] = len(inner)
	key := protowire.AppendString(protowire.AppendTag(nil, fKVKey, protowire.BytesType), "k")
	for k := 1; k <= depth; k++ {
		elem := anySize[k-1]
		if kvlist {
			kvSize[k] = len(key) + 1 + protowire.SizeBytes(elem)
			elem = kvSize[k]
		}
		midSize[k] = 1 + protowire.SizeBytes(elem)
		anySize[k] = 1 + protowire.SizeBytes(midSize[k])
	}
	out := make([]byte, 0, anySize[depth])
	for k := depth; k >= 1; k-- {
		f := protowire.Number(fAnyArray)
		if kvlist {
			f = fAnyKVList
		}
		out = protowire.AppendTag(out, f, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(midSize[k]))
		out = protowire.AppendTag(out, fListValues, protowire.BytesType)
		if kvlist {
			out = protowire.AppendVarint(out, uint64(kvSize[k]))
			out = append(out, key...)
			out = protowire.AppendTag(out, fKVValue, protowire.BytesType)
		}
		out = protowire.AppendVarint(out, uint64(anySize[k-1]))
	}
	return append(out, inner...)
}

func msg(num protowire.Number, body ...[]byte) []byte {
	b := bytes.Join(body, nil)
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
}

// TracesProto returns an ExportTraceServiceRequest of one span whose
// attribute "deep" holds value (an AnyValue's bytes).
func TracesProto(value []byte) []byte {
	kv := msg(9, msg(fKVKey, []byte("deep")), msg(fKVValue, value))
	span := bytes.Join([][]byte{
		msg(1, bytes.Repeat([]byte{1}, 16)), // trace_id
		msg(2, bytes.Repeat([]byte{2}, 8)),  // span_id
		msg(5, []byte("deep")),              // name
		kv,
	}, nil)
	return msg(1, msg(2, msg(2, span))) // request{resource_spans{scope_spans{spans}}}
}

// LogsProto returns an ExportLogsServiceRequest of one log record whose
// body is value.
func LogsProto(value []byte) []byte {
	rec := msg(5, value) // body
	return msg(1, msg(2, msg(2, rec)))
}

// AnyValueJSON returns an OTLP/JSON AnyValue nested depth levels of
// arrays (or key-value lists of one member "k") around the int 1.
func AnyValueJSON(depth int, kvlist bool) []byte {
	open, closing := `{"arrayValue":{"values":[`, `]}}`
	if kvlist {
		open, closing = `{"kvlistValue":{"values":[{"key":"k","value":`, `}]}}`
	}
	var b strings.Builder
	b.Grow(depth*(len(open)+len(closing)) + 16)
	for range depth {
		b.WriteString(open)
	}
	b.WriteString(`{"intValue":"1"}`)
	for range depth {
		b.WriteString(closing)
	}
	return []byte(b.String())
}

// TracesJSON returns an OTLP/JSON ExportTraceServiceRequest of one span
// whose attribute "deep" holds value (an AnyValue's JSON).
func TracesJSON(value []byte) []byte {
	return []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01010101010101010101010101010101",` +
		`"spanId":"0202020202020202","name":"deep","attributes":[{"key":"deep","value":` + string(value) + `}]}]}]}]}`)
}

// LogsJSON returns an OTLP/JSON ExportLogsServiceRequest of one log record
// whose body is value.
func LogsJSON(value []byte) []byte {
	return []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":` + string(value) + `}]}]}]}`)
}

// MetricsProto returns an ExportMetricsServiceRequest of one gauge whose
// data point has the attribute "deep" holding value.
func MetricsProto(value []byte) []byte {
	kv := msg(7, msg(fKVKey, []byte("deep")), msg(fKVValue, value)) // NumberDataPoint.attributes
	metric := bytes.Join([][]byte{msg(1, []byte("deep")), msg(5, msg(1, kv))}, nil)
	return msg(1, msg(2, msg(2, metric))) // request{resource_metrics{scope_metrics{metrics}}}
}
