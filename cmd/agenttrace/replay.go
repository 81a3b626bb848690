package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/judge"
)

// maxExecOutput bounds what replay keeps of a command's standard output
// and error: a result larger than an artifact line could hold is no
// result replay can compare anyway.
const maxExecOutput = 16 << 20

func newReplayCmd(e *env) *cobra.Command {
	var (
		asJSON          bool
		execCmd, valCmd string
		timeout         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "replay RUN --exec CMD",
		Short: "Re-dispatch a recorded run's tool calls through today's tools",
		Long: `Replay re-dispatches every tool call recorded in RUN, in start order,
through CMD, and judges each on its stable outcome, as diff judges a pair:
whether it succeeded and, when both failed, its error code.

CMD is run once per call by the shell ("sh -c CMD"), so it may hold
arguments, pipes and quotes. It reads one JSON object on standard input,
{"tool":NAME,"args":ARGS}, and the environment variable AGENTTRACE_TOOL
names the tool too, made safe to build a path or a command from: every
byte other than A-Z, a-z, 0-9, '.', '_' and '-' becomes '_', and so does a
leading dot (a recorded "../../bin/id" arrives as "______bin_id", an
empty name as "_"). The name as recorded is in AGENTTRACE_TOOL_RAW (and in the
input's "tool"): it comes from the trace, which anyone who could send
spans wrote, so treat it as untrusted data and never as a path or a
command. Its standard output is the call's result (JSON, or
text taken as a JSON string). A non-zero exit status is a failed call:
standard error is its message, and when standard output holds a JSON
object with "code" (or "error": {"code": ...}), that is its error code,
compared with the recorded one; a failure without a code is compared on
success alone. Exit status 126 or 127 from the shell (CMD cannot be run)
stops the replay.

Ids the recorded results returned and later calls' arguments used (a
session, an order) are rewritten to the ids the new results returned in
their place. Calls whose arguments were redacted, or not recorded, are not
replayable and are not run; calls the token budget stopped are skipped.

With --validate CMD instead of --exec, replay is a dry run: CMD gets the
same input, runs nothing, and exits 0 when the arguments are valid for the
tool today, non-zero (standard error saying why) when they are not.

Exit status: 0 when no replayed call diverged, 1 when one did, 2 on a
usage error, an input that cannot be read, or a CMD that cannot be run.`,
		Example: `  agenttrace replay run.jsonl --exec ./tools.sh
  agenttrace replay run.jsonl --exec 'python3 dispatch.py' --json
  agenttrace replay run.jsonl --validate 'node check-schema.js'`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) < 1:
				return usageErrorf("missing input: replay takes one recorded run")
			case len(args) > 1:
				return usageErrorf("replay takes one recorded run; got %d inputs", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			switch {
			case execCmd == "" && valCmd == "":
				return usageErrorf("replay needs --exec CMD (or --validate CMD for a dry run)")
			case execCmd != "" && valCmd != "":
				return usageErrorf("--exec and --validate cannot be used together: --validate is a dry run")
			case timeout <= 0:
				return usageErrorf("--timeout must be positive")
			}
			return e.replay(args[0], execCmd, valCmd, timeout, asJSON)
		},
	}
	cmd.Flags().StringVar(&execCmd, "exec", "", "run each call with this shell `command` (input on standard input)")
	cmd.Flags().StringVar(&valCmd, "validate", "", "dry run: validate each call's arguments with this shell `command`")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "longest a call may take; past it, the call failed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}

func (e *env) replay(path, execCmd, valCmd string, timeout time.Duration, asJSON bool) error {
	src, err := e.loadRun(path)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	runner := &execRunner{timeout: timeout, cancel: cancel}
	var (
		rep *judge.ReplayReport
	)
	if valCmd != "" {
		runner.cmdline = valCmd
		rep, err = judge.Replay(ctx, src.records, nil, judge.WithDryRun(func(ctx context.Context, tool string, args json.RawMessage) error {
			_, err := runner.run(ctx, tool, args)
			return err
		}))
	} else {
		runner.cmdline = execCmd
		rep, err = judge.Replay(ctx, src.records, runner.run)
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			return ioError(cause)
		}
		return ioError(err)
	}
	if err := e.printReport(asJSON, rep); err != nil {
		return err
	}
	_ = e.noteSource(src)
	if rep.Diverged {
		return errDiverged
	}
	return nil
}

