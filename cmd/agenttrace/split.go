package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttrace/agenttrace/converter"
)

// splitInto writes one file per group into p.split and prints each path.
func (e *env) splitInto(p *convertPlan, all *inputs) error {
	if err := os.MkdirAll(p.split, 0o755); err != nil {
		return ioError(fmt.Errorf("--split: %w", err))
	}
	used := map[string]bool{}
	for _, g := range converter.Split(all.records, p.by) {
		name := g.Key
		if g.Conversation {
			name = converter.SafeName(g.Key)
		}
		name = unique(name, g.Key, used)
		if !filepath.IsLocal(name) {
			// SafeName makes this impossible; refuse rather than escape DIR.
			return invalidError(fmt.Errorf("--split: group %q gives an unsafe file name %q", g.Key, name))
		}
		path := filepath.Join(p.split, name+p.format.ext())
		meta := all.metaFor(g.Records)
		err := writeFile(path, func(w io.Writer) error {
			return encode(w, p.format, g.Records, meta)
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, path)
	}
	return nil
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// unique returns name, or name with the hash of key appended when another
// group of this run already took it (a conversation named like a trace
// id). Names are compared case-insensitively, as macOS and Windows do.
func unique(name, key string, used map[string]bool) string {
	if used[strings.ToLower(name)] {
		name += "-" + shortHash(key)
	}
	base := name
	for i := 2; used[strings.ToLower(name)]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	used[strings.ToLower(name)] = true
	return name
}
