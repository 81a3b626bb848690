package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/agenttrace/agenttrace/catalog"
)

// nameMax bounds the artifact read to name a run of the in-memory index:
// a larger one is named by its path (its catalog row, in catalog mode,
// names it whatever its size).
const nameMax = 16 << 20

// names is what names a run for people: the catalog's rule
// (catalog.RowOf: its earliest root's or agent's name, and its first
// prompt), read once per version of the file, when a list page first
// shows the run.
type names struct {
	once         *sync.Once // nil: named already (a catalog row)
	name, prompt string
}

// Name is what the list calls the run: its root's or its agent's name;
// empty when unknown, and the list shows its path.
func (ri *runInfo) Name() string { return ri.names.name }

// Prompt is the run's first prompt, cut to catalog.PromptChars.
func (ri *runInfo) Prompt() string { return ri.names.prompt }

// nameRows sets the names of the rows a list page shows, reading the
// artifacts not named yet in parallel: a page is 100 rows, so a listing
// of any size reads at most that many files for them, once each.
func (s *Server) nameRows(rows []*runInfo) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, ri := range rows {
		if ri.names.once == nil {
			continue
		}
		wg.Go(func() {
			ri.names.once.Do(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				s.nameRun(ri)
			})
		})
	}
	wg.Wait()
}

// nameRun reads ri's artifact into catalog.RowOf, redacted as the run
// page shows it, and keeps the names of its row.
func (s *Server) nameRun(ri *runInfo) {
	if ri.Err != "" || ri.Size > nameMax || ri.Size == 0 {
		return
	}
	a, err := s.openRun(ri.Rel)
	if err != nil {
		return // gone since the listing: named by its path
	}
	defer a.f.Close()
	src, err := s.redactedSource(a)
	if err != nil {
		return
	}
	row, err := catalog.RowOf(src, catalog.Source{Name: ri.Rel, Keys: []string{ri.Rel}})
	if err != nil {
		s.cfg.log.Warn("cannot name run", "path", ri.Rel, "err", err)
		return
	}
	ri.names.name, ri.names.prompt = cmp.Or(row.RootName, row.Agent), row.FirstPrompt
}

// redactedSource is a's bytes as a run page shows them: each line
// redacted (redactLines) when a's lines are, read whole then, so only a
// file of at most nameMax bytes is given.
func (s *Server) redactedSource(a *servedRun) (io.Reader, error) {
	src := io.NewSectionReader(a.f, 0, a.fi.Size())
	if !s.cfg.red.linesNeeded(a) {
		return src, nil
	}
	if a.fi.Size() > nameMax {
		return nil, fmt.Errorf("%s: %w: %d bytes to redact whole", a.rel, errRunTooLarge, a.fi.Size())
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", a.rel, err)
	}
	return bytes.NewReader(redactLines(s.cfg.red, data)), nil
}

// text redacts one string as rd redacts a line: inside a JSON object.
// A nil Redaction, or one without Line, returns s as it is.
func (rd *Redaction) text(s string) string {
	if rd == nil || rd.Line == nil || s == "" || !rd.needed(nil) {
		return s
	}
	line, err := json.Marshal(map[string]string{"s": s})
	if err != nil {
		return s
	}
	var out map[string]string
	if err := json.Unmarshal(rd.Line(line), &out); err != nil {
		return ""
	}
	return out["s"]
}

// redactLines redacts each line of data with rd.Line: a line that is not
// a record (a torn one) too, since a secret can sit in half a line.
func redactLines(rd *Redaction, data []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(data))
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		data = rest
		body := bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(body)) > 0 {
			body = rd.Line(body)
		}
		out.Write(body)
		if found {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}
