package otlpsend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestBatches: the byte limit splits too, a span larger than the limit
// goes alone, order is kept, and each batch repeats only the resources
// and scopes its spans need.
func TestBatches(t *testing.T) {
	t.Parallel()
	span := func(name string, size int) *tracepb.Span {
		return &tracepb.Span{Name: name, Attributes: []*commonpb.KeyValue{{Key: "pad",
			Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: strings.Repeat("x", size)}}}}}
	}
	resA := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{{Key: "service.name",
		Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "a"}}}}}
	rss := []*tracepb.ResourceSpans{
		{Resource: resA, ScopeSpans: []*tracepb.ScopeSpans{
			{Scope: &commonpb.InstrumentationScope{Name: "s1"}, Spans: []*tracepb.Span{span("a1", 100), span("a2", 100)}},
			{Scope: &commonpb.InstrumentationScope{Name: "s2"}, Spans: []*tracepb.Span{span("a3", 5000), span("a4", 100)}},
			{Scope: &commonpb.InstrumentationScope{Name: "empty"}},
		}},
		{Resource: &resourcepb.Resource{}, ScopeSpans: []*tracepb.ScopeSpans{
			{Spans: []*tracepb.Span{span("b1", 100)}},
		}},
	}
	got := batches(rss, 10, 1000)

	// Each batch as resource/scope/span names, to compare the structure.
	shape := func(b []*tracepb.ResourceSpans) []string {
		var out []string
		for _, rs := range b {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					out = append(out, fmt.Sprintf("%d/%s/%s", len(rs.Resource.Attributes), ss.Scope.GetName(), sp.Name))
				}
			}
		}
		return out
	}
	var shapes [][]string
	for _, b := range got {
		shapes = append(shapes, shape(b))
		size := 0
		for _, rs := range b {
			size += proto.Size(rs)
		}
		if spanCount(b) > 1 {
			assert.LessOrEqual(t, size, 1000+100, "a batch of several spans stays near the limit")
		}
	}
	assert.Equal(t, [][]string{
		{"1/s1/a1", "1/s1/a2"},
		{"1/s2/a3"}, // larger than the limit: alone
		{"1/s2/a4", "0//b1"},
	}, shapes)
	assert.Len(t, got[2], 2, "the last batch holds both resources")
	assert.Same(t, resA, got[0][0].Resource, "batches share the input's messages")

	// The span limit alone.
	got = batches(rss, 2, 1<<20)
	require.Len(t, got, 3)
	assert.Equal(t, []int{2, 2, 1}, []int{spanCount(got[0]), spanCount(got[1]), spanCount(got[2])})
	assert.Empty(t, batches(nil, 2, 1<<20))
}
