package converter

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxNameLen caps the part of a file name taken from an id, well under the
// 255 bytes file systems allow.
const maxNameLen = 64

// SafeName derives a file name from an id that any framework chose (a
// conversation id, a resource attribute): only [A-Za-z0-9._-] are kept,
// others become "_", the name never starts with "." (no hidden files, no
// "..") and is at most 64 bytes before its suffix. When anything had to
// change, a short hash of the raw id is appended, so that distinct ids keep
// distinct names. No id can name a path outside the folder it is joined to.
func SafeName(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		if b.Len() >= maxNameLen {
			changed = true
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	if !changed && b.Len() > 0 {
		return b.String()
	}
	h := sha256.Sum256([]byte(id))
	return b.String() + "-" + hex.EncodeToString(h[:4])
}
