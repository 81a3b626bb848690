package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve on a folder of the seed shapes themselves, not converted first
// (a transcript log, a trajectory log, streaming events, Jaeger and
// OTLP/JSON documents, each with the planted secrets): each is a run of
// the list, and no route shows a secret — the run page, /data, /raw (the
// converted artifact), the live stream (the file's own lines) and the
// list; with --no-redact every secret is there, so the check is not empty.
func TestServeRedactsImported(t *testing.T) {
	t.Parallel()
	p := loadPlanted(t)
	dir := t.TempDir()
	for _, name := range redactionFixtures {
		copyFile(t, filepath.Join(redactionDir, name), filepath.Join(dir, name))
	}
	for _, tc := range []struct {
		name   string
		args   []string
		secret bool
	}{
		{name: "default"},
		{name: "no-redact", args: []string{"--no-redact"}, secret: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, _, _ := startServeRedaction(t, dir, tc.args...)
			var all strings.Builder
			check := func(what, out string) {
				t.Helper()
				all.WriteString(out)
				if !tc.secret {
					p.checkRedacted(t, what, out)
				}
			}
			var list string
			require.Eventually(t, func() bool { // the first walk may outlast the first request
				list = fetchOK(t, base)
				return !strings.Contains(list, `class="indexing"`)
			}, time.Minute, 20*time.Millisecond)
			all.WriteString(list)
			for family, s := range p.Secrets { // the list shows too little for the near misses
				if !tc.secret {
					assert.NotContains(t, list, core(s), "the list: the %s secret survived", family)
				}
			}
			for _, name := range redactionFixtures {
				assert.Contains(t, list, `href="/run/`+name+`"`, "%s is a run of the list", name)
				check(name+": run page", fetchOK(t, base+"run/"+name))
				check(name+": /data", fetchOK(t, base+"data/"+name))
				raw := fetchOK(t, base+"raw/"+name)
				require.Contains(t, strings.SplitN(raw, "\n", 2)[0], `"kind":"meta"`, "%s: /raw is the converted artifact", name)
				check(name+": /raw", raw)
				check(name+": live stream", liveLines(t, base+"events/"+name, filepath.Join(dir, name)))
			}
			if tc.secret {
				for family, s := range p.Secrets {
					assert.Contains(t, all.String(), core(s), "--no-redact lost the %s secret", family)
				}
			}
		})
	}
}
