package importer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// MaxStreamRecord is the largest record ReadOTLPStream accepts. It is below
// 0x0A000000, so the first four bytes of a plain protobuf TracesData (which
// begins with the tag byte 0x0A) never read as a plausible length.
const MaxStreamRecord = 64 << 20

// ReadOTLPStream reads the collector file exporter's protobuf format: a
// sequence of OTLP TracesData records, each prefixed by its length as 4
// bytes big-endian. It holds one record at a time and emits its spans with
// their own resources and scopes, in the order they end. A record that
// does not decode is reported (numbered from 1) and skipped; a bad length
// or a truncated record ends the stream, since nothing after it can be
// framed, and is reported too.
func ReadOTLPStream(r io.Reader, name string, emit func(*artifact.Record) error) (Stats, error) {
	s := sink{name: name, emit: emit}
	err := readStream(&s, r)
	return s.done(), err
}

func readStream(s *sink, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var u ptrace.ProtoUnmarshaler
	var hdr [4]byte
	for n := 1; ; n++ {
		k, err := io.ReadFull(br, hdr[:])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			s.problem(n, fmt.Errorf("record %d: truncated length prefix (%d of 4 bytes)", n, k))
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", s.name, n, err)
		}
		size := binary.BigEndian.Uint32(hdr[:])
		if size > MaxStreamRecord {
			s.problem(n, fmt.Errorf("record %d: length %d is over the %d-byte limit: not a length-prefixed OTLP stream, or a corrupt one", n, size, MaxStreamRecord))
			return nil
		}
		// A fresh buffer each record: the decoded traces may share its
		// memory, and emitted records outlive the loop.
		var buf bytes.Buffer
		// CopyN grows the buffer as bytes arrive: a corrupt length costs no
		// allocation beyond the input that is really there.
		got, err := io.CopyN(&buf, br, int64(size))
		if errors.Is(err, io.EOF) {
			s.problem(n, fmt.Errorf("record %d: truncated: %d of %d bytes", n, got, size))
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", s.name, n, err)
		}
		if err := converter.GuardOTLP(buf.Bytes(), converter.FormatOTLPProto, converter.GuardOptions{}); err != nil {
			s.problem(n, fmt.Errorf("record %d: %w", n, err))
			continue
		}
		td, err := u.UnmarshalTraces(buf.Bytes())
		if err != nil {
			s.problem(n, fmt.Errorf("record %d: OTLP protobuf: %w", n, err))
			continue
		}
		if err := s.putAll(artifact.Records(td)); err != nil {
			return err
		}
	}
}
