// Package bridge records an agent's OpenTelemetry spans into agenttrace
// JSONL artifacts, from inside the agent, with one line in its tracer
// provider:
//
//	p, err := bridge.New(bridge.WithDirectory("runs", store.ByTrace), bridge.WithBudget(50_000))
//	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
//
// Every span that ends (GenAI or not, unless WithFilter says otherwise) is
// queued without blocking the agent, converted by package converter on one
// writer goroutine, and appended to its artifact — one artifact for the
// whole run (WithFile), one per trace or per conversation (WithDirectory),
// or any io.Writer (WithWriter). The files are package store's: the
// records of a batch that go to one artifact are one write, counted in
// the trailer only once written; the trailer goes out with the trace's
// local root span. A crash leaves a readable artifact with at worst a
// torn last line, which the next run closes off. A span the store cannot
// write is counted as dropped in the trailer.
//
// # Durability
//
// By default (FsyncTurn) an artifact is synced each time a turn ends: a
// turn ends when a model call or a tool call ends (a span that classifies
// as an inference or a call, store.TurnEnds), or the trace's local root
// does. The writer writes its batch as soon as such a span is queued,
// rather than after the batch timeout, and syncs it before it takes the
// next. An OS crash or a power cut then loses at most the turn in
// progress (and the spans that ended since the last turn), not the whole
// session. ForceFlush and Shutdown sync everything. The direct children
// of the root are not turns by themselves: an agent's step ends with the
// model or tool call it made. FsyncTraceEnd syncs only when the root
// ends, FsyncAlways after every batch, FsyncNever never (WithFsync).
//
// Measured (2 shared cores, ext4 on a virtual disk): `agenttrace demo`,
// 9 turns, makes 10 fsyncs (1 with FsyncTraceEnd), about 95 µs each, 1 ms
// in all, lost in the run's noise (348 ms against 527 ms of wall time,
// five runs each); the agent's OnEnd is unchanged: the syncs are the
// writer goroutine's. On a disk whose fsync takes milliseconds, each turn
// pays one there, never on the agent's goroutine.
//
// # Budget
//
// WithBudget sets a token budget per trace (or per conversation, with
// WithBudgetScope). Spans count as they end, before anything can drop
// them, by the one rule the artifact's trailer, the collector exporter
// and `agenttrace tokens` use (artifact.Tally.Spent): the input + output
// tokens of the usage spans report (read from whatever dialect the
// instrumentation speaks, counted once under the nesting rule of
// semconv.Nesting) once any span of the trace has reported some; until
// then, the estimated tokens of its tool calls (agenttrace.estimated_tokens,
// as tool-dispatch traces record them, else a result's size / 4). So a run
// of tool calls only is held to its budget as its artifact judges it.
// The agent asks [Processor.Guard] before each model or tool call and
// stops on [ErrBudgetExceeded]; [Processor.Status] gives the live
// numbers; WithBudgetCallbacks hears the near and over crossings; spans
// started past the budget carry agenttrace.budget.exceeded=true. The
// artifact's header names the budget and its trailer the final status.
//
// # What is written
//
// Named keys (WithRedactKeys), in attributes and inside JSON-valued
// arguments, results and messages, and built-in secret patterns (API keys,
// bearer tokens, private keys; on by default) are replaced by "[REDACTED]"
// before anything is written, and the header says so. WithRecordCap caps
// the records of an artifact. Spans dropped from a full queue or past the
// cap are counted in the trailer. Spans past the cap still count toward its
// token totals, and so do spans dropped from a full queue when a budget is
// set (the budget reads their usage anyway; without one, the drop path
// stays as cheap as the SDK's and the trailer's "dropped" says the totals
// are short). With a cost budget (WithBudgetUSD) the trailer's spent_usd
// counts a dropped model call's cost as if it had been written (priced
// once, by the live budget, and summed lock-free), and a model call the
// price data does not know in unpriced_calls; so does a span a failed
// write lost.
//
// # Contract
//
// OnStart and OnEnd never block (unless WithBlocking) and are safe from
// any goroutine. ForceFlush returns once every span ended before it is on
// disk, or with its context's error. Shutdown writes the trailers and
// closes the files, and returns what failed there; it is idempotent and
// honours its context. Other errors in the background go to otel.Handle,
// and so does a panic in a budget callback (ErrCallbackPanicked), which is
// recovered rather than thrown into the agent's span.End().
//
// # Log records
//
// The official GenAI instrumentations put the prompt and the answer in
// log records (gen_ai.user.message, gen_ai.choice, ...), not on spans.
// Processor.LogProcessor is an sdklog.Processor over the same store: each
// GenAI event goes into its trace's artifact after the span of its model
// call (held in memory until that span is written), redacted as spans
// are. Register it on the LoggerProvider and shut that down before the
// TracerProvider.
package bridge
