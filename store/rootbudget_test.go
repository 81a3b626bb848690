package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// A trace's first records written before its root ends (the SDK
// processor's FsyncTurn) get the header they would get with the root in
// the batch when RootBudget told the root's budget, and the writer's
// otherwise; the root's resource budget attribute (500) is then not the
// header's, so it stays in the resource as written.
func TestRootBudgetBeforeRoot(t *testing.T) {
	tests := []struct {
		name   string
		tell   int64 // RootBudget's tokens; 0: not told
		forget bool  // told, then forgotten
		want   int64
	}{
		{"told", 20, false, 20},
		{"not told", 0, false, 500},
		{"forgotten", 20, true, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Header: HeaderOptions{Budget: &artifact.Budget{Tokens: 1000}}})
			if tt.tell > 0 {
				s.RootBudget(tid(1), tt.tell, 0)
			}
			if tt.forget {
				s.RootBudget(tid(1), 0, 0)
			}
			child := records(span{trace: 1, id: 2, parent: 1})
			child[0].Resource.Attributes().PutInt(semconv.BudgetTokens, 500)
			require.NoError(t, s.Write(child))
			root := records(span{trace: 1, id: 1})
			root[0].Resource = child[0].Resource
			root[0].Span.Attributes().PutInt(semconv.BudgetTokens, tt.tell)
			require.NoError(t, s.Write(root))
			require.NoError(t, s.Close())

			raw, err := os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
			require.NoError(t, err)
			r := artifact.NewReader(bytes.NewReader(raw))
			for {
				if _, err := r.Next(); err != nil {
					require.ErrorIs(t, err, io.EOF)
					break
				}
			}
			require.NotNil(t, r.Meta().Budget)
			assert.Equal(t, tt.want, r.Meta().Budget.Tokens)
			_, ok := s.roots.Load(tid(1))
			assert.False(t, ok, "nothing kept for a finalized trace")
		})
	}
}
