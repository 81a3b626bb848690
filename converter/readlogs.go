package converter

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/pdata/plog"
)

// ReadOTLPLogs reads OTLP logs in format f (one of the OTLP logs formats)
// from r, decoding with pdata. name is used in errors.
func ReadOTLPLogs(r io.Reader, f Format, name string) (plog.Logs, error) {
	switch f {
	case FormatOTLPLogsJSON, FormatOTLPLogsProto:
		b, err := io.ReadAll(r)
		if err != nil {
			return plog.Logs{}, fmt.Errorf("%s: %w", name, err)
		}
		var ld plog.Logs
		if f == FormatOTLPLogsJSON {
			b = bytes.TrimPrefix(b, bom)
			if oneValuePerLine(b) {
				return ReadOTLPLogs(bytes.NewReader(b), FormatOTLPLogsJSONLines, name)
			}
		}
		if err = GuardOTLP(b, f, GuardOptions{Strict: true}); err != nil {
			return plog.Logs{}, guardError(name, 0, f, err)
		}
		if f == FormatOTLPLogsJSON {
			ld, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(b)
		} else {
			ld, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
		}
		if err != nil {
			return plog.Logs{}, fmt.Errorf("%s: %s: %w", name, f, err)
		}
		return ld, nil
	case FormatOTLPLogsJSONLines:
		ld := plog.NewLogs()
		br := bufio.NewReaderSize(r, 64<<10)
		var u plog.JSONUnmarshaler
		for n := 1; ; n++ {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				line = bytes.TrimPrefix(line, bom)
				if k := firstKeys(line); k != "otlplogs" {
					return plog.Logs{}, fmt.Errorf("%s:%d: OTLP/JSON logs: %w", name, n, ErrNotOTLPLogs)
				}
				if gerr := GuardOTLP(line, f, GuardOptions{Strict: true}); gerr != nil {
					return plog.Logs{}, guardError(name, n, f, gerr)
				}
				part, perr := u.UnmarshalLogs(line)
				if perr != nil {
					return plog.Logs{}, fmt.Errorf("%s:%d: OTLP/JSON logs: %w", name, n, perr)
				}
				part.ResourceLogs().MoveAndAppendTo(ld.ResourceLogs())
			}
			if err == io.EOF {
				return ld, nil
			}
			if err != nil {
				return plog.Logs{}, fmt.Errorf("%s:%d: %w", name, n, err)
			}
		}
	}
	return plog.Logs{}, fmt.Errorf("%s: %w", name, ErrUnknownFormat)
}
