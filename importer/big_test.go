package importer

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// turnSource generates a transcript log of about size bytes, a turn at a
// time, so that the log never exists in memory as a whole.
type turnSource struct {
	size, made int64
	turn       int
	at         time.Time
	buf        []byte
	text       string
}

func newTurnSource(size int64) *turnSource {
	s := &turnSource{size: size, at: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC), text: strings.Repeat("The quick brown fox jumps over the lazy dog. ", 12)}
	s.buf = fmt.Appendf(nil, `{"type":"session.started","id":"e0","sessionId":"big","time":%q,"session":{"cwd":"/repo","agent":"big"}}`+"\n", s.tm())
	return s
}

func (s *turnSource) tm() string {
	s.at = s.at.Add(137 * time.Millisecond)
	return s.at.Format(time.RFC3339Nano)
}

func (s *turnSource) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.made >= s.size {
			return 0, io.EOF
		}
		s.turn++
		t := s.turn
		s.buf = fmt.Appendf(s.buf, `{"type":"message.appended","id":"u%d","sessionId":"big","time":%q,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`+"\n", t, s.tm(), s.text)
		s.buf = fmt.Appendf(s.buf, `{"type":"inference.requested","id":"q%d","sessionId":"big","time":%q,"inference":{"provider":"anthropic","model":"claude-sonnet-4-5","max_tokens":8192,"turn":%d}}`+"\n", t, s.tm(), t)
		s.buf = fmt.Appendf(s.buf, `{"type":"inference.responded","id":"r%d","sessionId":"big","time":%q,"inference":{"turn":%d,"stop_reason":"tool_use","latency_ms":1200,"usage":{"input":1200,"output":85,"cache_read":4000,"cache_create":0}}}`+"\n", t, s.tm(), t)
		s.buf = fmt.Appendf(s.buf, `{"type":"message.appended","id":"a%d","sessionId":"big","time":%q,"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_%d","name":"read_file","input":{"path":"src/file_%d.go"}}]}}`+"\n", t, s.tm(), t, t)
		s.buf = fmt.Appendf(s.buf, `{"type":"message.appended","id":"t%d","sessionId":"big","time":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":%q}]}}`+"\n", t, s.tm(), t, s.text)
		s.made += int64(len(s.buf))
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = s.buf[:0:0]
	}
	return n, nil
}

// TestTranscriptBoundedMemory converts a long transcript log (64 MiB here;
// AGENTTRACE_BIG_MB=1024 for the gigabyte in docs/benchmarks.md) into an
// artifact and checks that the heap never holds more than a bounded amount,
// however long the log: the importer streams and so does the writer.
func TestTranscriptBoundedMemory(t *testing.T) {
	mb := int64(64)
	if v := os.Getenv("AGENTTRACE_BIG_MB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
		mb = n
	}
	if testing.Short() || raceEnabled && os.Getenv("AGENTTRACE_BIG_MB") == "" {
		mb = 4
	}
	src := newTurnSource(mb << 20)
	w := artifact.NewWriter(io.Discard, nil)
	var peak uint64
	var ms runtime.MemStats
	n := 0
	start := time.Now()
	st, err := ReadTranscript(src, "big", func(rec *artifact.Record) error {
		n++
		if n%1000 == 0 { // often enough for the 4 MiB log of -short and -race
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		return w.Write(rec)
	})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	took := time.Since(start)
	require.Empty(t, st.Problems)
	require.Greater(t, n, int(mb)*500)
	t.Logf("%d MiB, %d records in %v: %.0f MiB/s, peak heap in use %d MiB", mb, n, took, float64(src.made)/(1<<20)/took.Seconds(), peak>>20)
	require.NotZero(t, peak, "the heap was never sampled")
	require.Less(t, peak, uint64(64<<20), "the heap grows with the log: not streaming")
}
