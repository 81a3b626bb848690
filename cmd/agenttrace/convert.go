package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/atif"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/store"
)

// convertOpts is the convert command line, parsed.
type convertOpts struct {
	inputs  []string
	output  string
	to      string
	split   string
	groupBy string
	from    string
	logsOut string
}

// convertPlan is convertOpts checked and resolved, before any input is read.
type convertPlan struct {
	convertOpts
	format outFormat
	by     store.Route
	// logsFormat is --logs-out's format, when given.
	logsFormat outFormat
}

func newConvertCmd(e *env) *cobra.Command {
	var o convertOpts
	cmd := &cobra.Command{
		Use:   "convert IN... (-o OUT | --split DIR)",
		Short: "Convert between OTLP and the JSONL artifact",
		Long: `Convert reads OTLP/JSON, OTLP/JSON lines, OTLP protobuf or JSONL artifacts
(told apart by their content) and writes one artifact or one OTLP file.
Several inputs are merged; records are written in the order their spans
ended.

The output format comes from OUT's extension (.jsonl artifact, .json
OTLP/JSON, .pb OTLP protobuf, .atif.json ATIF) or from --to. "-o -" writes standard output
(JSONL unless --to says otherwise).

--split DIR writes one artifact per trace (<trace id>.jsonl) or, with
--group-by conversation, one per gen_ai.conversation.id, and prints the
paths it wrote.

Besides OTLP and artifacts, convert reads the agent-trace shapes in use
(see docs/importers.md): transcript event logs, trajectory logs, streaming
trace events (a JSON array or one per line), Jaeger JSON, AgentEval
traces, ATIF trajectories (v1.0 to v1.7; a subagent's own file given too is
nested under the tool call that refers to it), and the collector file
exporter's protobuf stream. Tool calls become execute_tool
spans, model round-trips chat spans, agent dispatches nested invoke_agent
spans. One such input converted to one artifact is streamed: its size is
not limited by memory.

OTLP logs payloads (protobuf, JSON, JSON lines; where the official GenAI
instrumentations put message content) are read alongside trace payloads,
in any order. In an artifact each log record follows its span's record
(by time); log records of no span in the input (no span id, or a trace
that is not there) follow the last record, and a note counts them. To
OTLP, the spans go to OUT and the log records to --logs-out (.json or
.pb).

--to atif (or -o x.atif.json) writes one ATIF-v1.7 trajectory (the Agent
Trajectory Interchange Format): each agent a trajectory, subagents
embedded, model calls as agent steps with the normalized conversation,
usage and cost, tool calls with their results, final_metrics from the
tally (see docs/importers.md).

Bad lines are reported as file:line: problem and skipped; the conversion
still happens, and the exit status is 1. Records of a type the shape does
not define are counted in a note.`,
		Example: `  agenttrace convert traces.json -o run.jsonl
  agenttrace convert run.jsonl -o run.pb
  agenttrace convert traces.pb logs.pb -o run.jsonl
  agenttrace convert run.jsonl -o spans.pb --logs-out logs.pb
  cat traces.pb | agenttrace convert - -o - --to otlp-json
  agenttrace convert a.json b.json --split runs/ --group-by conversation
  agenttrace convert run.jsonl -o run.atif.json`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			p, err := o.plan(cmd)
			if err != nil {
				return err
			}
			return e.convert(p)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.output, "output", "o", "", "output file, or - for standard output")
	f.StringVar(&o.to, "to", "", "output format: "+formatNames()+" (default: from the output's extension)")
	f.StringVar(&o.split, "split", "", "write one artifact per group into this directory")
	f.StringVar(&o.groupBy, "group-by", "trace", "with --split: trace or conversation")
	f.StringVar(&o.from, "from", "", "input shape, when detection guesses wrong: "+shapeNames())
	f.StringVar(&o.logsOut, "logs-out", "", "with an OTLP output: write the log records here (.json or .pb)")
	e.redactFlags(cmd)
	return cmd
}

// plan checks the flags, so a usage error is reported before any input
// is read or any output written.
func (o convertOpts) plan(cmd *cobra.Command) (*convertPlan, error) {
	p := &convertPlan{convertOpts: o}
	if err := checkStdin(o.inputs); err != nil {
		return nil, err
	}
	switch {
	case o.output == "" && o.split == "":
		return nil, usageErrorf("say where to write: -o OUT (a file, or - for standard output) or --split DIR (one artifact per trace)")
	case o.output != "" && o.split != "":
		return nil, usageErrorf("-o and --split: give one (-o writes one output, --split one artifact per trace into DIR)")
	}
	for _, out := range []string{o.output, o.logsOut} {
		if err := notAnInput(out, o.inputs); err != nil {
			return nil, err
		}
	}
	if o.from != "" && !slices.Contains(fromShapes, importer.Shape(o.from)) {
		return nil, usageErrorf("--from %q: want one of %s", o.from, shapeNames())
	}
	var err error
	switch {
	case o.to != "":
		p.format, err = parseOutFormat(o.to)
	case o.split != "", o.output == "-":
		p.format = outJSONL
	default:
		p.format, err = formatOfPath(o.output)
	}
	if err != nil {
		return nil, err
	}
	if p.format == outATIF && o.split != "" {
		return nil, usageErrorf("--split writes artifacts or OTLP files; write ATIF with -o (one document, subagents embedded)")
	}
	if o.logsOut != "" {
		if o.split != "" || p.format == outJSONL || p.format == outATIF {
			return nil, usageErrorf("--logs-out needs an OTLP output (.json or .pb): an artifact keeps log records itself")
		}
		if p.logsFormat, err = formatOfPath(o.logsOut); err != nil {
			return nil, err
		}
		if p.logsFormat == outJSONL {
			return nil, usageErrorf("--logs-out %q: want a .json or .pb file", o.logsOut)
		}
	}
	if cmd.Flags().Changed("group-by") && o.split == "" {
		return nil, usageErrorf("--group-by needs --split")
	}
	switch o.groupBy {
	case "trace":
		p.by = store.ByTrace
	case "conversation":
		p.by = store.ByConversation
	default:
		return nil, usageErrorf("--group-by %q: want trace or conversation", o.groupBy)
	}
	return p, nil
}

