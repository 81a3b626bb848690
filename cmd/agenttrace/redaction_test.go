package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// redactionDir holds one fixture per input shape, each carrying every
// secret family of issue 16 and the near misses that must survive; see its
// README (the secrets are synthetic).
const redactionDir = "testdata/redaction"

// redactionFixtures are the seed shapes: transcript, trajectory, streaming
// events, Jaeger and OTLP/JSON.
var redactionFixtures = []string{"transcript.jsonl", "trajectory.jsonl", "events.jsonl", "jaeger.json", "otlp.json"}

// planted is planted.json: the secrets by family, and the near misses.
type planted struct {
	Secrets    map[string]string `json:"secrets"`
	NearMisses map[string]string `json:"near_misses"`
}

func loadPlanted(t *testing.T) planted {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(redactionDir, "planted.json"))
	require.NoError(t, err)
	var p planted
	require.NoError(t, json.Unmarshal(raw, &p))
	require.NotEmpty(t, p.Secrets)
	require.NotEmpty(t, p.NearMisses)
	return p
}

var alnumRun = regexp.MustCompile(`[A-Za-z0-9]+`)

// core is the longest run of letters and digits of s: what is looked for
// in an output, so that JSON or HTML escaping of the punctuation around it
// cannot hide a secret that survived.
func core(s string) string {
	best := ""
	for _, m := range alnumRun.FindAllString(s, -1) {
		if len(m) > len(best) {
			best = m
		}
	}
	return best
}

// checkRedacted asserts that no secret of p is in out and that every near
// miss is.
func (p planted) checkRedacted(t *testing.T, what, out string) {
	t.Helper()
	for family, s := range p.Secrets {
		assert.NotContains(t, out, core(s), "%s: the %s secret survived", what, family)
	}
	for name, s := range p.NearMisses {
		assert.Contains(t, out, core(s), "%s: the near miss %s was lost", what, name)
	}
}

// TestRedactionPlanted is the check: each seed shape, imported and
// converted (to an artifact, streamed, and to OTLP/JSON), rendered (html)
// and sent (send) with default flags, keeps none of the planted secrets
// and every near miss. With --no-redact every secret is still there, which
// shows the fixtures carry them through the importers.
func TestRedactionPlanted(t *testing.T) {
	t.Parallel()
	p := loadPlanted(t)
	for _, name := range redactionFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := filepath.Join(redactionDir, name)
			dir := t.TempDir()

			for _, out := range []string{"run.jsonl", "run.json"} {
				path := filepath.Join(dir, out)
				r := agenttrace(t, "", "convert", in, "-o", path)
				require.Equal(t, 0, r.code, r.stderr)
				p.checkRedacted(t, "convert -o "+out, readString(t, path))
			}
			r := agenttrace(t, "", "convert", in, "-o", "-")
			require.Equal(t, 0, r.code, r.stderr)
			p.checkRedacted(t, "convert -o -", r.stdout)

			page := filepath.Join(dir, "run.html")
			r = agenttrace(t, "", "html", in, "-o", page)
			require.Equal(t, 0, r.code, r.stderr)
			p.checkRedacted(t, "html", readString(t, page))

			rcv := startHTTPReceiver(t, "/v1/traces", 0)
			r = agenttrace(t, "", "send", in, "--protocol", "http", "--insecure", "--endpoint", rcv.hostPort())
			require.Equal(t, 0, r.code, r.stderr)
			p.checkRedacted(t, "send", receivedJSON(t, &rcv.received))

			kept := filepath.Join(dir, "kept.jsonl")
			r = agenttrace(t, "", "convert", "--no-redact", in, "-o", kept)
			require.Equal(t, 0, r.code, r.stderr)
			out := readString(t, kept)
			for family, s := range p.Secrets {
				assert.Contains(t, out, core(s), "--no-redact lost the %s secret: the fixture does not carry it", family)
			}
		})
	}
}

