package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// times lists every timestamp of td by span id, in a fixed order: start,
// end, then each event's time.
func times(td ptrace.Traces) map[string][]pcommon.Timestamp {
	out := map[string][]pcommon.Timestamp{}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				ts := []pcommon.Timestamp{sp.StartTimestamp(), sp.EndTimestamp()}
				for _, ev := range sp.Events().All() {
					ts = append(ts, ev.Timestamp())
				}
				out[sp.SpanID().String()] = ts
			}
		}
	}
	return out
}

// latest is the latest timestamp in ts.
func latest(ts map[string][]pcommon.Timestamp) pcommon.Timestamp {
	var last pcommon.Timestamp
	for _, list := range ts {
		for _, t := range list {
			last = max(last, t)
		}
	}
	return last
}

// TestShiftToNow: every time moves by the same amount, the latest lands
// on now, unset times stay unset, and an input without times is left
// alone. Checked on artifacts with events, with a span whose end is
// unset added.
func TestShiftToNow(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 2, 3, 4, 5, 6, 789, time.UTC)
	for _, path := range []string{sendArtifact, "../../testdata/golden/conversation.jsonl"} {
		t.Run(path, func(t *testing.T) {
			td := readArtifact(t, path)
			open := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
			open.SetSpanID(pcommon.SpanID{0xff, 1, 2, 3, 4, 5, 6, 7})
			open.SetStartTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000))
			before := times(td)
			events := 0
			for _, list := range before {
				events += len(list) - 2
			}

			d := shiftToNow(td, now)
			after := times(td)
			require.Len(t, after, len(before))
			assert.Equal(t, pcommon.NewTimestampFromTime(now), latest(after), "the run ends now")
			assert.Equal(t, time.Duration(int64(pcommon.NewTimestampFromTime(now))-int64(latest(before))), d)
			for id, list := range before {
				want := make([]pcommon.Timestamp, len(list))
				for i, ts := range list {
					if ts != 0 {
						ts = pcommon.Timestamp(int64(ts) + int64(d))
					}
					want[i] = ts
				}
				assert.Equal(t, want, after[id], "span %s", id)
			}
			assert.Zero(t, after[open.SpanID().String()][1], "an unset end stays unset")
			if path == sendArtifact {
				assert.Positive(t, events, "the artifact has events to check")
			}
		})
	}
	t.Run("no times", func(t *testing.T) {
		td := ptrace.NewTraces()
		td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("timeless")
		assert.Zero(t, shiftToNow(td, now))
		assert.Zero(t, shiftToNow(ptrace.NewTraces(), now))
	})
}

// TestSendShiftToNow: with --shift-to-now, what arrives ends between the
// command's start and its end, each span moved by the amount send
// printed, so the run's inner times are kept; without it, the times are
// the artifact's.
func TestSendShiftToNow(t *testing.T) {
	t.Parallel()
	rcv := startGRPCReceiver(t, nil)
	start := time.Now()
	r := agenttrace(t, "", "send", sendArtifact, "--endpoint", rcv.addr, "--insecure", "--shift-to-now")
	end := time.Now()
	require.Equal(t, 0, r.code, r.stderr)
	reqs, _ := rcv.snapshot(t)
	require.Len(t, reqs, 1)

	orig := times(readArtifact(t, sendArtifact))
	got := times(reqs[0])
	last := latest(got).AsTime()
	assert.False(t, last.Before(start) || last.After(end), "the run ends at %s, not between %s and %s", last, start, end)

	delta := int64(latest(got)) - int64(latest(orig))
	require.Len(t, got, len(orig))
	for id, list := range orig {
		for i := range list {
			assert.Equal(t, int64(list[i])+delta, int64(got[id][i]), "span %s, time %d", id, i)
		}
	}
	assert.Equal(t, fmt.Sprintf("%s: 12 spans in 1 request, shifted %s later", sendArtifact, time.Duration(delta).Round(time.Second)), lines(r.stdout)[0])
}
