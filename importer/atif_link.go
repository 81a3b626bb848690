package importer

import (
	"encoding/json"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/atif"
)

// LinkATIF nests ATIF trajectories that were imported from their own
// files under the span that refers to them: a tool call (or step) whose
// observation result has a subagent_trajectory_ref naming a trajectory
// (by trajectory_id, else by session_id) that is the root of another
// trace in recs. That trace's records move into the referring span's
// trace, its root becoming the referring span's child, so a delegating
// trajectory and its subagents' files, converted together, are one run.
// Each trace is nested once, under the first ref that names it; a ref
// that names no trace in recs stays as it is (the file was not given).
// It returns how many trajectories it nested.
func LinkATIF(recs []artifact.Record) int {
	type root struct {
		index int
		trace pcommon.TraceID
	}
	byTraj, bySession := map[string]root{}, map[string]root{}
	for i := range recs {
		sp := recs[i].Span
		if !sp.ParentSpanID().IsEmpty() || strAttr(sp, atifPrefix+"schema_version") == "" && strAttr(sp, ATIFAttrSessionID) == "" {
			continue
		}
		r := root{i, sp.TraceID()}
		if id := strAttr(sp, ATIFAttrTrajectoryID); id != "" {
			byTraj[id] = r
		}
		if id := strAttr(sp, ATIFAttrSessionID); id != "" {
			bySession[id] = r
		}
	}
	if len(byTraj)+len(bySession) < 2 {
		return 0
	}
	moved := map[pcommon.TraceID]pcommon.TraceID{} // child trace -> parent trace
	type link struct {
		child  int
		parent ptrace.Span
	}
	var links []link
	for i := range recs {
		sp := recs[i].Span
		raw := strAttr(sp, atifAttrSubagentRef)
		if raw == "" {
			continue
		}
		var refs []atif.SubagentRef
		if json.Unmarshal([]byte(raw), &refs) != nil {
			continue
		}
		for _, ref := range refs {
			r, ok := byTraj[ref.TrajectoryID]
			if !ok || ref.TrajectoryID == "" {
				r, ok = bySession[ref.SessionID]
				ok = ok && ref.SessionID != ""
			}
			if !ok || r.trace == sp.TraceID() || moved[r.trace] != (pcommon.TraceID{}) || descends(moved, sp.TraceID(), r.trace) {
				continue
			}
			moved[r.trace] = sp.TraceID()
			links = append(links, link{r.index, sp})
		}
	}
	for _, l := range links {
		recs[l.child].Span.SetParentSpanID(l.parent.SpanID())
	}
	// Every record of a nested trace joins its new trace (following chains
	// of nested files to the outermost).
	for i := range recs {
		t := recs[i].Span.TraceID()
		for hops := 0; hops < len(moved); hops++ {
			p, ok := moved[t]
			if !ok {
				break
			}
			t = p
		}
		recs[i].Span.SetTraceID(t)
	}
	return len(links)
}

// descends reports whether trace t is (or will be nested in) trace anc:
// nesting anc under t then would make a cycle.
func descends(moved map[pcommon.TraceID]pcommon.TraceID, t, anc pcommon.TraceID) bool {
	for hops := 0; hops <= len(moved); hops++ {
		if t == anc {
			return true
		}
		p, ok := moved[t]
		if !ok {
			return false
		}
		t = p
	}
	return true
}

// strAttr is a span's string attribute ("" when absent).
func strAttr(sp ptrace.Span, key string) string {
	if v, ok := sp.Attributes().Get(key); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

// AsOneRun makes records imported together (several inputs, or a file of
// another shape) one run in an artifact's order: trajectories given in
// files of their own nest under the spans that refer to them
// ([LinkATIF]), then the records are sorted as an artifact lists them
// ([artifact.SortRecords]). Linking comes first: it moves records between
// traces, and the sort breaks ties by trace id.
func AsOneRun(recs []artifact.Record) {
	LinkATIF(recs)
	artifact.SortRecords(recs)
}
