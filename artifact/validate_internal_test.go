package artifact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBinaryAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		head string
		want int
	}{
		{"json", `{"v":1,"kind":"meta"}` + "\n", -1},
		{"utf-8 text", "héllo – ok", -1},
		{"nul", "ab\x00cd", 2},
		{"invalid utf-8", "ab\xffcd", 2},
		{"rune cut at the end", "ab\xe2\x80", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, binaryAt([]byte(tc.head)))
		})
	}
}
