package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/importer"
)

// env is what a command reads and writes instead of the process's globals,
// so tests run commands in-process and in parallel.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	from           importer.Shape // --from: the input shape, when not detected
	maxLine        int            // --max-line: the longest artifact line read or written
	redact         *redaction     // how loads redact; set by the commands that register its flags
	dialects       []string       // --dialect: dialect files laid over the embedded table (dialectflag.go)
}

// run runs the agenttrace command line args and returns the exit code.
// It never exits the process and keeps no state between calls.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &stickyWriter{w: stdout}
	e := &env{stdin: stdin, stdout: out, stderr: stderr}
	root := newRootCmd(e)
	if len(args) == 0 {
		root.InitDefaultHelpFlag()
		root.InitDefaultVersionFlag()
		fmt.Fprint(stderr, root.UsageString())
		return exitUsage
	}
	root.SetArgs(args)
	defer e.restoreDialects()
	cmd, err := root.ExecuteC()
	if readerGone(out, err) {
		return exitOK
	}
	code, usage := printError(stderr, err)
	if usage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return stdoutFailed(out, code, stderr)
}

// newRootCmd builds the command tree around e. Each call returns a fresh
// tree: flag values live in the commands' closures, never in globals.
func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agenttrace",
		Short: "Convert, validate, report on and view OpenTelemetry GenAI traces",
		Long: `agenttrace converts OpenTelemetry GenAI traces (OTLP/JSON, OTLP protobuf)
to and from the agenttrace JSONL artifact, validates artifacts, reports
where a run's tokens went, and shows runs: as an offline HTML page, in a
live local viewer, or in any OTLP backend such as Jaeger.

Inputs are recognized by their content, never by their file name; "-" reads
standard input.

--max-line bounds an artifact line, read or written: a longer line read
is reported and skipped; a longer record written by convert has its
largest values truncated (and says so).

Exit status: 0 on success, 1 when an input is invalid or validation finds
problems, 2 on a usage error or an I/O error (missing file, unwritable
output) or a TLS setting send's endpoint contradicts, 3 when send's
endpoint refuses or cannot be reached.`,
		Version:       strings.TrimPrefix(artifact.Producer, "agenttrace/"),
		SilenceErrors: true, // run prints errors, with the exit code they map to
		SilenceUsage:  true, // run prints a usage hint for usage errors only
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().IntVar(&e.maxLine, "max-line", artifact.DefaultMaxLineSize,
		"longest artifact line in `bytes` (see agenttrace --help)")
	e.dialectFlag(root)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, usage: true, err: err}
	})
	root.AddCommand(newConvertCmd(e), newValidateCmd(e), newTokensCmd(e), newDemoCmd(e), newDiffCmd(e), newAuditCmd(e),
		newHTMLCmd(e), newServeCmd(e), newSendCmd(e), newMessagesCmd(e))
	root.AddCommand(newReplayCmd(e), newExplainCmd(e))
	root.AddCommand(newExportCmd(e))
	root.AddCommand(newMCPCmd(e))
	root.AddCommand(newRunsCmd(e), newCatalogCmd(e))
	return root
}

// argsAtLeast is cobra.MinimumNArgs with a message that names what is
// missing, reported as a usage error.
func argsAtLeast(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("missing %s", what)
		}
		return nil
	}
}
