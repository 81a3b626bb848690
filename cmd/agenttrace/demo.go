package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/store"
)

// defaultDemoSeed is the seed of `agenttrace demo` without --seed, so that
// two runs write the same artifact.
const defaultDemoSeed = 20260511

func newDemoCmd(e *env) *cobra.Command {
	var (
		out       string
		budget    int64
		budgetUSD float64
		seed      uint64
		live      liveFlags
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
(the same totals "agenttrace tokens" prints), and the commands that look
further, spelled as this agenttrace was run: "go run ./cmd/agenttrace ..."
under go run, else the name or path it was started by.

With --budget the processor holds the run to a token budget. The agent
asks it (Processor.Guard) before every model and tool call and, once the
budget is used up, stops: it ends its open spans and says so on standard
error. A run stopped by its budget exits 0: the budget did its job.
--budget-usd does the same with a cost budget in dollars (bridge.WithBudgetUSD):
each model call priced with the genai-prices data, or at the cost its
span reports.

The run is deterministic: ids come from --seed and every timestamp is
simulated, so the same seed writes the same bytes. With --speed the agent
runs in real time instead (its simulated latencies divided by the speed)
and the processor writes into DIR as it goes, so "agenttrace serve DIR"
shows the run growing; --slow-tool makes its first tool call last (the
call shows in flight).

Exit status: 0 when the run completed or its budget stopped it, 2 on a
usage error or when DIR cannot be written.`,
		Example: `  agenttrace demo --out runs
  agenttrace demo --out runs --budget 3000
  agenttrace demo --out runs --budget-usd 0.01
  agenttrace demo --out runs --speed 1 --slow-tool 30s & agenttrace serve runs --open
  agenttrace tokens runs/*.jsonl
  go run ./cmd/agenttrace demo --out runs   (from a clone, without installing)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := live.check(cmd); err != nil {
				return err
			}
			if live.on {
				return e.demoLive(out, cmd.Flags().Changed("seed"), seed, live)
			}
			if out == "" {
				return usageErrorf("--out: want a directory")
			}
			if budget < 0 {
				return usageErrorf("--budget %d: want 0 (none) or more", budget)
			}
			if !(budgetUSD >= 0) || math.IsInf(budgetUSD, 0) {
				return usageErrorf("--budget-usd %v: want 0 (none) or more dollars", budgetUSD)
			}
			pace := demoPace{slowTool: live.slowTool}
			if cmd.Flags().Changed("speed") {
				pace.speed = live.speed
			}
			return e.demo(out, budget, budgetUSD, seed, pace)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the artifacts to (created if missing)")
	cmd.Flags().Int64Var(&budget, "budget", 0, "token budget (input + output tokens of model calls); 0 for none")
	cmd.Flags().Float64Var(&budgetUSD, "budget-usd", 0, "cost budget in dollars (model calls priced with genai-prices); 0 for none")
	cmd.Flags().Uint64Var(&seed, "seed", defaultDemoSeed, "seed for trace and span ids")
	// --out is required but for --live (checked in RunE).
	live.register(cmd)
	return cmd
}

// demoPace is how demo runs the agent: in real time when speed > 0 (its
// simulated latencies divided by speed, so that serve shows the run
// growing), else at once with simulated times; slowTool is the first
// tool call's latency when > 0.
type demoPace struct {
	speed    float64
	slowTool time.Duration
}

// demo runs the simulated agent with a bridge.Processor writing into dir,
// then reports what it wrote.
func (e *env) demo(dir string, budget int64, budgetUSD float64, seed uint64, pace demoPace) error {
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

	// Start records (spans in flight) only when the run is paced: they
	// are for watching it live, and a run with simulated times writes
	// the same bytes every time without them.
	opts := []bridge.Option{bridge.WithDirectory(dir, store.ByTrace), bridge.WithStartRecords(pace.speed > 0)}
	if budget > 0 || budgetUSD > 0 {
		near := func(ev bridge.BudgetEvent) {
			switch {
			case ev.Cost != nil && !ev.Cost.OverBudget: // a call that jumps past the limit says so at the stop
				fmt.Fprintf(stderr, "near budget: spent $%.4f of $%g\n", ev.Cost.SpentUSD, ev.Cost.BudgetUSD)
			case ev.Cost == nil && !ev.Status.OverBudget:
				fmt.Fprintf(stderr, "near budget: spent %d of %d tokens\n", ev.Status.Spent, ev.Status.BudgetTokens)
			}
		}
		opts = append(opts, bridge.WithBudget(budget), bridge.WithBudgetUSD(budgetUSD), bridge.WithBudgetCallbacks(near, nil))
	}
	p, err := bridge.New(opts...)
	if err != nil {
		return ioError(err)
	}
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(seed), sdktrace.WithSpanProcessor(p))...)

	// The agent calls guard before every model and tool call; the status
	// at the refusal is what the stop message reports.
	var (
		stop     artifact.BudgetStatus
		stopCost bridge.CostStatus
	)
	guard := func(ctx context.Context) error {
		err := p.Guard(ctx)
		if err != nil {
			stop, _ = p.Status(ctx)
			stopCost, _ = p.CostStatus(ctx)
		}
		return err
	}
	ctx := context.Background()
	var agentTP trace.TracerProvider = tp
	if pace.speed > 0 {
		agentTP = pacedProvider{tp: tp, p: &pacer{ctx: ctx, start: time.Now(), speed: pace.speed}}
	}
	res := agentsim.Run(ctx, agentTP, agentsim.Config{Guard: guard, SlowTool: pace.slowTool})
	if res.Stopped != nil {
		switch {
		case errors.Is(res.Stopped, bridge.ErrBudgetExceeded) && stopCost.OverBudget:
			fmt.Fprintf(stderr, "cost budget exceeded after %d model calls: spent $%.4f of $%g; stopping\n",
				res.ModelCalls, stopCost.SpentUSD, stopCost.BudgetUSD)
		case errors.Is(res.Stopped, bridge.ErrBudgetExceeded):
			fmt.Fprintf(stderr, "budget exceeded after %d model calls: spent %d of %d tokens; stopping\n",
				res.ModelCalls, stop.Spent, stop.BudgetTokens)
		default:
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
	switch {
	case res.Stopped != nil && stopCost.OverBudget:
		outcome = "stopped by its cost budget"
	case res.Stopped != nil:
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
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = shellQuote(p)
	}
	files := strings.Join(quoted, " ")
	self := selfCommand()
	fmt.Fprintf(e.stdout, "\n%s\n\nWhere they went: %s tokens %s\nLook at it:      %s html %s\n", head, self, files, self, files)
	return e.noteSkipped(all)
}

// selfCommand is how to run this agenttrace again from the shell it was
// started in, so that the commands demo prints work as printed: "go run
// ./cmd/agenttrace" (or whatever path leads there) under go run, else the
// name it was run by.
func selfCommand() string {
	cwd, _ := os.Getwd()
	bi, _ := debug.ReadBuildInfo()
	return invocation(os.Args[0], cwd, bi, exec.LookPath)
}

// goRunExe matches the directory of an executable go run built: a fresh
// one in the temporary go-build directory ($TMPDIR/go-build123/b001/exe),
// or one it cached ($GOCACHE/ab/<sha256>-d, since Go 1.24).
var (
	goRunTemp   = regexp.MustCompile(`(^|/)go-build[0-9]+/b[0-9]+/exe$`)
	goRunCached = regexp.MustCompile(`(^|/)[0-9a-f]{2}/[0-9a-f]{64}-d$`)
)

// invocation is selfCommand with its inputs given: arg0 is os.Args[0],
// cwd the working directory, bi the executable's build information (nil
// if none), lookPath exec.LookPath.
//
// Under go run, the command is go run with the main package's directory
// relative to cwd, when cwd is inside its module (as a clone is);
// outside, the package path, at its version when it has one. Otherwise
// it is the name the shell found on PATH, or the path arg0 gave.
func invocation(arg0, cwd string, bi *debug.BuildInfo, lookPath func(string) (string, error)) string {
	dir := filepath.ToSlash(filepath.Dir(arg0))
	if bi != nil && bi.Path != "" && (goRunTemp.MatchString(dir) || goRunCached.MatchString(dir)) {
		if rel, ok := packageDir(cwd, bi); ok {
			return "go run " + shellQuote(rel)
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return "go run " + shellQuote(bi.Path+"@"+v)
		}
		return "go run " + shellQuote(bi.Path)
	}
	base := filepath.Base(arg0)
	if !strings.ContainsRune(arg0, filepath.Separator) && !strings.ContainsRune(arg0, '/') {
		return shellQuote(arg0) // found on PATH by the shell
	}
	if found, err := lookPath(base); err == nil && sameFile(found, arg0) {
		return shellQuote(base)
	}
	return shellQuote(arg0)
}

// packageDir is the directory of bi's main package relative to cwd, as
// go run takes it ("./cmd/agenttrace", ".", "../cmd/agenttrace"), when cwd
// is inside the main module: a go.mod naming it is in cwd or above.
func packageDir(cwd string, bi *debug.BuildInfo) (string, bool) {
	if cwd == "" || bi.Main.Path == "" || !strings.HasPrefix(bi.Path, bi.Main.Path) {
		return "", false
	}
	for dir := cwd; ; {
		if modulePath(filepath.Join(dir, "go.mod")) == bi.Main.Path {
			pkg := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(bi.Path, bi.Main.Path)))
			rel, err := filepath.Rel(cwd, pkg)
			if err != nil {
				return "", false
			}
			rel = filepath.ToSlash(rel)
			if rel != "." && !strings.HasPrefix(rel, "../") {
				rel = "./" + rel
			}
			return rel, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// modulePath is the module path a go.mod declares, or "" if the file
// cannot be read or declares none.
func modulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// sameFile reports whether paths a and b name the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and the punctuation that needs no quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
