package artifact

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// A header read back from an artifact (a store adopting its file: its
// budget attribute moved last, the warn threshold added) lets the records
// that follow omit the resource the header was made from, as the header
// itself did before it was written: the lines do not depend on whether
// the writer reopened the file. A resource that differs in an attribute
// the header does not own is still written.
func TestHeaderResourceReadBack(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutInt(semconv.BudgetTokens, 500)
	res.Attributes().PutStr("service.name", "agent")
	other := pcommon.NewResource()
	res.CopyTo(other)
	other.Attributes().PutStr("service.name", "other")

	m := NewMeta(time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC))
	res.CopyTo(m.Resource)
	m.Budget = &Budget{Tokens: 500, WarnThreshold: 0.8}
	r := NewReader(bytes.NewReader(AppendMeta(nil, m)))
	_, err := r.Next()
	require.True(t, errors.Is(err, io.EOF), "%v", err)
	back := r.Meta()
	require.NotNil(t, back)
	require.False(t, back.Resource.Attributes().Equal(res.Attributes()), "read back, the header owns more: the case under test")

	span := ptrace.NewSpan()
	span.SetName("chat m")
	span.SetTraceID(pcommon.TraceID{1})
	span.SetSpanID(pcommon.SpanID{2})
	tests := []struct {
		name     string
		res      pcommon.Resource
		resource bool // the line names its resource
	}{
		{"the header's resource", res, false},
		{"another service", other, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := Record{Span: span, Resource: tt.res, Scope: m.Scope}
			var fresh, reopened Encoder
			fresh.SetDefaults(m)
			reopened.SetDefaults(back)
			want := fresh.AppendRecord(nil, &rec)
			assert.Equal(t, string(want), string(reopened.AppendRecord(nil, &rec)))
			assert.Equal(t, tt.resource, bytes.Contains(want, []byte(`"resource":`)), "%s", want)
		})
	}
}
