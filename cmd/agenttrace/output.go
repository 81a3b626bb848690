package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
)

// outFormat is what convert writes.
type outFormat uint8

const (
	outJSONL outFormat = iota
	outOTLPJSON
	outOTLPProto
)

// outFormats maps --to values to formats, and formats to file extensions.
var outFormats = []struct {
	name, ext string
	f         outFormat
}{
	{"jsonl", ".jsonl", outJSONL},
	{"otlp-json", ".json", outOTLPJSON},
	{"otlp-proto", ".pb", outOTLPProto},
}

func formatNames() string {
	names := make([]string, len(outFormats))
	for i, o := range outFormats {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}

// parseOutFormat reads a --to value.
func parseOutFormat(s string) (outFormat, error) {
	for _, o := range outFormats {
		if o.name == s {
			return o.f, nil
		}
	}
	return 0, usageErrorf("--to %q: want one of %s", s, formatNames())
}

// formatOfPath tells the output format from a file's extension.
func formatOfPath(path string) (outFormat, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, o := range outFormats {
		if o.ext == ext {
			return o.f, nil
		}
	}
	return 0, usageErrorf("cannot tell the output format of %q from its extension (.jsonl, .json, .pb); use --to", path)
}

func (f outFormat) ext() string {
	for _, o := range outFormats {
		if o.f == f {
			return o.ext
		}
	}
	return ""
}

// encode writes recs to w in format f, with meta as the artifact header
// (or, for OTLP, carried in the resource attributes). OTLP output moves
// the spans out of recs.
func encode(w io.Writer, f outFormat, recs []converter.Record, meta *converter.Meta) error {
	if f == outJSONL {
		bw := bufio.NewWriterSize(w, 64<<10)
		aw := converter.NewWriter(bw, meta)
		for i := range recs {
			if err := aw.Write(&recs[i]); err != nil {
				return err
			}
		}
		if err := aw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	}
	// The header's budget and redaction travel in the resource, where
	// reading the artifact put them.
	td := converter.ToTraces(recs)
	var (
		b   []byte
		err error
	)
	if f == outOTLPJSON {
		b, err = (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	} else {
		b, err = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	}
	if err != nil {
		return fmt.Errorf("encode OTLP: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// printJSON writes v to standard output as indented JSON: the --json
// form of every report.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// printReport writes rep to standard output, as JSON with --json or else
// as text.
func (e *env) printReport(asJSON bool, rep interface{ WriteText(io.Writer) error }) error {
	if asJSON {
		return e.printJSON(rep)
	}
	if err := rep.WriteText(e.stdout); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// writeOutput writes path, or standard output for "-", with write.
func (e *env) writeOutput(path string, write func(io.Writer) error) error {
	if path != "-" {
		return writeFile(path, write)
	}
	if err := write(e.stdout); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// writeError reports write's failure to write name (exit 2); an
// exitError write returns (an input's, found while writing) stays as it
// is.
func writeError(name string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return ioError(fmt.Errorf("write %s: %w", name, err))
}

// writeFile writes path through a temporary file in the same directory,
// renamed into place once complete: a failed run never leaves a torn
// output, and an output may overwrite one of the inputs.
func writeFile(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return ioError(fmt.Errorf("write %s: %w", path, err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return writeError(path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return ioError(fmt.Errorf("write %s: %w", path, err))
	}
	if err := tmp.Close(); err != nil {
		return ioError(fmt.Errorf("write %s: %w", path, err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return ioError(fmt.Errorf("write %s: %w", path, err))
	}
	return nil
}
