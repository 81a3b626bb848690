// Package judge passes judgement on recorded agent runs: whether two runs
// of the same task diverged ([Diff]), and whether one run's trace is
// faithful to what actually happened ([Audit]).
//
// # Divergence
//
// The idea comes from the tool-dispatch trace, the ancestor of the artifact
// format: replaying a task and comparing the two runs' tool dispatches
// tells whether the agent behaved the same way. [Diff] takes the call
// records of each run in order of start time and aligns them the way a
// person would: by least-cost sequence alignment on (kind, tool,
// arguments), so an inserted retry, a removed call, a reordered pair and a
// changed argument each come out as one finding rather than a cascade.
// Each pair is judged on its stable outcome only: the tool's name, whether
// it succeeded, and its error code. Arguments and results vary from run to
// run (timestamps, ids, live prices) and never make a divergence by
// themselves; the report shows a field-level diff of them to help say why.
//
// # Replay
//
// [Replay] re-dispatches every recorded call of a run through the
// caller's own tools, in order, rewriting ids the new run's results
// returned in place of the recorded ones, and judges each call the way
// [Diff] judges a pair: on its stable outcome.
//
// # Fidelity
//
// [Audit] checks that a trace tells the whole story: every tool call a
// model requested has a call record, and the call ran with the arguments
// the model gave; no call appears that no model asked for; no retry hides
// behind a successful span; agents do not report fewer tokens than their
// model calls spent; every generation says why it stopped; and no span
// hangs off a parent that is not there. Each problem is a [Finding] with a
// [Category] and a [Severity].
//
// Both work on [artifact.Record]s, so they apply to artifacts, to OTLP,
// and to every dialect semconv reads. Reports are plain structs with JSON
// tags (the contract of `agenttrace diff --json` and `agenttrace audit
// --json`) and have a text rendering for a terminal.
package judge
