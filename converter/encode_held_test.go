package converter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestSetDefaultsHeld: an Encoder told that the records keep their
// resources (SetDefaultsHeld) writes the same lines as one that compares
// every record's resource with the header's: records under a copy of the
// header's resource omit it, records under another resource carry it,
// in any order, and after SetDefaults a resource changed since is compared
// again.
func TestSetDefaultsHeld(t *testing.T) {
	meta := artifact.NewMeta(time.Unix(1700000000, 0))
	meta.Resource.Attributes().PutStr("service.name", "planner")
	same, other := pcommon.NewResource(), pcommon.NewResource()
	meta.Resource.CopyTo(same)
	other.Attributes().PutStr("service.name", "other")
	rec := func(i int, res pcommon.Resource) artifact.Record {
		sp := ptrace.NewSpan()
		sp.SetName("chat")
		sp.SetTraceID(pcommon.TraceID{1})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		return artifact.Record{Span: sp, Resource: res, Scope: meta.Scope}
	}
	order := []pcommon.Resource{same, same, other, same, other, other, same}
	for name, held := range map[string]bool{"held": true, "compared": false} {
		var plain, enc artifact.Encoder
		plain.SetDefaults(meta)
		if held {
			enc.SetDefaultsHeld(meta)
		} else {
			enc.SetDefaults(meta)
		}
		for i, res := range order {
			r := rec(i, res)
			want := string(plain.AppendRecord(nil, &r))
			assert.Equal(t, want, string(enc.AppendRecord(nil, &r)), "%s record %d", name, i)
			assert.Equal(t, res == other, strings.Contains(want, `"resource"`), "record %d", i)
		}
	}
	// A new batch: SetDefaults forgets what it was told.
	var enc artifact.Encoder
	enc.SetDefaultsHeld(meta)
	r := rec(0, same)
	enc.AppendRecord(nil, &r)
	same.Attributes().PutStr("host.name", "h1")
	enc.SetDefaults(meta)
	assert.Contains(t, string(enc.AppendRecord(nil, &r)), `"host.name"`)
}
