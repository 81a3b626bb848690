package converter_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
)

// BenchmarkGuard measures the guard, which runs on every request, against
// pdata's decoding of the same bytes (the work it precedes), on real
// exporter payloads: testdata/otlp/agent-run (a GenAI agent run, 37 KB
// protobuf / 68 KB JSON) and a captured LangChain tool loop.
func BenchmarkGuard(b *testing.B) {
	for _, c := range []struct {
		name string
		f    converter.Format
	}{
		{"../testdata/otlp/agent-run.pb", converter.FormatOTLPProto},
		{"../testdata/otlp/agent-run.json", converter.FormatOTLPJSON},
		{"../testdata/real/openinference-langchain/payloads/double-tool-loop.traces.pb", converter.FormatOTLPProto},
		{"../testdata/real/openinference-langchain/payloads/double-tool-loop.traces.json", converter.FormatOTLPJSON},
	} {
		data, err := os.ReadFile(c.name)
		require.NoError(b, err)
		b.Run("guard/"+c.name[len("../testdata/"):], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := converter.GuardOTLP(data, c.f, converter.GuardOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("pdata/"+c.name[len("../testdata/"):], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if c.f == converter.FormatOTLPProto {
					_, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data)
				} else {
					_, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
