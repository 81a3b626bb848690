package viewer_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/viewer"
)

func rec(span, parent byte, start uint64) artifact.Record {
	sp := ptrace.NewSpan()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{span})
	if parent != 0 {
		sp.SetParentSpanID(pcommon.SpanID{parent})
	}
	sp.SetStartTimestamp(pcommon.Timestamp(start * 1e6))
	sp.SetEndTimestamp(pcommon.Timestamp((start + 5) * 1e6))
	return artifact.Record{Span: sp}
}

func TestRunState(t *testing.T) {
	tests := []struct {
		name     string
		recs     []artifact.Record
		sum      *artifact.Summary
		state    string
		pending  []string // span ids
		children []int
		t0       []float64
	}{
		{"nothing", nil, nil, viewer.StateDone, nil, nil, nil},
		{"root and child", []artifact.Record{rec(2, 1, 10), rec(1, 0, 5)}, nil, viewer.StateDone, nil, nil, nil},
		{"children before their parents", []artifact.Record{rec(3, 2, 30), rec(4, 2, 20), rec(5, 1, 15)}, nil, viewer.StateRunning,
			[]string{"0200000000000000", "0100000000000000"}, []int{2, 1}, []float64{20, 15}},
		{"closed with a parent missing", []artifact.Record{rec(3, 2, 30)}, &artifact.Summary{Complete: true}, viewer.StateDone,
			[]string{"0200000000000000"}, []int{1}, []float64{30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, pend := viewer.RunState(tt.recs, nil, tt.sum, viewer.Liveness{})
			assert.Equal(t, tt.state, state)
			var ids []string
			var kids []int
			var t0 []float64
			for _, p := range pend {
				ids = append(ids, p.SpanID)
				kids = append(kids, p.Children)
				t0 = append(t0, p.T0)
				assert.Equal(t, tt.state == viewer.StateRunning, p.Running)
			}
			assert.Equal(t, tt.pending, ids)
			assert.Equal(t, tt.children, kids)
			assert.Equal(t, tt.t0, t0)
		})
	}
}

func TestStateOf(t *testing.T) {
	now := time.Date(2026, 12, 5, 23, 0, 0, 0, time.UTC)
	fresh := viewer.Liveness{Written: now.Add(-time.Minute), Idle: 5 * time.Minute, Now: now}
	idle := viewer.Liveness{Written: now.Add(-5 * time.Minute), Idle: 5 * time.Minute, Now: now}
	tests := []struct {
		name         string
		open, closed bool
		lv           viewer.Liveness
		want         string
	}{
		{"nothing open", false, false, idle, viewer.StateDone},
		{"closed by a trailer", true, true, idle, viewer.StateDone},
		{"open, written a minute ago", true, false, fresh, viewer.StateRunning},
		{"open, idle for the idle time", true, false, idle, viewer.StateStopped},
		{"open, no idle time", true, false, viewer.Liveness{Written: idle.Written, Now: now}, viewer.StateRunning},
		{"open, written when unknown", true, false, viewer.Liveness{Idle: time.Second, Now: now}, viewer.StateRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, viewer.StateOf(tt.open, tt.closed, tt.lv))
		})
	}
	// RunState takes the rule: a stopped run's pending parents are not
	// running.
	state, pend := viewer.RunState([]artifact.Record{rec(3, 2, 30)}, nil, nil, idle)
	assert.Equal(t, viewer.StateStopped, state)
	assert.Len(t, pend, 1)
	assert.False(t, pend[0].Running)
}

func TestStateText(t *testing.T) {
	last := time.Date(2026, 12, 5, 22, 46, 34, 500, time.FixedZone("x", 3600))
	assert.Equal(t, "stopped without an end; last record at 2026-12-05 21:46:34Z", viewer.StateText(viewer.StateStopped, last))
	assert.Equal(t, "stopped without an end", viewer.StateText(viewer.StateStopped, time.Time{}))
	assert.Equal(t, "● running", viewer.StateText(viewer.StateRunning, last))
	assert.Equal(t, "done", viewer.StateText(viewer.StateDone, last))
}

func TestLivenessOf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("{}\n"), 0o600))
	written := time.Date(2026, 12, 5, 22, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(file, written, written))
	fileInfo, err := os.Stat(file)
	require.NoError(t, err)
	dirInfo, err := os.Stat(dir)
	require.NoError(t, err)
	tests := []struct {
		name string
		fi   fs.FileInfo
		want viewer.Liveness
	}{
		{"a regular file: its modification time", fileInfo, viewer.Liveness{Written: written, Idle: time.Minute}},
		{"no file (standard input)", nil, viewer.Liveness{}},
		{"not a regular file", dirInfo, viewer.Liveness{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := viewer.LivenessOf(tt.fi, time.Minute)
			assert.True(t, tt.want.Written.Equal(got.Written), "written %v, want %v", got.Written, tt.want.Written)
			assert.Equal(t, tt.want.Idle, got.Idle)
			assert.Equal(t, !tt.want.Written.IsZero(), viewer.LivenessOf(tt.fi, time.Nanosecond).Stale())
		})
	}
}
