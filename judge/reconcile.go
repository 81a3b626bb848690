package judge

import (
	"strconv"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
)

// SuppressedFinishReason: the reference recording has a model call that
// stopped for a reason other than finishing (length, content filter), and
// the recording under audit never says so. Only [Reconcile] finds it.
const SuppressedFinishReason Category = "suppressed_finish_reason"

// Recording is one recording of a run, for [Reconcile]: an artifact or
// OTLP file, with what is known of where each record came from.
type Recording struct {
	// Name names the file in findings.
	Name    string
	Records []artifact.Record
	// Lines holds each record's line in the file (0 when it has none);
	// nil when unknown (OTLP), and findings then name spans only.
	Lines []int
	// Meta is the artifact's header and Summary its trailer; nil for none.
	Meta    *artifact.Meta
	Summary *artifact.Summary
}

// Location is where a finding is in one recording.
type Location struct {
	File    string   `json:"file"`
	TraceID string   `json:"trace_id,omitempty"`
	SpanIDs []string `json:"span_ids"`
	// Lines are the records' lines in the file (empty when unknown).
	Lines []int `json:"lines"`
	// Absent tells that the finding is about something this recording
	// does not hold; the location is then its run's root, the place the
	// record would belong under.
	Absent bool `json:"absent,omitempty"`
}

func (l *Location) text() string {
	s := l.File
	switch {
	case len(l.Lines) == 1:
		s += " line " + strconv.Itoa(l.Lines[0])
	case len(l.Lines) > 1:
		s += " lines " + lineRanges(l.Lines)
	case len(l.SpanIDs) > 0:
		s += " span " + strings.Join(l.SpanIDs, ", ")
	}
	if l.Absent {
		s += " (its run, which lacks it)"
	}
	return s
}

