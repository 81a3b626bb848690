package jsonlex

import (
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, the way artifacts write
// strings: invalid UTF-8 becomes U+FFFD, as encoding/json does; U+2028 and
// U+2029 are escaped so that a line stays valid JavaScript too. Writers
// of JSON-valued attributes (importers, redact) use it to write alike.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	for i := 0; i < len(s); {
		i = PlainRun(b, i) // the bytes that need a look: quotes, backslashes, controls, non-ASCII
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
