package main

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

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
}

// convertPlan is convertOpts checked and resolved, before any input is read.
type convertPlan struct {
	convertOpts
	format outFormat
	by     converter.GroupBy
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
OTLP/JSON, .pb OTLP protobuf) or from --to. "-o -" writes standard output
(JSONL unless --to says otherwise).

--split DIR writes one artifact per trace (<trace id>.jsonl) or, with
--group-by conversation, one per gen_ai.conversation.id, and prints the
paths it wrote.

Besides OTLP and artifacts, convert reads the agent-trace shapes in use
(see docs/importers.md): transcript event logs, trajectory logs, streaming
trace events (a JSON array or one per line), Jaeger JSON, and the
collector file exporter's protobuf stream. Tool calls become execute_tool
spans, model round-trips chat spans, agent dispatches nested invoke_agent
spans. One such input converted to one artifact is streamed: its size is
not limited by memory.

Bad lines are reported as file:line: problem and skipped; the conversion
still happens, and the exit status is 1. Records of a type the shape does
not define are counted in a note.`,
		Example: `  agenttrace convert traces.json -o run.jsonl
  agenttrace convert run.jsonl -o run.pb
  cat traces.pb | agenttrace convert - -o - --to otlp-json
  agenttrace convert a.json b.json --split runs/ --group-by conversation`,
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
	cmd.MarkFlagsMutuallyExclusive("output", "split")
	cmd.MarkFlagsOneRequired("output", "split")
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
	if cmd.Flags().Changed("group-by") && o.split == "" {
		return nil, usageErrorf("--group-by needs --split")
	}
	switch o.groupBy {
	case "trace":
		p.by = converter.ByTrace
	case "conversation":
		p.by = converter.ByConversation
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
		err := in.importTo(src, e.printProblem, func(rec *converter.Record) error {
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
	importer.OTLPStream, importer.Transcript, importer.Trajectory, importer.Events, importer.Jaeger,
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
	return e.writeOutput(p.output, func(w io.Writer) error {
		return encode(w, p.format, all.records, meta, converter.WithMaxLineSize(e.maxLine))
	})
}
