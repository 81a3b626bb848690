package otlpsend

import (
	"fmt"
	"strconv"

	"go.opentelemetry.io/collector/pdata/ptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// ToProto turns pdata into the OTLP protobuf types the SDK's clients
// take. Both are generated from the same .proto files, so a marshal and
// unmarshal round trip is exact.
func ToProto(td ptrace.Traces) ([]*tracepb.ResourceSpans, error) {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("encode OTLP: %w", err)
	}
	var data tracepb.TracesData
	if err := proto.Unmarshal(b, &data); err != nil {
		return nil, fmt.Errorf("decode OTLP: %w", err)
	}
	return data.ResourceSpans, nil
}

// batches splits rss into requests of at most maxSpans spans and, as far
// as single spans allow, maxBytes bytes of spans, keeping the order of
// spans and each span under its own resource and scope. The batches share
// the resources, scopes and spans of rss (no copies); empty resource and
// scope groups are dropped.
func batches(rss []*tracepb.ResourceSpans, maxSpans, maxBytes int) [][]*tracepb.ResourceSpans {
	var (
		out   [][]*tracepb.ResourceSpans
		cur   []*tracepb.ResourceSpans
		spans int
		size  int
	)
	for _, rs := range rss {
		var curRS *tracepb.ResourceSpans // rs's copy in cur, once it has a span
		for _, ss := range rs.ScopeSpans {
			var curSS *tracepb.ScopeSpans
			for _, sp := range ss.Spans {
				n := proto.Size(sp)
				if spans > 0 && (spans == maxSpans || size+n > maxBytes) {
					out = append(out, cur)
					cur, spans, size, curRS, curSS = nil, 0, 0, nil, nil
				}
				if curRS == nil {
					curRS = &tracepb.ResourceSpans{Resource: rs.Resource, SchemaUrl: rs.SchemaUrl}
					cur = append(cur, curRS)
					size += proto.Size(rs.Resource) + len(rs.SchemaUrl)
				}
				if curSS == nil {
					curSS = &tracepb.ScopeSpans{Scope: ss.Scope, SchemaUrl: ss.SchemaUrl}
					curRS.ScopeSpans = append(curRS.ScopeSpans, curSS)
					size += proto.Size(ss.Scope) + len(ss.SchemaUrl)
				}
				curSS.Spans = append(curSS.Spans, sp)
				spans++
				size += n
			}
		}
	}
	if spans > 0 {
		out = append(out, cur)
	}
	return out
}

// spanCount counts the spans of one request.
func spanCount(rss []*tracepb.ResourceSpans) int {
	n := 0
	for _, rs := range rss {
		for _, ss := range rs.ScopeSpans {
			n += len(ss.Spans)
		}
	}
	return n
}

// Plural writes n and a noun, "1 span" or "2 spans".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
