package converter_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/plogcmp"
)

func seedRealPayloads(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(realLogs, "payloads", "*.*.*"))
	require.NoError(f, err)
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
}

// FuzzDetectLogs holds logs detection to pdata's verdict: whatever Detect
// calls logs reads as logs or fails with an error (never a panic), and a
// protobuf payload that pdata reads as logs with a record but refuses as
// traces is never called traces.
func FuzzDetectLogs(f *testing.F) {
	seedRealPayloads(f)
	f.Add([]byte{0x0A, 0x04, 0x12, 0x02, 0x12, 0x00})
	f.Add([]byte("{\"resourceLogs\":[]}\n{\"resourceLogs\":[]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		head := data[:min(len(data), converter.DetectSize)]
		format := converter.Detect(head)
		if format.IsLogs() {
			ld, err := converter.ReadOTLPLogs(bytes.NewReader(data), format, "fuzz")
			if err == nil {
				artifact.ToLogs(artifact.LogRecords(ld))
			}
		}
		if len(data) > converter.DetectSize || len(data) == 0 || data[0] != 0x0A {
			return
		}
		ld, lerr := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(data)
		_, terr := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data)
		if lerr == nil && terr != nil && ld.LogRecordCount() > 0 {
			require.NotEqual(t, converter.FormatOTLPProto, format, "logs payload taken for traces")
		}
	})
}

// FuzzLogLine holds the "log" line reader: any line reads without a panic
// or a stop, and a record it reads writes and reads back the same.
func FuzzLogLine(f *testing.F) {
	for _, s := range []string{
		`{"kind":"log"}`,
		`{"kind":"log","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","time":"2026-01-01T00:00:00Z","observed_time":1,"severity_number":9,"severity_text":"INFO","event_name":"e","body":{"a":[1,2.5,{"@bytes":"aGk="}]},"attrs":{"k":null},"flags":1,"dropped":{"attrs":2},"resource":{"r":1},"resource_dropped":1,"resource_schema_url":"u","scope":{"name":"s","attrs":{"x":true}}}`,
		`{"kind":"log","body":{"@map":{"@double":"x"}}}`,
		`{"kind":"log","body":{"@double":"NaN"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		data := append([]byte(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`+"\n"), line...)
		var logs []artifact.LogRecord
		r := artifact.NewReader(bytes.NewReader(data), artifact.WithMaxLineSize(1<<16),
			artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
		for {
			_, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				require.ErrorIs(t, err, artifact.ErrUnsupportedVersion)
				return
			}
		}
		if len(logs) == 0 {
			return
		}
		ld := artifact.ToLogs(logs)
		var buf bytes.Buffer
		w := artifact.NewWriter(&buf, r.Meta())
		for i := range logs {
			require.NoError(t, w.WriteLog(&logs[i]))
		}
		require.NoError(t, w.Close())
		got, _ := readLogs(t, buf.Bytes())
		require.Equal(t, plogcmp.Records(ld), plogcmp.Records(got))
	})
}
