package converter_test

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/converter"
)

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// TestSafeName: hostile ids (path traversal, hidden files, separators,
// non-ASCII, very long) give names that stay in their folder and stay
// distinct.
func TestSafeName(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		id, want string
	}{
		{"conv-42", "conv-42"},
		{"/etc/passwd", "_etc_passwd-" + shortHash("/etc/passwd")},
		{"a\x00b", "a_b-" + shortHash("a\x00b")},
		{"Conv_42.v2", "Conv_42.v2"},
		{"../etc/passwd", "_._etc_passwd-" + shortHash("../etc/passwd")},
		{"..", "_.-" + shortHash("..")},
		{".hidden", "_hidden-" + shortHash(".hidden")},
		{"a/b", "a_b-" + shortHash("a/b")},
		{`a\b`, "a_b-" + shortHash(`a\b`)},
		{"ü", "_-" + shortHash("ü")},
		{long, strings.Repeat("a", 64) + "-" + shortHash(long)},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got := converter.SafeName(tt.id)
			assert.Equal(t, tt.want, got)
			assert.True(t, filepath.IsLocal(got))
			assert.Regexp(t, `^[A-Za-z0-9_-][A-Za-z0-9._-]*$`, got)
		})
	}
	assert.NotEqual(t, converter.SafeName("a/b"), converter.SafeName("a:b"), "changed ids keep distinct names")
}
