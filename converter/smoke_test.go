package converter_test

import (
	"bytes"
	"os"
	"testing"
	"fmt"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

func TestSmoke(t *testing.T) {
	for _, name := range []string{"genai-v141","genai-deprecated","openinference","openllmetry-legacy","openllmetry-current","vercel-ai-v4","vercel-ai-v5-stream"} {
		raw, err := os.ReadFile("../testdata/dialects/" + name + ".json")
		require.NoError(t, err)
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
		require.NoError(t, err)
		recs := converter.Records(td)
		var buf bytes.Buffer
		w := converter.NewWriter(&buf, converter.MetaFor(recs))
		for i := range recs { require.NoError(t, w.Write(&recs[i])) }
		require.NoError(t, w.Close())
		if name == "openinference" { fmt.Println(buf.String()) }
		r := converter.NewReader(bytes.NewReader(buf.Bytes()))
		var back []converter.Record
		for { rec, err := r.Next(); if err != nil { break }; back = append(back, *rec) }
		require.Empty(t, r.Problems())
		td2 := converter.ToTraces(back)
		require.Equal(t, ptracecmp.Spans(td), ptracecmp.Spans(td2), name)
		fmt.Println(name, r.Summary())
	}
}