// lineRanges writes sorted line numbers with runs collapsed: "2-7, 9".
func lineRanges(lines []int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(lines[i])+"-"+strconv.Itoa(lines[j]))
		} else {
			parts = append(parts, strconv.Itoa(lines[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// RunMatch says which traces of two recordings were taken for one run,
// and why.
type RunMatch struct {
	TracesA []string `json:"traces_a"`
	TracesB []string `json:"traces_b"`
	// By is how they were matched: "trace_id", "conversation_id" or
	// "time_window" (their spans overlap in time).
	By string `json:"by"`
}

// Reconciliation is the verdict of [Reconcile].
type Reconciliation struct {
	// A and B name the recordings.
	A string `json:"a"`
	B string `json:"b"`
	// Runs lists the runs found in both; UnmatchedA and UnmatchedB, the
	// traces found in one only, which are not reconciled.
	Runs       []RunMatch `json:"runs"`
	UnmatchedA []string   `json:"unmatched_a"`
	UnmatchedB []string   `json:"unmatched_b"`
	Findings   []Finding  `json:"findings"`
}

// Reconcile audits recording a against recording b of the same run, the
// Trace Fidelity check of two-layer recording: a is what the agent
// framework reported (the agent boundary), b what happened (the
// chat-client boundary, every model round trip and tool execution). Runs
// are matched by trace id, else by conversation id, else by overlapping
// time. For each run it finds:
//
//   - missing_call: b has a tool call that a does not report;
//   - phantom_call: a reports a tool call b never saw;
//   - hidden_retry: b repeats a tool call (same tool and arguments) or a
//     model call (the whole input of its previous model call, which failed
//     or whose output no call acted on) more often than a shows;
//   - argument_drift: a reports a call with other arguments than b
//     recorded for it;
//   - token_underreport: a reports fewer tokens than b's model calls spent;
//   - suppressed_finish_reason: a model call in b stopped for a reason
//     other than finishing (length, content_filter, ...) that a never
//     mentions.
//
// Tool calls are paired by tool call id, then by tool and arguments as a
// multiset (parallel calls run in any order), then by aligning the rest as
// [Diff] does. Every finding locates itself in both recordings (A and B).
func Reconcile(a, b Recording) *Reconciliation {
	rep := &Reconciliation{A: a.Name, B: b.Name, Runs: []RunMatch{}, UnmatchedA: []string{}, UnmatchedB: []string{}, Findings: []Finding{}}
	sa, sb := newSide(a), newSide(b)
	for _, m := range matchRuns(sa, sb, rep) {
		rc := reconciler{a: sa, b: sb, ra: m.ra, rb: m.rb}
		rc.toolCalls()
		rc.modelRetries()
		rc.tokens()
		rc.finishReasons()
		rep.Findings = append(rep.Findings, rc.findings...)
	}
	return rep
}

// runPair is one matched run: record indexes on each side.
type runPair struct{ ra, rb []int }

// matchRuns pairs the traces of a and b into runs: the same trace id,
// else a shared conversation id, else overlapping time (the largest
// overlap first). A trace may join several of the other side's (a
// recorder that starts a trace per model call).
func matchRuns(a, b *side, rep *Reconciliation) []runPair {
	m := &runMatcher{a: a, b: b, ofA: map[string]*runGroup{}, ofB: map[string]*runGroup{}}
	m.bySharedIDs()
	m.byTimeWindow()
	m.leftoversOfB()
	var out []runPair
	for _, g := range m.groups {
		rep.Runs = append(rep.Runs, RunMatch{TracesA: g.ta, TracesB: g.tb, By: g.by})
		var p runPair
		for _, t := range g.ta {
			p.ra = append(p.ra, a.byID[t]...)
		}
		for _, t := range g.tb {
			p.rb = append(p.rb, b.byID[t]...)
		}
		out = append(out, p)
	}
	for _, t := range a.traces {
		if m.ofA[t] == nil {
			rep.UnmatchedA = append(rep.UnmatchedA, t)
		}
	}
	for _, t := range b.traces {
		if m.ofB[t] == nil {
			rep.UnmatchedB = append(rep.UnmatchedB, t)
		}
	}
	return out
}

// runGroup is the traces of a and b that make one run, and why.
type runGroup struct {
	ta, tb []string
	by     string
}

// runMatcher groups the traces of two recordings (matchRuns).
type runMatcher struct {
	a, b     *side
	groups   []*runGroup
	ofA, ofB map[string]*runGroup
}

// join puts ta and tb in one group, unless both are grouped already.
func (m *runMatcher) join(ta, tb, by string) {
	ga, gb := m.ofA[ta], m.ofB[tb]
	switch {
	case ga == nil && gb == nil:
		g := &runGroup{ta: []string{ta}, tb: []string{tb}, by: by}
		m.groups = append(m.groups, g)
		m.ofA[ta], m.ofB[tb] = g, g
	case ga == nil:
		gb.ta = append(gb.ta, ta)
		m.ofA[ta] = gb
	case gb == nil:
		ga.tb = append(ga.tb, tb)
		m.ofB[tb] = ga
	}
}

// bySharedIDs joins traces with the same trace id, then those sharing a
// conversation id.
func (m *runMatcher) bySharedIDs() {
	inB := map[string]bool{}
	for _, t := range m.b.traces {
		inB[t] = true
	}
	for _, t := range m.a.traces {
		if inB[t] {
			m.join(t, t, "trace_id")
		}
	}
	for _, ta := range m.a.traces {
		ca := m.a.convs(ta)
		if len(ca) == 0 {
			continue
		}
		for _, tb := range m.b.traces {
			for c := range m.b.convs(tb) {
				if ca[c] {
					m.join(ta, tb, "conversation_id")
					break
				}
			}
		}
	}
}

// byTimeWindow joins each of a's traces left to the b trace left that
// overlaps it most.
func (m *runMatcher) byTimeWindow() {
	for _, ta := range m.a.traces {
		if m.ofA[ta] != nil {
			continue
		}
		fa, la := m.a.window([]string{ta})
		best, bestOver := "", uint64(0)
		for _, tb := range m.b.traces {
			if m.ofB[tb] != nil {
				continue
			}
			fb, lb := m.b.window([]string{tb})
			if lo, hi := max(fa, fb), min(la, lb); hi > lo && hi-lo > bestOver {
				best, bestOver = tb, hi-lo
			}
		}
		if best != "" {
			m.join(ta, best, "time_window")
		}
	}
}

// leftoversOfB joins b's traces left over that overlap a matched run to it
// (a recorder that starts a trace per model call).
func (m *runMatcher) leftoversOfB() {
	for _, tb := range m.b.traces {
		if m.ofB[tb] != nil {
			continue
		}
		fb, lb := m.b.window([]string{tb})
		for _, g := range m.groups {
			if fa, la := m.a.window(g.ta); min(la, lb) > max(fa, fb) {
				g.tb = append(g.tb, tb)
				m.ofB[tb] = g
				break
			}
		}
	}
}
