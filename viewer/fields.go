package viewer

import "github.com/agenttrace/agenttrace/internal/jsonlex"

// dropFields returns line, a JSON object as converter writes it, without
// its top-level members named in drop (copied into dst); nested members
// are never touched. Members are read with the repository's one JSON
// lexer, so an escaped name is compared by what it means. A line the
// lexer refuses is returned whole: it came from converter's encoder, so
// that would mean a bug there, and showing too much beats showing nothing.
func dropFields(dst, line []byte, drop func(key []byte) bool) []byte {
	if len(line) < 2 || line[0] != '{' {
		return append(dst, line...)
	}
	var s jsonlex.Scanner
	s.Reset(line)
	start := len(dst)
	dst = append(dst, '{')
	kept := 0
	s.Open('{')
	for first := true; s.More(&first, '}'); {
		s.WS()
		from := s.Pos
		gone := drop(s.Key()) // (the key's bytes last until the next string read)
		if s.SkipValue(); s.Err != nil || gone {
			continue
		}
		if kept++; kept > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, line[from:s.Pos]...)
	}
	if s.Err != nil {
		return append(dst[:start], line...)
	}
	return append(dst, '}')
}
