package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/report"
)

// defaultDemoSeed is the seed of `agenttrace demo` without --seed, so that
// two runs write the same artifact.
const defaultDemoSeed = 20260511

func newDemoCmd(e *env) *cobra.Command {
	var (
		out    string
		budget int64
		seed   uint64
	)
	cmd := &cobra.Command{
		Use:   "demo --out DIR",
		Short: "Record a simulated agent run, live, into artifacts",
		Long: `Demo runs a simulated trip-planning agent through the OpenTelemetry Go SDK
with agenttrace's span processor (package bridge) installed, the way an
agent author would: an "invoke_agent planner" root, chat turns with their
messages and token usage, tool calls (one fails), and a nested hotel-scout
agent. The processor writes one artifact per trace into DIR; demo then
prints the artifacts' paths and their token totals, read back from them
(the same totals "agenttrace tokens" prints).

With --budget the processor holds the run to a token budget. The agent
asks it (Processor.Guard) before every model and tool call and, once the
budget is used up, stops: it ends its open spans and says so on standard
error. A run stopped by its budget exits 0: the budget did its job.

The run is deterministic: ids come from --seed and every timestamp is
simulated, so the same seed writes the same bytes.

Exit status: 0 when the run completed or its budget stopped it, 2 on a
usage error or when DIR cannot be written.`,
		Example: `  agenttrace demo --out runs
  agenttrace demo --out runs --budget 3000
  agenttrace tokens runs/*.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			if out == "" {
				return usageErrorf("--out: want a directory")
			}
			if budget < 0 {
				return usageErrorf("--budget %d: want 0 (none) or more", budget)
			}
			return e.demo(out, budget, seed)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the artifacts to (created if missing)")
	cmd.Flags().Int64Var(&budget, "budget", 0, "token budget (input + output tokens of model calls); 0 for none")
	cmd.Flags().Uint64Var(&seed, "seed", defaultDemoSeed, "seed for trace and span ids")
	if err := cmd.MarkFlagRequired("out"); err != nil {
		panic(err) // the flag is defined just above
	}
	return cmd
}

// demo runs the simulated agent with a bridge.Processor writing into dir,
// then reports what it wrote.
func (e *env) demo(dir string, budget int64, seed uint64) error {
	if err := checkWritableDir(dir); err != nil {
		return ioError(fmt.Errorf("--out: %w", err))
	}
	// The budget callbacks run on whichever goroutine ends a span.
	stderr := &lockedWriter{w: e.stderr}

	// The seed fixes the trace id, so an earlier run with this seed wrote
	// the same file; the processor appends to an artifact that exists, and
	// a second run would add a second copy of the trace to it.
	prev := filepath.Join(dir, agentsim.TraceID(seed).String()+".jsonl")
	if err := os.Remove(prev); err == nil {
		fmt.Fprintf(stderr, "note: replacing %s, from an earlier run with seed %d\n", prev, seed)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return ioError(fmt.Errorf("--out: %w", err))
	}

	opts := []bridge.Option{bridge.WithDirectory(dir, converter.ByTrace)}
	if budget > 0 {
		near := func(ev bridge.BudgetEvent) {
			if !ev.Status.OverBudget { // a call that jumps past the limit says so at the stop
				fmt.Fprintf(stderr, "near budget: spent %d of %d tokens\n", ev.Status.Spent, ev.Status.BudgetTokens)
			}
		}
		opts = append(opts, bridge.WithBudget(budget), bridge.WithBudgetCallbacks(near, nil))
	}
	p, err := bridge.New(opts...)
	if err != nil {
		return ioError(err)
	}
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)

	// The agent calls guard before every model and tool call; the status
	// at the refusal is what the stop message reports.
	var stop converter.BudgetStatus
	guard := func(ctx context.Context) error {
		err := p.Guard(ctx)
		if err != nil {
			stop, _ = p.Status(ctx)
		}
		return err
	}
	ctx := context.Background()
	res := agentsim.Run(ctx, tp, agentsim.Config{Guard: guard})
	if res.Stopped != nil {
		if errors.Is(res.Stopped, bridge.ErrBudgetExceeded) {
			fmt.Fprintf(stderr, "budget exceeded after %d model calls: spent %d of %d tokens; stopping\n",
				res.ModelCalls, stop.Spent, stop.BudgetTokens)
		} else {
			fmt.Fprintf(stderr, "stopped after %d model calls: %v\n", res.ModelCalls, res.Stopped)
		}
	}

	// Shutting the provider down shuts the processor down: it flushes,
	// writes the summary trailers and closes the artifacts.
	if err := tp.Shutdown(ctx); err != nil {
		return ioError(fmt.Errorf("write artifacts: %w", err))
	}
	if n := p.Dropped(); n > 0 {
		fmt.Fprintf(stderr, "note: %d span(s) not written\n", n)
	}
	paths := p.Artifacts()
	if len(paths) == 0 {
		return ioError(fmt.Errorf("no artifact written to %s", dir))
	}

	outcome := "answered"
	if res.Stopped != nil {
		outcome = "stopped by its token budget"
	}
	fmt.Fprintf(e.stdout, "planner %s: %d model calls, %d tool calls (%d failed)\n",
		outcome, res.ModelCalls, res.ToolCalls, res.ToolErrors)
	for _, path := range paths {
		fmt.Fprintln(e.stdout, path)
	}
	return e.demoSummary(paths)
}

// demoSummary prints the totals of the artifacts at paths, read back the
// way `agenttrace tokens` reads them: the head of its report.
func (e *env) demoSummary(paths []string) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.Tokens(all.records, all.metaFor(all.records)).WriteText(&buf); err != nil {
		return err
	}
	head, _, _ := strings.Cut(buf.String(), "\n\n")
	files := strings.Join(paths, " ")
	fmt.Fprintf(e.stdout, "\n%s\n\nWhere they went: agenttrace tokens %s\nLook at it:      agenttrace html %s\n", head, files, files)
	return e.noteSkipped(all)
}

// checkWritableDir creates dir if needed and makes sure a file can be
// created in it, so that an unwritable --out fails before the run.
func checkWritableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".agenttrace-demo-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	return errors.Join(err, os.Remove(name))
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