// execRunner runs a shell command per call.
type execRunner struct {
	cmdline string
	timeout time.Duration
	cancel  context.CancelCauseFunc
}

// execInput is what the command reads on standard input.
type execInput struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// run is a judge.Dispatcher over the command.
func (r *execRunner) run(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	in, err := json.Marshal(execInput{Tool: tool, Args: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	cctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	c := exec.CommandContext(cctx, "sh", "-c", r.cmdline)
	c.Stdin = bytes.NewReader(in)
	var out, errOut limitedBuffer
	c.Stdout, c.Stderr = &out, &errOut
	c.Env = append(os.Environ(), toolEnv(tool)...)
	ownGroup(c)
	// A child that keeps the output open after a kill does not hold the
	// replay up for longer than this.
	c.WaitDelay = time.Second
	err = c.Run()
	if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return nil, &judge.CallError{Message: fmt.Sprintf("%s: no answer within %s", tool, r.timeout)}
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		msg := strings.TrimSpace(errOut.String())
		if code := ee.ExitCode(); code == 126 || code == 127 {
			r.cancel(fmt.Errorf("--exec %q cannot be run (exit status %d): %s", r.cmdline, code, msg))
			return nil, err
		}
		if msg == "" {
			msg = ee.Error()
		}
		return nil, &judge.CallError{Code: errorCodeOf(out.Bytes()), Message: msg}
	case err != nil:
		r.cancel(fmt.Errorf("--exec %q: %w", r.cmdline, err))
		return nil, err
	}
	res := bytes.TrimSpace(out.Bytes())
	if !json.Valid(res) {
		res, _ = json.Marshal(out.String())
	}
	return res, nil
}

// errorCodeOf reads the error code a failed command printed: "code", or
// "error": {"code": ...}, of a JSON object; "" when there is none.
func errorCodeOf(stdout []byte) string {
	var v struct {
		Code  any `json:"code"`
		Error any `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(stdout), &v) != nil {
		return ""
	}
	if s := codeString(v.Code); s != "" {
		return s
	}
	if m, ok := v.Error.(map[string]any); ok {
		return codeString(m["code"])
	}
	return ""
}

func codeString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	}
	return ""
}

// limitedBuffer keeps the first maxExecOutput bytes written to it and
// drops the rest, so a runaway command cannot exhaust memory.
type limitedBuffer struct{ bytes.Buffer }

// Write keeps what fits and says it took all of p, so the command is
// never stopped by a short write.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxExecOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)

// toolEnv is the environment a replayed call's command gets for tool:
// AGENTTRACE_TOOL, sanitized (safeToolName), and AGENTTRACE_TOOL_RAW, the
// recorded name less the NUL bytes an environment cannot hold. A dispatcher
// that builds a path from the name ("./tools/$AGENTTRACE_TOOL") must not
// be steered out of its folder by a recorded "../../../../usr/bin/id"
// (issue 22 item 8).
func toolEnv(tool string) []string {
	return []string{
		"AGENTTRACE_TOOL=" + safeToolName(tool),
		"AGENTTRACE_TOOL_RAW=" + strings.ReplaceAll(tool, "\x00", ""),
	}
}

// safeToolName maps a recorded tool name to one made of [A-Za-z0-9._-]
// only, with no leading dot: every other byte (a path separator, a space,
// a shell metacharacter, each byte of a multi-byte character) becomes '_',
// and so do leading dots, so the result is never "", ".", ".." or a hidden
// file's name and holds no separator. Names of the common conventions
// (search_flights, mcp__github__create_issue, web-search.v2) pass as they
// are.
func safeToolName(tool string) string {
	if tool == "" {
		return "_"
	}
	b := []byte(tool)
	leading := true
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if !ok || (leading && c == '.') {
			b[i] = '_'
			continue
		}
		leading = false
	}
	return string(b)
}
