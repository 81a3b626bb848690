package converter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// seedArtifacts adds the golden artifacts and a few hand-made edge cases to
// a fuzz corpus.
func seedArtifacts(f *testing.F) {
	files, _ := filepath.Glob("../testdata/golden/*.jsonl")
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","core_version":"0.9.0","budget":{"spent":10,"warn_threshold":0.8,"overflowed":false}}` + "\n" +
		`{"kind":"call","tool":"click","ok":false,"code":"trace.BUDGET_EXCEEDED","started_at":1767225600000,"finished_at":1767225600012,"elapsed_ms":12,"estimated_tokens":340,"args":{"ref":"[redacted]"},"result":{"ok":false}}` + "\n"))
	f.Add([]byte(`{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"))
	f.Add([]byte(`{"kind":"span","attrs":{"a":{"@map":{"@bytes":"AAE="}},"b":{"@double":"NaN"},"c":null,"d":[1,1.0,"x"]}}` + "\n{\"kind\":\"inf"))
}

// FuzzReader feeds arbitrary bytes to the artifact reader. It must never
// panic or fail fatally on bad lines, and every record it returns must
// survive a second encode/decode unchanged.
func FuzzReader(f *testing.F) {
	seedArtifacts(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		next, par, np, pp, ne, pe := readBoth(t, data)
		require.Equal(t, ne == nil, pe == nil, "Next: %v, ReadTraces: %v", ne, pe)
		require.Equal(t, next, par, "ReadTraces differs from Next")
		require.Equal(t, np, pp)

		r := converter.NewReader(bytes.NewReader(data), converter.WithMaxLineSize(1<<16))
		var recs []converter.Record
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				require.ErrorIs(t, err, converter.ErrUnsupportedVersion)
				return
			}
			recs = append(recs, *rec)
		}
		if len(recs) == 0 {
			return
		}
		td := converter.ToTraces(recs)
		want := ptracecmp.Spans(td)
		again, _ := readAll(t, toJSONL(t, td))
		require.Equal(t, want, ptracecmp.Spans(converter.ToTraces(again)))
	})
}

// FuzzDetect feeds arbitrary bytes to input detection and to the reader of
// the detected format: neither may panic, and an artifact detected as such
// must read.
func FuzzDetect(f *testing.F) {
	seedArtifacts(f)
	for _, pattern := range []string{"../testdata/otlp/*", "../testdata/dialects/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			b, err := os.ReadFile(p)
			require.NoError(f, err)
			f.Add(b)
		}
	}
	f.Add([]byte("{\n  \"resourceSpans\": []\n}\n"))
	f.Add([]byte{0x0A, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		head := data[:min(len(data), converter.DetectSize)]
		switch format := converter.Detect(head); format {
		case converter.FormatArtifact:
			r := converter.NewReader(bytes.NewReader(data))
			for {
				_, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					// Bad lines are problems, not errors: only a newer
					// version stops a reader of memory.
					require.ErrorIs(t, err, converter.ErrUnsupportedVersion)
					break
				}
			}
		case converter.FormatOTLPJSON, converter.FormatOTLPJSONLines, converter.FormatOTLPProto:
			td, err := converter.ReadOTLP(bytes.NewReader(data), format, "fuzz")
			if err == nil {
				converter.Records(td)
			}
		}
	})
}

// FuzzJSONSkip holds the hand-written JSON checker (which decides whether
// an attribute is embedded as JSON, and where an embedded value ends) to
// encoding/json's verdict on valid UTF-8 input of modest depth.
func FuzzJSONSkip(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n"]}`, `[{"a":{}},[[]]]`,
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":1]`, `[1}`, `"\ud800"`, `01`, `1.`, `-`, `{"a":"\x01"}`, ` [ 1 , { "b" : [ ] } ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > 200 {
			return
		}
		require.Equal(t, json.Valid(data), converter.ValidJSONForTest(data), "%q", data)
	})
}

// FuzzAppendString holds the hand-written string escaper to encoding/json:
// the output is valid JSON and reads back as encoding/json's own encoding of
// the same string does (invalid UTF-8 becomes U+FFFD in both).
func FuzzAppendString(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Add("\xff\xfe bad \xc3")
	f.Fuzz(func(t *testing.T, s string) {
		got := converter.AppendJSONString(nil, s)
		require.True(t, json.Valid(got), "%q -> %s", s, got)
		want, err := json.Marshal(s)
		require.NoError(t, err)
		var a, b string
		require.NoError(t, json.Unmarshal(got, &a))
		require.NoError(t, json.Unmarshal(want, &b))
		require.Equal(t, b, a)
	})
}