func (e *env) convert(p *convertPlan) error {
	e.from = importer.Shape(p.from) // "" is importer.Unknown: detect
	first, err := e.open(p.inputs[0])
	if err != nil {
		return err
	}
	if p.split == "" && p.format == outJSONL && len(p.inputs) == 1 && first.streamed() {
		return e.stream(p, first)
	}
	all, err := e.loadOpened(p.inputs, first)
	if err != nil {
		return err
	}
	if p.split != "" {
		err = e.splitInto(p, all)
		if err == nil && len(all.logs) > 0 {
			fmt.Fprintf(e.stderr, "note: %d log record(s) not written: --split writes spans only; convert to one artifact to keep them\n", len(all.logs))
		}
	} else {
		err = e.writeOne(p, all)
	}
	if err != nil {
		return err
	}
	return e.noteSkipped(all)
}

// stream converts one imported input to one artifact record by record, as
// the importer makes them, so that a log of any size converts in bounded
// memory (the records wait in a temporary file); the header is the one a
// whole conversion writes for the same input.
func (e *env) stream(p *convertPlan, in *input) error {
	defer in.close()
	src := &source{name: in.name}
	write := func(w io.Writer) error {
		// The store's header policy, as for an artifact written whole:
		// the records are spooled until the header can be made from all.
		aw := store.NewStream(w, e.redact.options(store.HeaderOptions{}), e.maxLine)
		var werr error // the output's, which the importer returns as its own
		err := in.importTo(src, e.printProblem, func(rec *artifact.Record) error {
			e.redact.imported(rec)
			werr = aw.Write(rec)
			return werr
		})
		if werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		return aw.Close()
	}
	if err := e.writeOutput(p.output, write); err != nil {
		return err
	}
	return e.noteSource(src)
}

// fromShapes are the values --from takes.
var fromShapes = []importer.Shape{
	importer.Artifact, importer.OTLPJSON, importer.OTLPJSONLine, importer.OTLPProto,
	importer.OTLPStream, importer.Transcript, importer.Trajectory, importer.Events, importer.Jaeger, importer.AgentEval,
	importer.ATIF,
}

// shapeNames lists fromShapes for messages.
func shapeNames() string {
	names := make([]string, len(fromShapes))
	for i, s := range fromShapes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// writeOne writes every record to the one output.
func (e *env) writeOne(p *convertPlan, all *inputs) error {
	meta := all.metaFor(all.records)
	e.redact.mark(meta)
	if p.format == outATIF { // one ATIF document, log records' content in its conversation
		return e.writeOutput(p.output, func(w io.Writer) error { return atif.Export(w, all.records, all.logs) })
	}
	if len(all.logs) > 0 && p.format == outJSONL {
		return e.writeOutput(p.output, func(w io.Writer) error {
			return e.encodeWithLogs(w, all, meta)
		})
	}
	err := e.writeOutput(p.output, func(w io.Writer) error {
		return encode(w, p.format, all.records, meta, artifact.WithMaxLineSize(e.maxLine))
	})
	if err != nil {
		return err
	}
	switch {
	case p.logsOut != "":
		return e.writeOutput(p.logsOut, func(w io.Writer) error { return encodeLogs(w, p.logsFormat, all.logs) })
	case len(all.logs) > 0:
		fmt.Fprintf(e.stderr, "note: %d log record(s) not written: name a file for them with --logs-out\n", len(all.logs))
	}
	return nil
}

// encodeWithLogs writes one artifact of all's spans and log records: each
// span's log records right after its record, in time order, and the log
// records of no span in all after the last record (counted in a note).
func (e *env) encodeWithLogs(w io.Writer, all *inputs, meta *artifact.Meta) error {
	bySpan, orphans := converter.LogsBySpan(all.records, all.logs)
	bw := bufio.NewWriterSize(w, 64<<10)
	aw := artifact.NewWriter(bw, meta, artifact.WithMaxLineSize(e.maxLine))
	for i := range all.records {
		if err := aw.Write(&all.records[i]); err != nil {
			return err
		}
		for j := range bySpan[i] {
			if err := aw.WriteLog(&bySpan[i][j]); err != nil {
				return err
			}
		}
	}
	for i := range orphans {
		if err := aw.WriteLog(&orphans[i]); err != nil {
			return err
		}
	}
	if len(orphans) > 0 {
		fmt.Fprintf(e.stderr, "note: %d log record(s) of no span in the input, written after the last record\n", len(orphans))
	}
	if err := aw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// encodeLogs writes log records as one OTLP logs payload.
func encodeLogs(w io.Writer, f outFormat, logs []artifact.LogRecord) error {
	ld := artifact.ToLogs(logs)
	var (
		b   []byte
		err error
	)
	if f == outOTLPJSON {
		b, err = (&plog.JSONMarshaler{}).MarshalLogs(ld)
	} else {
		b, err = (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	}
	if err != nil {
		return fmt.Errorf("encode OTLP logs: %w", err)
	}
	_, err = w.Write(b)
	return err
}
