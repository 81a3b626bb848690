package report

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestOfferKeepsTheTopAsASortWould: the largest responses offer keeps,
// one at a time, are the first top of all of them sorted by bytes
// (largest first), then trace and span id as text.
func TestOfferKeepsTheTopAsASortWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, top := range []int{0, 1, 3, 10} {
		for _, n := range []int{0, 1, 5, 50, 500} {
			b := &builder{top: top}
			var all []Response
			for range n {
				sp := ptrace.NewSpan()
				var tid pcommon.TraceID
				var sid pcommon.SpanID
				binary.BigEndian.PutUint64(tid[8:], rng.Uint64N(4)) // ties in bytes and trace
				binary.BigEndian.PutUint64(sid[:], rng.Uint64N(1000))
				sp.SetTraceID(tid)
				sp.SetSpanID(sid)
				r := Response{Kind: "call", Bytes: rng.Int64N(5)}
				b.offer(sp, r)
				r.TraceID, r.SpanID = tid.String(), sid.String()
				all = append(all, r)
			}
			slices.SortStableFunc(all, func(x, y Response) int {
				return cmp.Or(cmp.Compare(y.Bytes, x.Bytes), strings.Compare(x.TraceID, y.TraceID), strings.Compare(x.SpanID, y.SpanID))
			})
			got := []Response{}
			for _, l := range b.largest {
				got = append(got, l.Response)
			}
			want := append([]Response{}, all[:min(top, n)]...)
			assert.Equal(t, want, got, "top %d of %d", top, n)
		}
	}
}
