package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
)

// The one line loop of the line-oriented readers: blank lines skipped, a
// byte order mark dropped wherever a line starts with one (files are
// concatenated), an overlong line reported and skipped, a torn last line
// told apart.
func TestEachLine(t *testing.T) {
	in := "\uFEFFone\n\n  \n\uFEFF\n\uFEFFtwo\r\n" + strings.Repeat("x", 40) + "\nthree"
	s := sink{name: "in"}
	lr := artifact.NewLineReader(strings.NewReader(in), 32)
	var got []string
	require.NoError(t, s.eachLine(lr, func(line []byte) error {
		got = append(got, fmt.Sprintf("%d:%s:%v", lr.Line(), line, s.torn))
		return nil
	}))
	assert.Equal(t, []string{"1:one:false", "5:two:false", "7:three:true"}, got)
	st := s.done()
	require.Len(t, st.Problems, 1)
	assert.ErrorIs(t, st.Problems[0], artifact.ErrLineTooLong)
	assert.Contains(t, st.Problems[0].Error(), "in:6:")

	stop := errors.New("stop")
	n := 0
	err := s.eachLine(artifact.NewLineReader(strings.NewReader("a\nb\n"), 32), func([]byte) error { n++; return stop })
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, n)
}

// Problems past the cap are counted in one last problem, at the line of
// the last one.
func TestSinkProblemCap(t *testing.T) {
	s := sink{name: "in"}
	for i := 1; i <= maxProblems+5; i++ {
		s.problem(i, errors.New("bad"))
	}
	st := s.done()
	require.Len(t, st.Problems, maxProblems+1)
	assert.Equal(t, int64(maxProblems+5), st.Skipped, "every skipped line is counted")
	last := st.Problems[maxProblems]
	assert.Contains(t, last.Error(), fmt.Sprintf("in:%d: 5 more problems not listed", maxProblems+5))
}

// An error from emit stops every reader at once, and Stats counts the
// records emitted.
func TestEmitErrorStops(t *testing.T) {
	file := func(path string) []byte {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	inputs := map[Shape][]byte{
		Transcript:   file(shapesDir + "/transcript.jsonl"),
		Trajectory:   file(shapesDir + "/trajectory.jsonl"),
		Events:       file(shapesDir + "/events.jsonl"),
		Jaeger:       file(shapesDir + "/jaeger.json"),
		OTLPStream:   frame(otlpFixtures(t)...),
		OTLPJSONLine: file("../testdata/otlp/conversation.lines.json"),
		OTLPJSON:     file("../testdata/otlp/agent-run.json"),
		OTLPProto:    file("../testdata/otlp/agent-run.pb"),
		Artifact:     file("../testdata/golden/agent-run.jsonl"),
	}
	stop := errors.New("stop")
	for shape, data := range inputs {
		fn, ok := For(shape)
		require.True(t, ok, shape)
		for _, at := range []int{1, 2} {
			n := 0
			st, err := fn(bytes.NewReader(data), "x", func(*artifact.Record) error {
				if n++; n == at {
					return stop
				}
				return nil
			})
			assert.ErrorIs(t, err, stop, "%s, stopped at %d", shape, at)
			assert.Equal(t, at, n, "%s: records emitted", shape)
			assert.EqualValues(t, at, st.Records, "%s: Stats.Records", shape)
		}
	}
}