// TestRedactionHeader: an artifact whose header says its writer scanned
// it (secrets_scanned, as the bridge and the exporter write) is not
// scanned again; one without the mark is; --redact-key scans it anyway,
// replaces the named field and says so in the header (redacted).
func TestRedactionHeader(t *testing.T) {
	t.Parallel()
	p := loadPlanted(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	r := agenttrace(t, "", "convert", "--no-redact", filepath.Join(redactionDir, "trajectory.jsonl"), "-o", plain)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.SplitN(readString(t, plain), "\n", 2)
	require.Len(t, lines, 2)
	require.NotContains(t, lines[0], "secrets_scanned")
	scanned := filepath.Join(dir, "scanned.jsonl")
	header := strings.TrimSuffix(lines[0], "}") + `,"secrets_scanned":true}`
	require.NoError(t, os.WriteFile(scanned, []byte(header+"\n"+lines[1]), 0o644))

	r = agenttrace(t, "", "convert", plain, "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	p.checkRedacted(t, "an artifact without the mark", r.stdout)
	assert.Contains(t, strings.SplitN(r.stdout, "\n", 2)[0], `"secrets_scanned":true`, "convert says it scanned")

	r = agenttrace(t, "", "convert", scanned, "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, core(p.Secrets["stripe-sk"]), "a scanned artifact was scanned again")
	assert.Contains(t, strings.SplitN(r.stdout, "\n", 2)[0], `"secrets_scanned":true`, "the mark is kept")

	r = agenttrace(t, "", "convert", "--redact-key", "FILE_PATH", scanned, "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	p.checkRedacted(t, "--redact-key", r.stdout)
	assert.NotContains(t, r.stdout, ".npmrc", "the named field file_path")
	assert.Contains(t, strings.SplitN(r.stdout, "\n", 2)[0], `"redacted":true`)
}

// TestRedactionHeaderOTLP: the mark has no OTLP form (an OTLP file makes
// no such promise, and the round trip OTLP -> JSONL -> OTLP must add
// nothing), while the budget and redacted travel; an artifact made from the
// OTLP file by convert, which scanned it, has the mark again.
func TestRedactionHeaderOTLP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	header := `{"v":1,"kind":"meta","started_at":"2026-05-06T14:00:00Z","budget":{"budget_tokens":5000,"warn_threshold":0.5},"redacted":true,"secrets_scanned":true}`
	rec := `{"kind":"call","tool":"read","ok":true,"started_at":"2026-05-06T14:00:01Z","finished_at":"2026-05-06T14:00:02Z","args":{"path":"a"}}`
	require.NoError(t, os.WriteFile(in, []byte(header+"\n"+rec+"\n"), 0o644))
	otlp := filepath.Join(dir, "out.json")
	r := agenttrace(t, "", "convert", in, "-o", otlp)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, readString(t, otlp), "secrets_scanned")
	assert.Contains(t, readString(t, otlp), "agenttrace.redacted")
	r = agenttrace(t, "", "convert", otlp, "-o", "-")
	require.Equal(t, 0, r.code, r.stderr)
	first := strings.SplitN(r.stdout, "\n", 2)[0]
	for _, want := range []string{`"budget_tokens":5000`, `"redacted":true`, `"secrets_scanned":true`} {
		assert.Contains(t, first, want)
	}
}

// TestRedactionFlags: --no-redact and --redact-key exclude each other, an
// empty key is refused, and commands that print no span content
// (validate) take neither.
func TestRedactionFlags(t *testing.T) {
	t.Parallel()
	in := filepath.Join(redactionDir, "events.jsonl")
	for _, args := range [][]string{
		{"convert", "--no-redact", "--redact-key", "x", in, "-o", "-"},
		{"html", "--redact-key", "", in, "-o", "-"},
		{"validate", "--no-redact", in},
	} {
		r := agenttrace(t, "", args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", args, r.stderr)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// receivedJSON is every request a receiver got, as OTLP/JSON.
func receivedJSON(t *testing.T, r *received) string {
	t.Helper()
	reqs, _ := r.snapshot(t)
	require.NotEmpty(t, reqs)
	var sb strings.Builder
	for _, td := range reqs {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		require.NoError(t, err)
		sb.Write(b)
	}
	return sb.String()
}
