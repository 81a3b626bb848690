package artifact

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// refEmbeddable is embeddable as it was before jsonlex.ValidEmbed: a
// bracket at each end, two newline searches, then the Scanner's
// SkipValue to the end.
func refEmbeddable(s string) bool {
	if len(s) < 2 || !(s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']') {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	var sc jsonlex.Scanner
	sc.Reset(b)
	sc.SkipValue()
	return sc.Err == nil && sc.Pos == len(b)
}

// TestEmbeddable: what the encoder embeds raw is what the Scanner reads
// back as one value, bracketed, in a line (jsonlex's FuzzValidEmbed holds
// the check itself to the Scanner on any bytes).
func TestEmbeddable(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,2.5e3,-0,true,false,null,"x\u00e9\n"]}`, ` {"lead":1}`, `{"trail":1} `, "{\"nl\":\n1}",
		`{"bad":}`, `"just a string"`, `42`, `{"a":"é日本🙂"}`, "{\"a\":\"\xff\"}", `[1]x`, `{`, `{}}`,
		`[{"role":"user","parts":[{"type":"text","content":"` + strings.Repeat("long text ", 9) + `"}]}]`,
	} {
		require.Equal(t, refEmbeddable(s), embeddable(s), "%q", s)
	}
}
